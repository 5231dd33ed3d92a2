// The EDU subscription over a simulated year, on a clock the test moves: the monthly charges,
// the renewal, cancelling and resuming, declined cards and their retries, and that no month is
// ever charged twice, with two instances and with an instance dying mid-charge.
import { and, asc, count, eq, inArray } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { openDatabase, type DatabaseHandle } from "#server/db/client.ts";
import { jobs, mailOutbox, payments, rateLimits, subscriptions, users } from "#server/db/schema/index.ts";
import { eduActiveUntil } from "#server/library/entitlements.ts";
import type { PaymentGateway } from "#server/payments/gateway.ts";
import { DAY_MS, periodStart } from "#shared/subscription.ts";
import { createTestDatabase, type TestDatabase } from "#tests/support/database.ts";
import {
  mailSubjectsOf,
  monthsOfSubscription,
  subscriptionCharges,
  subscriptionInstance,
  type SubscriptionInstance,
} from "#tests/support/subscriptions.ts";

let database: TestDatabase;
/** On PostgreSQL, a second pool to the same database: another server instance. */
let otherPool: DatabaseHandle | undefined;
let instance: SubscriptionInstance;
let other: SubscriptionInstance;

/**
 * The day the customers subscribe: 31 January of next year at 10:00 in Rome, so that months
 * without a 31st come up. Computed from today, the suite passes on any day it runs.
 */
const T0 = new Date(Date.UTC(new Date().getUTCFullYear() + 1, 0, 31, 9, 0));
let clock = T0;
const now = () => clock;
const MINUTE = 60_000;

beforeAll(async () => {
  database = await createTestDatabase();
  if (database.connection) otherPool = await openDatabase({ ...database.connection, poolMax: 5 });
  instance = subscriptionInstance(database.db, now);
  other = subscriptionInstance((otherPool ?? database).db, now);
});
afterAll(async () => {
  instance.close();
  other.close();
  await otherPool?.close();
  await database.destroy();
});
beforeEach(() => {
  clock = T0;
});

let userNumber = 0;
async function newCustomer(): Promise<string> {
  const [row] = await database.db
    .insert(users)
    .values({ email: `abbonata${++userNumber}@example.it`, firstname: "Giulia", lastname: "Bianchi" })
    .returning({ id: users.id });
  return row!.id;
}

async function subscriptionOf(userId: string) {
  const [row] = await database.db.select().from(subscriptions).where(eq(subscriptions.userId, userId));
  return row!;
}
async function monthsOf(userId: string) {
  return monthsOfSubscription(database.db, (await subscriptionOf(userId)).id);
}
/** Charges the sandbox made for the customer's subscription after the checkout (any outcome). */
async function monthlyChargesOf(userId: string) {
  return subscriptionCharges(database.db, (await subscriptionOf(userId)).id);
}
async function paymentsOf(userId: string) {
  return database.db.select().from(payments).where(eq(payments.userId, userId)).orderBy(asc(payments.paidAt));
}
/** The instant month `number` of the customer's subscription is due. */
async function dueAt(userId: string, number: number): Promise<Date> {
  return periodStart((await subscriptionOf(userId)).anchorAt, number);
}
/** Moves the clock and lets the runner do what is due. */
async function at(instant: Date, runner: SubscriptionInstance = instance) {
  clock = instant;
  return runner.jobs.runDue();
}

