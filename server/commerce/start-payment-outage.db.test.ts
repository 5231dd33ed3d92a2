// A card payment when PostgreSQL goes down under it (a crash, `npm run load`'s `pg_ctl stop -m
// immediate`): the transaction that moves the order to waitforpayment and opens its attempt, and
// the settlement of the card set up (its claim, charge and record), are repeated by the pool once
// PostgreSQL is back; the payment starts once and is charged once. PostgreSQL only: PGlite runs in
// the process and has no connection to lose.
import { count, eq, type Logger } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { openDatabase, type DatabaseHandle } from "#server/db/client.ts";
import { paymentAttempts, payments } from "#server/db/schema/index.ts";
import { CARDS, paymentHarness } from "#tests/support/payment-harness.ts";
import { startPostgresRelay, type PostgresRelay } from "#tests/support/postgres-relay.ts";

const h = paymentHarness();

describe.runIf(process.env.TEST_DATABASE === "postgres")("a card payment while PostgreSQL goes down", () => {
  let relay: PostgresRelay;
  let handle: DatabaseHandle;
  let lost: Error[];
  /** Every connection is cut as the next statement matching it is about to be sent. */
  let cutAt: RegExp | undefined;
  const open = async () => {
    relay = await startPostgresRelay(h.database.url!);
    lost = [];
    const logger: Logger = {
      logQuery(query) {
        if (cutAt?.test(query)) {
          cutAt = undefined;
          relay.cutAll();
        }
      },
    };
    handle = await openDatabase({
      url: relay.url,
      poolMax: 3,
      timeouts: { outageWaitMs: 10_000 },
      logger,
      onConnectionError: (e) => lost.push(e),
    });
    return h.servicesOver(handle.db);
  };
  afterEach(async () => {
    await handle.close();
    await relay.close();
  });

  it("repeats the order's move to waitforpayment when its connection is lost, and opens one attempt", async () => {
    const services = await open();
    const userId = await h.newUser();
    const orderId = await h.openOrder(userId);

    cutAt = /^update "orders" set "status"/;
    const started = await services.payments.start(userId, orderId, h.details());

    expect(cutAt).toBeUndefined();
    expect(lost.length).toBeGreaterThan(0);
    expect(started.ok).toBe(true);
    expect((await h.orderRow(orderId)).status).toBe("waitforpayment");
    const [attempts] = await h.database.db
      .select({ n: count() })
      .from(paymentAttempts)
      .where(eq(paymentAttempts.orderId, orderId));
    expect(attempts!.n).toBe(1);
    expect((await h.latestAttempt(orderId)).status).toBe("awaiting_customer");
  });

  it("repeats the settlement when the claim's connection is lost, and charges the card once", async () => {
    const services = await open();
    const userId = await h.newUser();
    const orderId = await h.openOrder(userId);
    const started = await services.payments.start(userId, orderId, h.details());
    if (!started.ok) throw new Error(`setup: ${started.reason}`);
    expect(await services.sandbox.confirmCard(started.setupId, CARDS.succeeds)).toMatchObject({ status: "succeeded" });

    cutAt = /^update "payment_attempts" set "status" = \$1, "lease_until"/;
    const settled = await services.payments.settleSetup(started.setupId);

    expect(cutAt).toBeUndefined();
    expect(lost.length).toBeGreaterThan(0);
    expect(settled).toEqual({ state: "paid" });
    expect(await h.succeededCharges(orderId)).toHaveLength(1);
    const [paid] = await h.database.db.select({ n: count() }).from(payments).where(eq(payments.orderId, orderId));
    expect(paid!.n).toBe(1);
  });
});
