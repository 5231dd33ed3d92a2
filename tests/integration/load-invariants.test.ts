// The load-and-faults run's judge (scripts/load/invariants.ts) on a real purchase, a declined one and
// a payment left open: each of the stricter checks passes on the rows the portal writes, and fails
// when one row is broken the way a crash or a bug would leave it (each break rolled back after).
import { and, eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import type { Database } from "#server/db/client.ts";
import { payments, sandboxGatewayObjects } from "#server/db/schema/index.ts";
import { ABANDONED_AFTER_MS } from "#server/payments/service.ts";
import { CARDS, paymentHarness } from "#tests/support/payment-harness.ts";
import { crashRecoveryChecks, databaseChecks, PAYMENT_RECOVERY_MS, type Check } from "#scripts/load/invariants.ts";

const h = paymentHarness();
const MINUTE = 60_000;

const NOT_PAID = "succeeded charges whose order is not paid (nor the charge given back)";
const AMOUNT = "succeeded charges (or their payments) whose amount is not their order's total";
const DECLINED =
  "declined charges that left something behind (a payment, an open attempt, access or a subscription of an unpaid order)";
const WAITING = "orders left waiting for a payment once the leases have passed";

/** The labels of the checks that fail. */
const failing = (checks: Check[]) => checks.filter((c) => !c.ok).map((c) => c.label);

class Rollback extends Error {}

/** The checks' failures with `change` made, in a transaction rolled back afterwards. */
async function failingWith(change: (db: Database) => Promise<unknown>, now = h.now()): Promise<string[]> {
  let labels: string[] = [];
  await h.database.db
    .transaction(async (tx) => {
      const db = tx as unknown as Database;
      await change(db);
      labels = failing((await databaseChecks(db, now, { now })).checks);
      throw new Rollback();
    })
    .catch((error: unknown) => {
      if (!(error instanceof Rollback)) throw error;
    });
  return labels;
}

let paidOrder: string;
let declinedOrder: string;
/** What fails before any row is broken (the demo seed's own orders have no sandbox charge). */
let before: string[];

beforeAll(async () => {
  const buyer = await h.newUser();
  paidOrder = await h.openOrder(buyer);
  await h.payWith(buyer, paidOrder, CARDS.succeeds);
  expect(await h.services.payments.check(buyer, paidOrder)).toEqual({ state: "paid" });
  const declined = await h.newUser();
  declinedOrder = await h.openOrder(declined);
  await h.payWith(declined, declinedOrder, CARDS.declined);
  expect((await h.services.payments.check(declined, declinedOrder))?.state).toBe("failed");
  before = failing((await databaseChecks(h.database.db, h.now(), { now: h.now() })).checks);
});

const chargeOf = async (orderId: string) => {
  const [row] = await h.database.db
    .select()
    .from(sandboxGatewayObjects)
    .where(
      and(eq(sandboxGatewayObjects.kind, "charge"), sql`${sandboxGatewayObjects.data}->'metadata'->>'order_id' = ${orderId}`),
    );
  return row!;
};

describe("the load's stricter checks", () => {
  it("pass on a paid purchase and a declined one", () => {
    expect(before).not.toContain(NOT_PAID);
    expect(before).not.toContain(AMOUNT);
    expect(before).not.toContain(DECLINED);
    expect(before).not.toContain(WAITING);
  });

  it("fail on a succeeded charge whose order is not paid (and the order then waits for nothing)", async () => {
    const labels = await failingWith((db) =>
      db.execute(sql`update orders set status = 'waitforpayment' where id = ${paidOrder}`),
    );
    expect(labels.filter((l) => !before.includes(l))).toEqual(expect.arrayContaining([NOT_PAID, WAITING]));
  });

  it("fail on a charge for another amount than the order's total", async () => {
    const charge = await chargeOf(paidOrder);
    const labels = await failingWith((db) =>
      db.execute(sql`update sandbox_gateway_objects set data = jsonb_set(data, '{amountCents}', '1') where id = ${charge.id}`),
    );
    expect(labels.filter((l) => !before.includes(l))).toContain(AMOUNT);
  });

  it("fail on a declined charge that left access, or its attempt open", async () => {
    const charge = await chargeOf(declinedOrder);
    const access = await failingWith((db) =>
      db.execute(sql`insert into entitlements (user_id, product_id, source, starts_at, order_id)
        select o.user_id, i.product_id, 'purchase', now(), o.id from orders o join order_items i on i.order_id = o.id
        where o.id = ${declinedOrder}`),
    );
    expect(access.filter((l) => !before.includes(l))).toContain(DECLINED);
    const open = await failingWith((db) =>
      db.execute(sql`update payment_attempts set status = 'charging' where charge_id = ${charge.id}`),
    );
    expect(open.filter((l) => !before.includes(l))).toContain(DECLINED);
  });

  it("fail on an order waiting for a payment only once the attempt's own time has passed", async () => {
    const buyer = await h.newUser();
    const order = await h.openOrder(buyer);
    const started = await h.services.payments.start(buyer, order, h.details());
    expect(started.ok).toBe(true);
    // The card step waits for the customer: not yet left, then left (ABANDONED_AFTER_MS and a reconciler's round).
    const within = await failingWith(async () => undefined, new Date(h.now().getTime() + ABANDONED_AFTER_MS));
    expect(within).not.toContain(WAITING);
    const after = await failingWith(async () => undefined, new Date(h.now().getTime() + ABANDONED_AFTER_MS + 2 * MINUTE));
    expect(after).toContain(WAITING);
    expect(await h.services.payments.reset(buyer, order)).toEqual({ ok: true });
  });
});

describe("the checks after a crash", () => {
  it("pass when a charge made before it was recorded within the leases' time, and fail when it was recorded later", async () => {
    const charge = await chargeOf(paidOrder);
    const crash = (end: Date) => crashRecoveryChecks(h.database.db, [{ what: "crash", end }]);
    expect(failing(await crash(charge.createdAt))).toEqual([]);
    await h.database.db
      .update(payments)
      .set({ createdAt: new Date(charge.createdAt.getTime() + PAYMENT_RECOVERY_MS + MINUTE) })
      .where(eq(payments.chargeId, charge.id));
    expect(failing(await crash(charge.createdAt))).toHaveLength(1);
    // A charge made after the crash is not its business.
    expect(failing(await crash(new Date(charge.createdAt.getTime() - 1)))).toEqual([]);
  });
});