describe("a year of EDU", () => {
  it("charges each month on the anchor's day, six times, renews with a week's notice, and six more", async () => {
    const userId = await newCustomer();
    await instance.buyEdu(userId);

    const sub = await subscriptionOf(userId);
    expect(sub).toMatchObject({ status: "active", monthlyPriceCents: 450, cardBrand: "visa", cardLast4: "4242" });
    expect(sub.anchorAt).toEqual(T0);
    // The checkout paid month 1: EDU runs to month 2's due date (the last day of February).
    const second = await dueAt(userId, 2);
    expect(second.getUTCMonth()).toBe(1);
    expect(second.getUTCDate()).toBe(new Date(Date.UTC(T0.getUTCFullYear(), 2, 0)).getUTCDate());
    expect(await eduActiveUntil(database.db, userId)).toEqual(second);
    await instance.jobs.runDue();
    expect(await mailSubjectsOf(database.db, userId)).toEqual([
      expect.stringMatching(/^Ordine confermato n° /),
      "Il tuo abbonamento EDU è attivo",
    ]);

    for (let number = 2; number <= 12; number++) {
      const due = await dueAt(userId, number);
      if (number === 7) {
        // The renewal notice leaves a week before the 7th month, once.
        const notice = "Il tuo abbonamento EDU si rinnova tra una settimana";
        await at(new Date(due.getTime() - 7 * DAY_MS - MINUTE));
        expect(await mailSubjectsOf(database.db, userId)).not.toContain(notice);
        await at(new Date(due.getTime() - 7 * DAY_MS));
        await at(new Date(due.getTime() - 7 * DAY_MS + MINUTE));
        expect((await mailSubjectsOf(database.db, userId)).filter((s) => s === notice)).toHaveLength(1);
      }
      // A minute early nothing happens; on the minute the month is charged.
      await at(new Date(due.getTime() - MINUTE));
      expect((await paymentsOf(userId)).length).toBe(number - 1);
      await at(due);
      expect((await paymentsOf(userId)).length).toBe(number);
      expect(await eduActiveUntil(database.db, userId)).toEqual(await dueAt(userId, number + 1));
      // Due dates follow the anchor on Rome's calendar: always 10:00 there, on the 31st or the month's last day.
      expect(new Intl.DateTimeFormat("it-IT", { timeZone: "Europe/Rome", hour: "2-digit", hourCycle: "h23" }).format(due)).toBe(
        "10",
      );
    }

    const months = await monthsOf(userId);
    expect(months.map((m) => [m.number, m.status])).toEqual([
      ...Array.from({ length: 12 }, (_, i) => [i + 1, "paid"]),
      [13, "scheduled"],
    ]);
    expect(await monthlyChargesOf(userId)).toHaveLength(11);
    const paid = await paymentsOf(userId);
    expect(paid).toHaveLength(12);
    expect(new Set(paid.map((p) => p.subscriptionPeriodId)).size).toBe(12);
    expect(paid.every((p) => p.amountCents === 450 && p.orderId === sub.orderId)).toBe(true);
    const subjects = await mailSubjectsOf(database.db, userId);
    expect(subjects.filter((s) => s.startsWith("Pagamento ricevuto: EDU"))).toHaveLength(11);
    expect(subjects).toContain("Il tuo abbonamento EDU è attivo");
    expect((await subscriptionOf(userId)).status).toBe("active");
  });

  it("shows the customer where they stand: the instalment, the next charge, the card, the receipts", async () => {
    const userId = await newCustomer();
    await instance.buyEdu(userId);
    await at(await dueAt(userId, 2));
    await at(await dueAt(userId, 3));
    clock = new Date((await dueAt(userId, 3)).getTime() + 5 * DAY_MS);
    const view = await instance.subscriptions.ofCustomer(userId);
    expect(view).toMatchObject({
      status: "active",
      planName: "EDU - Abbonamento 6 mesi",
      monthlyPriceCents: 450,
      card: { brand: "visa", last4: "4242" },
      instalment: 3,
      instalments: 6,
      paidUntil: await dueAt(userId, 4),
      nextCharge: { at: await dueAt(userId, 4), amountCents: 450, instalment: 4 },
      retry: null,
      canResume: false,
    });
    expect(view!.paidMonths.map((m) => m.instalment)).toEqual([1, 2, 3]);
    expect(view!.paidMonths.every((m) => m.receiptHref.startsWith("/ricevuta/"))).toBe(true);
    // Nobody else's.
    expect(await instance.subscriptions.ofCustomer(await newCustomer())).toBeNull();
  });
});

