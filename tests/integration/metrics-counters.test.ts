// The counters of the work done after a purchase (issue 32): the EDU months the job runner
// charges and those the bank declines, the e-invoices and credit notes issued and handed to SDI,
// the mails queued and those SMTP would not take. Each moves by exactly what the database shows
// happened, and only once it committed: a mail written in a transaction that rolls back is not
// counted.
import { count, desc, eq, isNotNull } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "#scripts/bench/server.ts";
import { invoices, mailOutbox, payments, subscriptions } from "#server/db/schema/index.ts";
import { requestRefund } from "#server/payments/refunds.ts";
import type { Services } from "#server/services.ts";
import { EDU_PRODUCT_CODE } from "#shared/library-constants.ts";
import { DAY_MS, periodStart } from "#shared/subscription.ts";
import { buyWithSandboxCard, COMPANY_BILLING } from "#tests/support/checkout.ts";
import { MINUTE, START } from "#tests/support/clock.ts";
import { testConfig } from "#tests/support/config.ts";
import { signedInCustomer } from "#tests/support/customers.ts";
import { createTestDatabase, type TestDatabase } from "#tests/support/database.ts";
import { createTestServices } from "#tests/support/services.ts";

let database: TestDatabase;
let services: Services;
let clock = START;

beforeAll(async () => {
  database = await createTestDatabase();
  services = await createTestServices(database, testConfig(), { now: () => clock });
});
afterAll(async () => {
  await services?.close();
  await database?.destroy();
});

/** The counters under test, as `name{labels}`: each one's value is the sum of its series that carry those labels. */
const COUNTERS = {
  charged: ["portal_subscription_months_charged_total", { gateway: "sandbox" }],
  retried: ["portal_subscription_months_failed_total", { gateway: "sandbox", outcome: "retry" }],
  lastTry: ["portal_subscription_months_failed_total", { gateway: "sandbox", outcome: "last" }],
  invoices: ["portal_invoices_issued_total", { type: "invoice" }],
  creditNotes: ["portal_invoices_issued_total", { type: "credit_note" }],
  transmitted: ["portal_invoice_files_transmitted_total", {}],
  mailsQueued: ["portal_mails_queued_total", {}],
  mailsFailed: ["portal_mails_failed_total", {}],
} as const satisfies Record<string, readonly [string, Record<string, string>]>;
type Counted = Record<keyof typeof COUNTERS, number>;

async function counters(of: Services = services): Promise<Counted> {
  const entries = await Promise.all(
    Object.entries(COUNTERS).map(async ([key, [name, labels]]) => {
      const { values } = await of.metrics.registry.getSingleMetric(name)!.get();
      const matching = values.filter((sample) =>
        Object.entries(labels).every(([label, value]) => sample.labels[label] === value),
      );
      return [key, matching.reduce((sum, sample) => sum + sample.value, 0)] as const;
    }),
  );
  return Object.fromEntries(entries) as Counted;
}

/** What the database holds of the same facts. */
async function facts() {
  const total = async (query: Promise<{ n: number }[]>) => (await query)[0]!.n;
  const { db } = database;
  return {
    invoices: await total(db.select({ n: count() }).from(invoices).where(eq(invoices.type, "TD01"))),
    creditNotes: await total(db.select({ n: count() }).from(invoices).where(eq(invoices.type, "TD04"))),
    transmitted: await total(db.select({ n: count() }).from(invoices).where(isNotNull(invoices.transmittedAt))),
    mailsQueued: await total(db.select({ n: count() }).from(mailOutbox)),
  };
}

/** How much each counter, and each fact of the database, moved while `work` ran. */
async function moved(work: () => Promise<unknown>, of: Services = services) {
  const [before, factsBefore] = [await counters(of), await facts()];
  await work();
  const [after, factsAfter] = [await counters(of), await facts()];
  const by = <T extends Record<string, number>>(a: T, b: T) =>
    Object.fromEntries(Object.keys(a).map((key) => [key, b[key]! - a[key]!])) as T;
  return { counted: by(before, after), happened: by(factsBefore, factsAfter) };
}

const NOTHING: Counted = {
  charged: 0,
  retried: 0,
  lastTry: 0,
  invoices: 0,
  creditNotes: 0,
  transmitted: 0,
  mailsQueued: 0,
  mailsFailed: 0,
};

