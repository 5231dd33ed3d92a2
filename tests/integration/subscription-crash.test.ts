// The instance charging a subscription's month killed in the middle of the charge (SIGKILL,
// another process), then the portal going on: within the dead instance's lease nobody touches the
// month; after it, the month is finished with the same try's keys: paid once, charged once, its
// access granted; never charged twice, never charged without being recorded.
import { spawn } from "node:child_process";
import path from "node:path";
import { and, count, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DatabaseHandle } from "#server/db/client.ts";
import { payments, subscriptionPeriods, subscriptions, users } from "#server/db/schema/index.ts";
import { eduActiveUntil } from "#server/library/entitlements.ts";
import { periodStart } from "#shared/subscription.ts";
import { createSharedDatabase } from "#tests/support/shared-database.ts";
import { subscriptionCharges, subscriptionInstance } from "#tests/support/subscriptions.ts";

let shared: Awaited<ReturnType<typeof createSharedDatabase>>;

beforeAll(async () => {
  shared = await createSharedDatabase("portal-subscription-crash-");
});
afterAll(() => shared.destroy());

const withDatabase = <T>(work: (database: DatabaseHandle) => Promise<T>) => shared.withDatabase(work);

/**
 * The day the customers subscribe: 31 January of next year at 10:00 in Rome (month 2 falls on
 * the last day of February). Computed from today, the test passes on any day it runs.
 */
const T0 = new Date(Date.UTC(new Date().getUTCFullYear() + 1, 0, 31, 9, 0));
const MINUTE = 60_000;

/** One instance of the portal at `instant`: runs what is due, then goes away. */
async function tick(database: DatabaseHandle, instant: Date) {
  const instance = subscriptionInstance(database.db, () => instant);
  try {
    return await instance.jobs.runDue();
  } finally {
    instance.close();
  }
}

/** A customer who bought EDU at T0 (month 1 paid at the checkout): their subscription's id. */
async function subscribedCustomer(): Promise<{ userId: string; subscriptionId: string }> {
  return withDatabase(async (database) => {
    const [user] = await database.db
      .insert(users)
      .values({ email: `crash.${Math.random().toString(36).slice(2)}@example.it`, firstname: "Giulia", lastname: "Bianchi" })
      .returning({ id: users.id });
    const instance = subscriptionInstance(database.db, () => T0);
    try {
      await instance.buyEdu(user!.id);
    } finally {
      instance.close();
    }
    const [sub] = await database.db.select().from(subscriptions).where(eq(subscriptions.userId, user!.id));
    expect(sub!.anchorAt).toEqual(T0);
    return { userId: user!.id, subscriptionId: sub!.id };
  });
}

function chargeMonthAndDie(instant: Date, point: "after-create" | "after-confirm"): Promise<NodeJS.Signals | number | null> {
  const script = path.join(import.meta.dirname, "../support/charge-month-and-die.ts");
  const child = spawn(process.execPath, [script, shared.location, instant.toISOString(), point], {
    stdio: ["ignore", "ignore", "inherit"],
  });
  return new Promise((resolve) => child.on("exit", (code, signal) => resolve(signal ?? code)));
}

/** What the database and the gateway hold for month `number` of the subscription. */
async function outcome(
  database: DatabaseHandle,
  { userId, subscriptionId }: { userId: string; subscriptionId: string },
  number = 2,
) {
  const [month] = await database.db
    .select()
    .from(subscriptionPeriods)
    .where(and(eq(subscriptionPeriods.subscriptionId, subscriptionId), eq(subscriptionPeriods.number, number)));
  const [paid] = await database.db.select({ n: count() }).from(payments).where(eq(payments.userId, userId));
  const [paidForMonth] = await database.db
    .select({ n: count() })
    .from(payments)
    .where(eq(payments.subscriptionPeriodId, month!.id));
  // The charges made for the subscription after the checkout (the checkout's is the order's).
  const charges = (await subscriptionCharges(database.db, subscriptionId)).map(({ id, status, metadata }) => ({
    id,
    status,
    periodId: metadata.period_id,
    try: metadata.try,
  }));
  return { month: month!, payments: paid!.n, paymentsForMonth: paidForMonth!.n, charges };
}

describe("an instance killed while charging a subscription's month", () => {
  it.each(["after-create", "after-confirm"] as const)(
    "killed %s: after its lease the month is paid once, charged once, with its access",
    async (point) => {
      const customer = await subscribedCustomer();
      const due = periodStart(T0, 2);
      const third = periodStart(T0, 3);

      expect(await chargeMonthAndDie(due, point)).toBe("SIGKILL");

      await withDatabase(async (database) => {
        const before = await outcome(database, customer);
        // Killed with the month claimed: the try is under way, the database has recorded no payment.
        expect(before.month).toMatchObject({ status: "charging", tries: 1, leaseUntil: new Date(due.getTime() + 5 * MINUTE) });
        expect(before.payments).toBe(1);
        expect(before.paymentsForMonth).toBe(0);
        // One charge at the gateway for the month's first try: not yet confirmed, or already taken.
        expect(before.charges).toEqual([
          {
            id: expect.any(String),
            status: point === "after-confirm" ? "succeeded" : "requires_confirmation",
            periodId: before.month.id,
            try: "1",
          },
        ]);
        // After the confirmation the charge's id was stored; right after the creation it was not
        // yet: the takeover finds that charge again by the try's idempotency key.
        expect(before.month.chargeId).toBe(point === "after-confirm" ? before.charges[0]!.id : null);
        expect(await eduActiveUntil(database.db, customer.userId)).toEqual(due);

        // Within the dead instance's lease nothing is touched.
        await tick(database, new Date(due.getTime() + 4 * MINUTE));
        expect(await outcome(database, customer)).toEqual(before);

        // Once it ends (at its very instant), the try is taken over and finished with the same keys.
        const later = new Date(due.getTime() + 5 * MINUTE);
        await tick(database, later);
        const after = await outcome(database, customer);
        expect(after.month).toMatchObject({ status: "paid", tries: 1, leaseUntil: null });
        expect(after.paymentsForMonth).toBe(1);
        expect(after.payments).toBe(2);
        expect(after.charges).toEqual([{ ...before.charges[0], status: "succeeded" }]);
        const [payment] = await database.db.select().from(payments).where(eq(payments.subscriptionPeriodId, after.month.id));
        expect(payment).toMatchObject({ chargeId: after.charges[0]!.id, amountCents: after.month.amountCents });
        // EDU runs to month 3's due date, which is scheduled, not yet charged.
        expect(await eduActiveUntil(database.db, customer.userId)).toEqual(third);
        expect((await outcome(database, customer, 3)).month).toMatchObject({ status: "scheduled", startsAt: third });

        // And again: nothing more.
        await tick(database, later);
        expect(await outcome(database, customer)).toEqual(after);
      });
    },
    60_000,
  );
});