describe("cancelling and resuming", () => {
  it("cancelled in month 3: no charge after it, access to the end of month 3", async () => {
    const userId = await newCustomer();
    await instance.buyEdu(userId);
    await at(await dueAt(userId, 2));
    await at(await dueAt(userId, 3));
    clock = new Date((await dueAt(userId, 3)).getTime() + 10 * DAY_MS);
    expect(await instance.subscriptions.cancel(userId)).toEqual({ ok: true });
    const view = await instance.subscriptions.ofCustomer(userId);
    expect(view).toMatchObject({ status: "cancelled", nextCharge: null, canResume: true, paidUntil: await dueAt(userId, 4) });

    await at(await dueAt(userId, 4));
    await at(await dueAt(userId, 5));
    expect(await paymentsOf(userId)).toHaveLength(3);
    expect(await monthlyChargesOf(userId)).toHaveLength(2);
    const sub = await subscriptionOf(userId);
    expect(sub).toMatchObject({ status: "ended", endedReason: "cancelled" });
    expect(sub.endedAt).toEqual(await dueAt(userId, 4));
    expect((await monthsOf(userId)).map((m) => m.status)).toEqual(["paid", "paid", "paid", "void"]);
    expect(await eduActiveUntil(database.db, userId)).toEqual(await dueAt(userId, 4));
    expect(await mailSubjectsOf(database.db, userId)).toEqual(
      expect.arrayContaining(["Disdetta del tuo abbonamento EDU confermata", "Il tuo abbonamento EDU è terminato"]),
    );
    // Too late to resume; a new subscription can be bought.
    expect(await instance.subscriptions.resume(userId)).toEqual({ ok: false });
    expect((await instance.checkout.open(userId, "abbonamentoedu")).ok).toBe(true);
  });

  it("resumed before the paid month ends: the charges go on", async () => {
    const userId = await newCustomer();
    await instance.buyEdu(userId);
    await at(await dueAt(userId, 2));
    await at(await dueAt(userId, 3));
    clock = new Date((await dueAt(userId, 3)).getTime() + 2 * DAY_MS);
    await instance.subscriptions.cancel(userId);
    // A second subscription while this one runs is refused.
    expect(await instance.checkout.open(userId, "abbonamentoedu")).toEqual({ ok: false, reason: "edu_active" });
    clock = new Date((await dueAt(userId, 4)).getTime() - MINUTE);
    expect(await instance.subscriptions.resume(userId)).toEqual({ ok: true });
    await at(await dueAt(userId, 4));
    await at(await dueAt(userId, 5));
    expect(await paymentsOf(userId)).toHaveLength(5);
    expect((await subscriptionOf(userId)).status).toBe("active");
    // The cancellation mail went out before the resume; nothing says the subscription ended.
    expect(await mailSubjectsOf(database.db, userId)).not.toContain("Il tuo abbonamento EDU è terminato");
  });
});