describe("the counters of the work after a purchase", () => {
  it("count each EDU month charged or declined, each e-invoice issued and sent, each mail queued, once", async () => {
    clock = START;
    const { user } = await signedInCustomer(services, database.db);
    // The checkout pays month 1 and asks for an invoice: issued and handed to SDI by the runner.
    const bought = await moved(async () => {
      await buyWithSandboxCard(services, user.id, EDU_PRODUCT_CODE, { billing: COMPANY_BILLING });
      await services.jobs.runDue();
    });
    expect(bought.happened).toMatchObject({ invoices: 1, transmitted: 1 });
    expect(bought.happened.mailsQueued).toBeGreaterThan(0);
    expect(bought.counted).toEqual({ ...NOTHING, ...bought.happened });

    const [sub] = await database.db.select().from(subscriptions).where(eq(subscriptions.userId, user.id));
    const due = (number: number) => periodStart(sub!.anchorAt, number);
    // Month 2 charged by the runner: its payment's invoice, its receipt. Run again: nothing more.
    clock = due(2);
    const charged = await moved(() => services.jobs.runDue());
    expect(charged.happened).toMatchObject({ invoices: 1, transmitted: 1, mailsQueued: 1 });
    expect(charged.counted).toEqual({ ...NOTHING, charged: 1, ...charged.happened });
    expect((await moved(() => services.jobs.runDue())).counted).toEqual(NOTHING);

    // Month 2 given back by an operator: its credit note, issued and handed to SDI.
    const [month2] = await database.db
      .select()
      .from(payments)
      .where(eq(payments.userId, user.id))
      .orderBy(desc(payments.paidAt))
      .limit(1);
    const refunded = await moved(async () => {
      const decided = await database.db.transaction((tx) =>
        requestRefund(
          tx,
          { paymentId: month2!.id, cover: { kind: "payment" }, reason: "operator", requestedBy: "operator:test" },
          clock,
        ),
      );
      await services.refunds.processRefund(decided!.id);
      await services.jobs.runDue();
    });
    expect(refunded.happened).toMatchObject({ invoices: 0, creditNotes: 1, transmitted: 1 });
    expect(refunded.counted).toEqual({ ...NOTHING, ...refunded.happened });

    // Month 3 declined, tried again 1, 3 and 7 days later: three retries, then the last try (a mail each).
    await services.sandbox!.simulateSavedCard(sub!.setupId, "declined");
    const declined = await moved(async () => {
      for (const days of [0, 1, 3, 7]) {
        clock = new Date(due(3).getTime() + days * DAY_MS);
        await services.jobs.runDue();
      }
    });
    expect((await database.db.select().from(subscriptions).where(eq(subscriptions.id, sub!.id)))[0]!.status).toBe("ended");
    expect(declined.happened).toEqual({ invoices: 0, creditNotes: 0, transmitted: 0, mailsQueued: 4 });
    expect(declined.counted).toEqual({ ...NOTHING, retried: 3, lastTry: 1, mailsQueued: 4 });
  });

  it("count a mail queued only once its transaction has committed", async () => {
    const message = { to: "cliente@example.it", subject: "Oggetto", text: "Testo", html: "<p>Testo</p>" };
    const rolledBack = await moved(() =>
      database.db
        .transaction(async (tx) => {
          await services.mail.owe(tx, message);
          throw new Error("the change failed");
        })
        .catch(() => undefined),
    );
    expect(rolledBack).toEqual({ counted: NOTHING, happened: { invoices: 0, creditNotes: 0, transmitted: 0, mailsQueued: 0 } });

    const committed = await moved(async () => {
      const deliver = await database.db.transaction((tx) => services.mail.owe(tx, message));
      await deliver();
    });
    expect(committed.counted).toEqual({ ...NOTHING, mailsQueued: 1 });
    expect(committed.happened.mailsQueued).toBe(1);
  });

  it("count each delivery SMTP does not take as failed, at each try", async () => {
    // An SMTP server nobody listens at: every delivery fails, and is tried again a minute later.
    let smtpClock = START;
    const smtp = await createTestServices(database, testConfig({ SMTP_URL: `smtp://127.0.0.1:${await freePort()}` }), {
      now: () => smtpClock,
    });
    try {
      const sent = await moved(
        () => smtp.mail.send({ to: "cliente@example.it", subject: "Oggetto", text: "Testo", html: "<p>Testo</p>" }),
        smtp,
      );
      expect(sent.counted).toEqual({ ...NOTHING, mailsQueued: 1, mailsFailed: 1 });
      smtpClock = new Date(START.getTime() + MINUTE);
      const retried = await moved(() => smtp.jobs.runDue(), smtp);
      expect(retried.counted).toEqual({ ...NOTHING, mailsFailed: 1 });
      expect(retried.happened.mailsQueued).toBe(0);
    } finally {
      await smtp.close();
    }
  });
});
