// The payment process killed in the middle of a card charge (SIGKILL, another process), then the
// portal restarted: the order must end paid, with its access and one charge, or unpaid without a
// charge; never charged twice, never charged without being recorded.
import { spawn } from "node:child_process";
import path from "node:path";
import { count, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCheckout } from "#server/commerce/checkout.ts";
import type { DatabaseHandle } from "#server/db/client.ts";
import {
  couponRedemptions,
  entitlements,
  orders,
  paymentAttempts,
  payments,
  sandboxGatewayObjects,
  users,
} from "#server/db/schema/index.ts";
import { createJobRunner } from "#server/jobs/runner.ts";
import { createLogger } from "#server/logger.ts";
import { createMailService } from "#server/mail/service.ts";
import { createSandboxGateway } from "#server/payments/sandbox-gateway.ts";
import { createOrderPayments } from "#server/commerce/order-payments.ts";
import { UNSTARTED_AFTER_MS } from "#server/payments/service.ts";
import { createRateLimits } from "#server/security/rate-limits.ts";
import { checkoutDetails } from "#tests/support/checkout.ts";
import { createSharedDatabase } from "#tests/support/shared-database.ts";

let shared: Awaited<ReturnType<typeof createSharedDatabase>>;

beforeAll(async () => {
  shared = await createSharedDatabase("portal-crash-");
});
afterAll(() => shared.destroy());

const withDatabase = <T>(work: (database: DatabaseHandle) => Promise<T>) => shared.withDatabase(work);

function portalServices(database: DatabaseHandle, now: () => Date = () => new Date()) {
  const log = createLogger("silent");
  const rateLimits = createRateLimits(database.db, { clearExpiredByTimeout: false });
  const sandbox = createSandboxGateway(database.db, now);
  const runner = createJobRunner({ db: database.db, log, now });
  const mail = createMailService({ db: database.db, smtpUrl: undefined, from: "portale@example.it", runner, log, now });
  return {
    checkout: createCheckout({ db: database.db, rateLimits, now }),
    sandbox,
    payments: createOrderPayments({
      db: database.db,
      gateway: sandbox.gateway,
      rateLimits,
      mail,
      runner,
      publicOrigin: "http://localhost:3000",
      log,
      now,
    }),
  };
}

/** A new customer's EDU order, open. */
async function openEduOrder(database: DatabaseHandle): Promise<{ userId: string; orderId: string }> {
  const [user] = await database.db
    .insert(users)
    .values({ email: `crash.${Math.random().toString(36).slice(2)}@example.it` })
    .returning({ id: users.id });
  const opened = await portalServices(database).checkout.open(user!.id, "abbonamentoedu");
  if (!opened.ok) throw new Error(opened.reason);
  return { userId: user!.id, orderId: opened.orderId };
}

/** A customer's order whose card is set up and waits to be charged. */
async function cardReadyToCharge(): Promise<{ orderId: string; setupId: string }> {
  return withDatabase(async (database) => {
    const { sandbox, payments: pay } = portalServices(database);
    const { userId, orderId } = await openEduOrder(database);
    const started = await pay.start(userId, orderId, checkoutDetails());
    if (!started.ok) throw new Error(started.reason);
    await sandbox.confirmCard(started.setupId, "4242 4242 4242 4242");
    return { orderId, setupId: started.setupId };
  });
}

/** Runs tests/support/pay-and-die.ts, which kills itself at `point`; how it ended. */
function payAndDie(point: "after-setup" | "after-create" | "after-confirm", ...ids: string[]) {
  const script = path.join(import.meta.dirname, "../support/pay-and-die.ts");
  const child = spawn(process.execPath, [script, shared.location, point, ...ids], { stdio: ["ignore", "ignore", "inherit"] });
  return new Promise<NodeJS.Signals | number | null>((resolve) => child.on("exit", (code, signal) => resolve(signal ?? code)));
}

/** What the database and the gateway hold for the order. */
async function outcome(database: DatabaseHandle, orderId: string) {
  const [order] = await database.db.select({ status: orders.status }).from(orders).where(eq(orders.id, orderId));
  const [paid] = await database.db.select({ n: count() }).from(payments).where(eq(payments.orderId, orderId));
  const [granted] = await database.db.select({ n: count() }).from(entitlements).where(eq(entitlements.orderId, orderId));
  const charges = (await database.db.select().from(sandboxGatewayObjects).where(eq(sandboxGatewayObjects.kind, "charge"))).filter(
    (row) => (row.data as { metadata: { order_id: string } }).metadata.order_id === orderId,
  );
  const succeeded = charges.filter((row) => (row.data as { status: string }).status === "succeeded").length;
  return { status: order!.status, payments: paid!.n, entitlements: granted!.n, succeededCharges: succeeded };
}