describe("a card that stops working", () => {
  it("declined: retried 1, 3 and 7 days after the due date, a mail each time, past due, then ended at the paid end", async () => {
    const userId = await newCustomer();
    const { setupId } = await instance.buyEdu(userId);
    await instance.sandbox.simulateSavedCard(setupId, "declined");
    const due = await dueAt(userId, 2);

    await at(due);
    expect((await subscriptionOf(userId)).status).toBe("past_due");
    expect(await eduActiveUntil(database.db, userId)).toEqual(due); // no access beyond what was paid
    const view = await instance.subscriptions.ofCustomer(userId);
    expect(view!.retry).toEqual({
      errorMessage: "La carta è stata rifiutata per fondi insufficienti.",
      at: new Date(due.getTime() + DAY_MS),
    });

    for (const days of [1, 3]) {
      await at(new Date(due.getTime() + days * DAY_MS - MINUTE));
      await at(new Date(due.getTime() + days * DAY_MS));
      expect((await subscriptionOf(userId)).status).toBe("past_due");
    }
    expect(await monthlyChargesOf(userId)).toHaveLength(3);
    await at(new Date(due.getTime() + 7 * DAY_MS));
    const sub = await subscriptionOf(userId);
    expect(sub).toMatchObject({ status: "ended", endedReason: "payment_failed" });
    expect(sub.endedAt).toEqual(due);
    const charges = await monthlyChargesOf(userId);
    expect(charges).toHaveLength(4);
    expect(charges.every((c) => c.status === "failed")).toBe(true);
    expect(await paymentsOf(userId)).toHaveLength(1);
    expect(await eduActiveUntil(database.db, userId)).toEqual(due);
    const subjects = await mailSubjectsOf(database.db, userId);
    expect(subjects.filter((s) => s === "Pagamento non riuscito: aggiorna la tua carta")).toHaveLength(3);
    expect(subjects).toContain("Il tuo abbonamento EDU è terminato");
    // Nothing more, however long the clock runs.
    await at(new Date(due.getTime() + 90 * DAY_MS));
    expect(await monthlyChargesOf(userId)).toHaveLength(4);
  });

  it("'Paga ora' with a card still declined, pressed again and again, leaves the scheduled retries as they were", async () => {
    const userId = await newCustomer();
    const { setupId } = await instance.buyEdu(userId);
    await instance.sandbox.simulateSavedCard(setupId, "declined");
    const due = await dueAt(userId, 2);
    await at(due);
    const [, waiting] = await monthsOf(userId);
    expect(waiting).toMatchObject({ status: "scheduled", tries: 1, nextAttemptAt: new Date(due.getTime() + DAY_MS) });

    for (let press = 0; press < 5; press++) {
      clock = new Date(due.getTime() + (press + 1) * MINUTE);
      expect(await instance.subscriptions.payNow(userId, "https://portale.example.it/my-products/abbonamento/")).toEqual({
        state: "failed",
        errorMessage: "La carta è stata rifiutata per fondi insufficienti.",
      });
    }
    const [, after] = await monthsOf(userId);
    expect(after).toMatchObject({ status: "scheduled", tries: 1, customerTries: 5, tryKind: null });
    expect(after!.nextAttemptAt).toEqual(new Date(due.getTime() + DAY_MS));
    expect((await subscriptionOf(userId)).status).toBe("past_due");
    // Each press was a charge of its own (its own idempotency keys), and no failure mail was sent for them.
    expect(await monthlyChargesOf(userId)).toHaveLength(6);
    expect(
      (await mailSubjectsOf(database.db, userId)).filter((subject) => subject.startsWith("Pagamento non riuscito")),
    ).toHaveLength(1);

    // The schedule goes on as before: retries on days 1, 3 and 7, then the end.
    await instance.sandbox.simulateSavedCard(setupId, "succeeds");
    await at(new Date(due.getTime() + DAY_MS));
    expect((await subscriptionOf(userId)).status).toBe("active");
    expect((await paymentsOf(userId)).map((p) => p.amountCents)).toEqual([450, 450]);
  });

  it("a press of 'Paga ora' spends one of the hour's card payments only when it charges", async () => {
    const userId = await newCustomer();
    const { setupId } = await instance.buyEdu(userId);
    await instance.sandbox.simulateSavedCard(setupId, "declined");
    await at(await dueAt(userId, 2));
    const spent = async () => {
      const [row] = await database.db
        .select()
        .from(rateLimits)
        .where(eq(rateLimits.key, `cardPaymentUser:${userId}`));
      return row?.points ?? 0;
    };
    const before = await spent();
    const presses = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        (i % 2 === 0 ? instance : other).subscriptions.payNow(userId, "https://portale.example.it/my-products/abbonamento/"),
      ),
    );
    const charged = presses.filter((outcome) => outcome?.state === "failed").length;
    expect(charged).toBeGreaterThanOrEqual(1);
    expect(presses.filter((outcome) => outcome?.state === "rate_limited")).toHaveLength(0);
    expect((await spent()) - before).toBe(charged);
  });

  it("a retry that succeeds brings the subscription back, with the month it paid", async () => {
    const userId = await newCustomer();
    const { setupId } = await instance.buyEdu(userId);
    await instance.sandbox.simulateSavedCard(setupId, "declined");
    const due = await dueAt(userId, 2);
    await at(due);
    await instance.sandbox.simulateSavedCard(setupId, "succeeds");
    await at(new Date(due.getTime() + DAY_MS));
    expect((await subscriptionOf(userId)).status).toBe("active");
    expect(await paymentsOf(userId)).toHaveLength(2);
    expect(await eduActiveUntil(database.db, userId)).toEqual(await dueAt(userId, 3));
    // The next month is due on the anchor's day, not moved by the retry.
    await at(await dueAt(userId, 3));
    expect(await paymentsOf(userId)).toHaveLength(3);
  });

  it("cancelled while past due: ends at once, no more retries", async () => {
    const userId = await newCustomer();
    const { setupId } = await instance.buyEdu(userId);
    await instance.sandbox.simulateSavedCard(setupId, "declined");
    const due = await dueAt(userId, 2);
    await at(due);
    expect(await instance.subscriptions.cancel(userId)).toEqual({ ok: true });
    await at(new Date(due.getTime() + 8 * DAY_MS));
    expect(await monthlyChargesOf(userId)).toHaveLength(1);
    expect(await subscriptionOf(userId)).toMatchObject({ status: "ended", endedReason: "cancelled" });
  });
});

