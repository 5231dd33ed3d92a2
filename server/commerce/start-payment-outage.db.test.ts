// Starting a card payment when PostgreSQL goes down under it (a crash, `npm run load`'s
// `pg_ctl stop -m immediate`): the transaction that moves the order to waitforpayment and opens its
// attempt is repeated by the pool once PostgreSQL is back, and the payment starts once. PostgreSQL
// only: PGlite runs in the process and has no connection to lose.
import { count, eq, type Logger } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { openDatabase, type DatabaseHandle } from "#server/db/client.ts";
import { paymentAttempts } from "#server/db/schema/index.ts";
import { paymentHarness } from "#tests/support/payment-harness.ts";
import { startPostgresRelay, type PostgresRelay } from "#tests/support/postgres-relay.ts";

const h = paymentHarness();

describe.runIf(process.env.TEST_DATABASE === "postgres")("starting a payment while PostgreSQL goes down", () => {
  let relay: PostgresRelay;
  let handle: DatabaseHandle;
  afterEach(async () => {
    await handle.close();
    await relay.close();
  });

  it("repeats the order's move to waitforpayment when its connection is lost, and opens one attempt", async () => {
    relay = await startPostgresRelay(h.database.url!);
    const lost: Error[] = [];
    let cutAt: RegExp | undefined;
    // Every connection is cut as the transaction's UPDATE of the order is about to be sent.
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
    const services = h.servicesOver(handle.db);
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
});