describe("a payment process killed during a charge", () => {
  it.each(["after-create", "after-confirm"] as const)(
    "killed %s: after the restart the order is paid once, with its access",
    async (point) => {
      const { orderId, setupId } = await cardReadyToCharge();
      expect(await payAndDie(point, setupId)).toBe("SIGKILL");

      await withDatabase(async (database) => {
        const before = await outcome(database, orderId);
        // Killed between the charge and the commit: the money moved, the database does not know yet.
        expect(before).toMatchObject({ status: "waitforpayment", payments: 0, entitlements: 0 });
        expect(before.succeededCharges).toBe(point === "after-confirm" ? 1 : 0);

        // The restarted portal: within the dead process's lease nothing is done twice; after it,
        // the reconciler finishes the charge with the same keys.
        expect(await portalServices(database).payments.reconcile()).toBe(0);
        const later = () => new Date(Date.now() + 61_000);
        expect(await portalServices(database, later).payments.reconcile()).toBe(1);
        expect(await outcome(database, orderId)).toEqual({ status: "payed", payments: 1, entitlements: 1, succeededCharges: 1 });
        // And again: nothing more.
        expect(await portalServices(database, later).payments.reconcile()).toBe(0);
        expect(await outcome(database, orderId)).toEqual({ status: "payed", payments: 1, entitlements: 1, succeededCharges: 1 });
      });
    },
    60_000,
  );
});

describe("a payment process killed while it made the card step", () => {
  it("leaves nothing stuck: after UNSTARTED_AFTER_MS the reconciler closes the attempt, the coupon's use comes back, the order can be paid", async () => {
    const { orderId, userId } = await withDatabase(async (database) => {
      const opened = await openEduOrder(database);
      expect(await portalServices(database).checkout.applyCoupon(opened.userId, opened.orderId, "BENVENUTO10")).toBe(true);
      return opened;
    });
    expect(await payAndDie("after-setup", orderId, userId)).toBe("SIGKILL");

    await withDatabase(async (database) => {
      // The order waits for a payment whose card step the database never learnt of.
      const [attempt] = await database.db.select().from(paymentAttempts).where(eq(paymentAttempts.orderId, orderId));
      expect(attempt).toMatchObject({ status: "created", setupId: null });
      expect(await outcome(database, orderId)).toMatchObject({ status: "waitforpayment", payments: 0, succeededCharges: 0 });
      expect(await database.db.select().from(couponRedemptions).where(eq(couponRedemptions.orderId, orderId))).toHaveLength(1);

      // Within the time a start may take, it is left alone; after it, closed.
      const at = (ms: number) => () => new Date(attempt!.updatedAt.getTime() + ms);
      await portalServices(database, at(UNSTARTED_AFTER_MS - 1000)).payments.reconcile();
      expect((await outcome(database, orderId)).status).toBe("waitforpayment");
      await portalServices(database, at(UNSTARTED_AFTER_MS)).payments.reconcile();
      const [closed] = await database.db.select().from(paymentAttempts).where(eq(paymentAttempts.orderId, orderId));
      expect(closed!.status).toBe("canceled");
      expect((await outcome(database, orderId)).status).toBe("new");
      expect(await database.db.select().from(couponRedemptions).where(eq(couponRedemptions.orderId, orderId))).toEqual([]);

      // Buying it again leads to the same order, which now pays.
      const later = at(UNSTARTED_AFTER_MS + 1000);
      const { checkout, sandbox, payments: pay } = portalServices(database, later);
      expect(await checkout.open(userId, "abbonamentoedu")).toEqual({ ok: true, orderId });
      const started = await pay.start(userId, orderId, checkoutDetails());
      if (!started.ok) throw new Error(started.reason);
      await sandbox.confirmCard(started.setupId, "4242 4242 4242 4242");
      expect(await pay.settleSetup(started.setupId)).toEqual({ state: "paid" });
      expect(await outcome(database, orderId)).toMatchObject({ status: "payed", payments: 1, succeededCharges: 1 });
    });
  }, 60_000);
});
