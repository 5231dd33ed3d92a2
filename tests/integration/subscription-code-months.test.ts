// An eBook+EDU code activated during the EDU subscription (commerce/subscription-records.ts,
// postponeNextCharge): the code's 6 months take the place of the next charges. The next month and
// those after it move 6 months later, EDU runs on without a gap, the renewal notice moves with its
// month, the customer's page and a mail say so; a month past due is replaced too, its retries
// starting afresh after the code's months.
import { and, eq, like } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { jobs, payments, products, subscriptions, users } from "#server/db/schema/index.ts";
import { eduActiveUntil } from "#server/library/entitlements.ts";
import { createActivation } from "#server/commerce/activation.ts";
import { createRateLimits } from "#server/security/rate-limits.ts";
import { DAY_MS, nextRetryAt, periodStart } from "#shared/subscription.ts";
import { START } from "#tests/support/clock.ts";
import { decode, render } from "#tests/support/render-page.ts";
import SubscriptionPage from "#app/routes/subscription.tsx";
import { formatDate, withArticle } from "#shared/format.ts";
import { SUBSCRIPTION_PATH } from "#shared/links.ts";
import { createTestDatabase, type TestDatabase } from "#tests/support/database.ts";
import {
  mailSubjectsOf,
  monthsOfSubscription,
  subscriptionCharges,
  subscriptionInstance,
  type SubscriptionInstance,
} from "#tests/support/subscriptions.ts";

let database: TestDatabase;
let instance: SubscriptionInstance;
let activation: ReturnType<typeof createActivation>;
let limits: ReturnType<typeof createRateLimits>;
let ebookId: string;
let clock = START;
let customers = 0;

beforeAll(async () => {
  database = await createTestDatabase();
  instance = subscriptionInstance(database.db, () => clock);
  limits = createRateLimits(database.db, { clearExpiredByTimeout: false });
  activation = createActivation({ db: database.db, codeKey: "chiave-di-prova-dei-codici", rateLimits: limits, now: () => clock });
  const [ebook] = await database.db.select({ id: products.id }).from(products).where(like(products.sku, "EB-%")).limit(1);
  ebookId = ebook!.id;
});
afterAll(async () => {
  instance.close();
  limits.close();
  await database.destroy();
});
beforeEach(() => {
  clock = START;
});

async function subscriber() {
  const [row] = await database.db
    .insert(users)
    .values({ email: `abbonata.codice${++customers}@example.it`, firstname: "Giulia", lastname: "Bianchi" })
    .returning({ id: users.id });
  await instance.buyEdu(row!.id);
  const [sub] = await database.db.select().from(subscriptions).where(eq(subscriptions.userId, row!.id));
  return { userId: row!.id, sub: sub! };
}

async function activateEbookEdu(userId: string) {
  const { codes } = await activation.createBatch({ productId: ebookId, kind: "ebook_edu", label: "Prova", count: 1 });
  const result = await activation.activate({ userId, ip: "203.0.113.50", code: codes[0]!, now: clock });
  expect(result.ok).toBe(true);
}

const monthsOf = (subscriptionId: string) => monthsOfSubscription(database.db, subscriptionId);
const chargesOf = (subscriptionId: string) => subscriptionCharges(database.db, subscriptionId);

async function tick(at: Date) {
  clock = at;
  await instance.jobs.runDue();
}

const POSTPONED_SUBJECT = "Il tuo abbonamento EDU: i prossimi mesi sono inclusi nel codice";