describe("each month is charged once", () => {
  it("two instances running the same due months at once: one charge and one payment per month", async () => {
    const customers = await Promise.all(Array.from({ length: 12 }, () => newCustomer()));
    for (const userId of customers) await instance.buyEdu(userId);
    clock = await dueAt(customers[0]!, 2);
    await Promise.all([instance.jobs.runDue(), other.jobs.runDue(), instance.jobs.runDue(), other.jobs.runDue()]);
    for (const userId of customers) {
      expect(await monthlyChargesOf(userId)).toHaveLength(1);
      expect(await paymentsOf(userId)).toHaveLength(2);
    }
    const [receipts] = await database.db
      .select({ n: count() })
      .from(mailOutbox)
      .where(
        and(
          inArray(mailOutbox.userId, customers),
          eq(mailOutbox.subject, "Pagamento ricevuto: EDU - Abbonamento 6 mesi, rata 2 di 6"),
        ),
      );
    expect(receipts!.n).toBe(customers.length);
  });

  it("an instance dies after the provider charged the card, before recording it: another finishes it, never charging again", async () => {
    const userId = await newCustomer();
    await instance.buyEdu(userId);
    // This instance's process "dies" right after the gateway confirmed the charge.
    const dying = subscriptionInstance(database.db, now, (gateway): PaymentGateway => ({
      ...gateway,
      async confirmCharge(id, input) {
        await gateway.confirmCharge(id, input);
        throw new Error("killed");
      },
    }));
    const due = await dueAt(userId, 2);
    await at(due, dying);
    dying.close();
    const [month] = (await monthsOf(userId)).filter((m) => m.number === 2);
    expect(month).toMatchObject({ status: "charging", tries: 1 });
    expect(month!.chargeId).not.toBeNull();
    expect(await paymentsOf(userId)).toHaveLength(1);

    // Within the dead instance's lease nobody touches it; after it, the charge is read and recorded.
    await at(new Date(due.getTime() + 4 * MINUTE), other);
    expect(await paymentsOf(userId)).toHaveLength(1);
    await at(new Date(due.getTime() + 6 * MINUTE), other);
    expect(await paymentsOf(userId)).toHaveLength(2);
    const charges = await monthlyChargesOf(userId);
    expect(charges).toHaveLength(1);
    expect(charges[0]!.status).toBe("succeeded");
    expect((await monthsOf(userId)).find((m) => m.number === 2)).toMatchObject({ status: "paid", tries: 1 });
  });

  it("catches up after a long stop: every missed month charged once, in order", async () => {
    const userId = await newCustomer();
    await instance.buyEdu(userId);
    await at(new Date((await dueAt(userId, 4)).getTime() + DAY_MS));
    expect((await paymentsOf(userId)).length).toBe(4);
    expect(await monthlyChargesOf(userId)).toHaveLength(3);
    await at(new Date((await dueAt(userId, 4)).getTime() + 2 * DAY_MS));
    expect(await monthlyChargesOf(userId)).toHaveLength(3);
  });
});

describe("the job runner", () => {
  it("runs a job once, retries one that throws, and leaves none queued", async () => {
    let calls = 0;
    instance.jobs.handle("test-flaky", async () => {
      calls++;
      if (calls === 1) throw new Error("first try fails");
    });
    await instance.jobs.enqueue(database.db, { queue: "test-flaky", key: "test-flaky:1", payload: {}, runAt: clock });
    await instance.jobs.enqueue(database.db, { queue: "test-flaky", key: "test-flaky:1", payload: {}, runAt: clock });
    await instance.jobs.runDue();
    expect(calls).toBe(1);
    await at(new Date(clock.getTime() + 2 * MINUTE));
    expect(calls).toBe(2);
    const [row] = await database.db.select().from(jobs).where(eq(jobs.key, "test-flaky:1"));
    expect(row).toMatchObject({ status: "done", attempts: 2 });
  });

  it("takes over a job whose instance died once its lease ends, at its very instant", async () => {
    let calls = 0;
    instance.jobs.handle("test-orphan", async () => void calls++);
    // As a dead instance left it: claimed, its lease (5 minutes) running.
    const leaseUntil = new Date(clock.getTime() + 5 * MINUTE);
    await database.db.insert(jobs).values({
      queue: "test-orphan",
      key: "test-orphan:1",
      payload: {},
      runAt: clock,
      status: "running",
      attempts: 1,
      leaseUntil,
    });
    await at(new Date(leaseUntil.getTime() - 1));
    expect(calls).toBe(0);
    await at(leaseUntil);
    expect(calls).toBe(1);
    const [row] = await database.db.select().from(jobs).where(eq(jobs.key, "test-orphan:1"));
    expect(row).toMatchObject({ status: "done", attempts: 2 });
  });
});