describe("an eBook+EDU code during the subscription", () => {
  it("moves the next charge 6 months later: nothing charged for the code's months, EDU without a gap, a mail and the page say so", async () => {
    const { userId, sub } = await subscriber();
    await tick(new Date(START.getTime() + 10 * DAY_MS));
    await activateEbookEdu(userId);

    const freeUntil = periodStart(sub.anchorAt, 8);
    const [, second] = await monthsOf(sub.id);
    expect(second).toMatchObject({
      number: 2,
      status: "scheduled",
      startsAt: freeUntil,
      nextAttemptAt: freeUntil,
      endsAt: periodStart(sub.anchorAt, 9),
    });
    expect(await eduActiveUntil(database.db, userId)).toEqual(freeUntil);
    const view = (await instance.subscriptions.ofCustomer(userId))!;
    expect(view).toMatchObject({ freeUntil, paidUntil: freeUntil, nextCharge: { at: freeUntil, instalment: 2 } });
    const page = decode(
      await render(SubscriptionPage, { subscription: view, confirmingCancel: false, sandbox: true }, SUBSCRIPTION_PATH),
    );
    expect(page).toContain(
      `Con il codice eBook+EDU che hai attivato i mesi fino ${withArticle("al", formatDate(freeUntil))} sono inclusi`,
    );
    expect(page).toContain(`Prossimo addebito ${withArticle("il", formatDate(freeUntil))}`);
    // Months an operator gave (customer:grant, server/operators/customers.db.test.ts) are called a gift.
    const given = decode(
      await render(
        SubscriptionPage,
        { subscription: { ...view, freeBy: "operator" }, confirmingCancel: false, sandbox: true },
        SUBSCRIPTION_PATH,
      ),
    );
    expect(given).toContain(
      `Il servizio clienti ti ha concesso in omaggio i mesi fino ${withArticle("al", formatDate(freeUntil))}: fino ad allora non ti addebiteremo rate.`,
    );
    await tick(clock);
    expect(await mailSubjectsOf(database.db, userId)).toContain(POSTPONED_SUBJECT);

    // The month that was due passes without a charge, and EDU stays active.
    await tick(new Date(periodStart(sub.anchorAt, 2).getTime() + DAY_MS));
    expect(await chargesOf(sub.id)).toEqual([]);
    expect(await database.db.select().from(payments).where(eq(payments.userId, userId))).toHaveLength(1);
    expect(await eduActiveUntil(database.db, userId)).toEqual(freeUntil);

    // When the code's months end, the 2nd instalment is charged once and the months go on from there.
    await tick(freeUntil);
    expect((await chargesOf(sub.id)).map((c) => c.status)).toEqual(["succeeded"]);
    const [, paid, third] = await monthsOf(sub.id);
    expect(paid).toMatchObject({ number: 2, status: "paid" });
    expect(third).toMatchObject({ number: 3, status: "scheduled", startsAt: periodStart(sub.anchorAt, 9) });
    expect(await eduActiveUntil(database.db, userId)).toEqual(periodStart(sub.anchorAt, 9));
    expect((await instance.subscriptions.ofCustomer(userId))!.freeUntil).toBeNull();
  });

  it("moves a term's renewal notice with its first month, and adds up codes activated at once", async () => {
    const { userId, sub } = await subscriber();
    for (let n = 2; n <= 6; n++) await tick(periodStart(sub.anchorAt, n));
    const noticeKey = `subscription-mail:renewal:${sub.id}:2`;
    const [notice] = await database.db.select().from(jobs).where(eq(jobs.key, noticeKey));
    expect(notice).toMatchObject({ status: "queued", runAt: new Date(periodStart(sub.anchorAt, 7).getTime() - 7 * DAY_MS) });

    await Promise.all([activateEbookEdu(userId), activateEbookEdu(userId)]);
    const seventh = (await monthsOf(sub.id)).find((m) => m.number === 7)!;
    expect(seventh.startsAt).toEqual(periodStart(sub.anchorAt, 19));
    expect(await eduActiveUntil(database.db, userId)).toEqual(periodStart(sub.anchorAt, 19));
    const [moved] = await database.db
      .select()
      .from(jobs)
      .where(and(eq(jobs.key, noticeKey), eq(jobs.status, "queued")));
    expect(moved!.runAt).toEqual(new Date(periodStart(sub.anchorAt, 19).getTime() - 7 * DAY_MS));
  });

  it("during a month's charge: the code's months come right after that month, and the next charge after them", async () => {
    const { userId, sub } = await subscriber();
    // Another instance, whose bank confirms month 2 the moment the customer activates a code.
    const charging = subscriptionInstance(
      database.db,
      () => clock,
      (gateway) => ({
        ...gateway,
        confirmCharge: async (...args) => {
          const charge = await gateway.confirmCharge(...args);
          await activateEbookEdu(userId);
          return charge;
        },
      }),
    );
    try {
      clock = periodStart(sub.anchorAt, 2);
      await charging.jobs.runDue();
    } finally {
      charging.close();
    }
    const freeUntil = periodStart(sub.anchorAt, 9);
    const [, second, third] = await monthsOf(sub.id);
    expect(second).toMatchObject({ number: 2, status: "paid", endsAt: periodStart(sub.anchorAt, 3) });
    expect(third).toMatchObject({ number: 3, status: "scheduled", startsAt: freeUntil });
    expect(await eduActiveUntil(database.db, userId)).toEqual(freeUntil);
    expect((await instance.subscriptions.ofCustomer(userId))!).toMatchObject({ status: "active", freeUntil });

    // The code's months pass without a charge; then the 3rd instalment.
    await tick(new Date(freeUntil.getTime() - DAY_MS));
    expect((await chargesOf(sub.id)).map((c) => c.status)).toEqual(["succeeded"]);
    await tick(freeUntil);
    expect((await chargesOf(sub.id)).map((c) => c.status)).toEqual(["succeeded", "succeeded"]);
  });

  it("replaces a month past due too: its retries stop, EDU runs at once, and after the code's months it is charged with its retries afresh", async () => {
    const { userId, sub } = await subscriber();
    // The bank declines month 2: the subscription is past due, a retry waits for the next day.
    await instance.sandbox.simulateSavedCard(sub.setupId, "declined");
    await tick(periodStart(sub.anchorAt, 2));
    const [, pastDue] = await monthsOf(sub.id);
    expect(pastDue).toMatchObject({ status: "scheduled", tries: 1 });
    expect((await instance.subscriptions.ofCustomer(userId))!.status).toBe("past_due");

    clock = new Date(periodStart(sub.anchorAt, 2).getTime() + 10 * 3600_000);
    await activateEbookEdu(userId);
    const freeUntil = periodStart(sub.anchorAt, 8);
    const [, moved] = await monthsOf(sub.id);
    expect(moved).toMatchObject({
      status: "scheduled",
      startsAt: freeUntil,
      nextAttemptAt: freeUntil,
      tries: 1,
      triesBeforeMove: 1,
    });
    expect(await eduActiveUntil(database.db, userId)).toEqual(freeUntil);
    expect((await instance.subscriptions.ofCustomer(userId))!).toMatchObject({ status: "active", freeUntil });

    // The retry's day, and the months the code gives, pass without a charge.
    await tick(new Date(periodStart(sub.anchorAt, 2).getTime() + 2 * DAY_MS));
    await tick(new Date(freeUntil.getTime() - DAY_MS));
    expect((await chargesOf(sub.id)).map((c) => c.status)).toEqual(["failed"]);

    // Due after them, still declined: retried a day later, as a month's first failure is.
    await tick(freeUntil);
    expect((await chargesOf(sub.id)).map((c) => c.status)).toEqual(["failed", "failed"]);
    const [, retried] = await monthsOf(sub.id);
    expect(retried).toMatchObject({ status: "scheduled", tries: 2, nextAttemptAt: nextRetryAt(freeUntil, 1) });
  });
});
