// A PostgreSQL that hangs instead of refusing (issue 29): its processes frozen, connections are
// accepted and never answered. Played by a relay between the portal and the test server (the
// server itself is shared by the run); client.db.test.ts shows the bounds the real server enforces.
// Before the pool had timeouts, /readyz and every page answered only when the hang ended.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "#server/db/client.ts";
import { signedInCustomer } from "#tests/support/customers.ts";
import { createTestDatabase, type TestDatabase } from "#tests/support/database.ts";
import { startPortal } from "#tests/support/http-app.ts";
import { startPostgresRelay, type PostgresRelay } from "#tests/support/postgres-relay.ts";

const TIMEOUTS = {
  DATABASE_CONNECT_TIMEOUT_MS: "300",
  DATABASE_STATEMENT_TIMEOUT_MS: "400",
  DATABASE_LOCK_TIMEOUT_MS: "300",
  DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: "5000",
  DATABASE_OUTAGE_WAIT_MS: "1500",
};
/** Scheduling slack on a shared machine, on top of each bound. */
const SLACK_MS = 1_000;

describe.runIf(process.env.TEST_DATABASE === "postgres")("a PostgreSQL that hangs", () => {
  let database: TestDatabase;
  let relay: PostgresRelay;
  let throughRelay: TestDatabase;
  let portal: Awaited<ReturnType<typeof startPortal>>;

  beforeAll(async () => {
    database = await createTestDatabase();
    relay = await startPostgresRelay(database.url!);
    const handle = await openDatabase({
      url: relay.url,
      poolMax: 4,
      timeouts: {
        connectMs: Number(TIMEOUTS.DATABASE_CONNECT_TIMEOUT_MS),
        statementMs: Number(TIMEOUTS.DATABASE_STATEMENT_TIMEOUT_MS),
        lockMs: Number(TIMEOUTS.DATABASE_LOCK_TIMEOUT_MS),
        idleInTransactionMs: Number(TIMEOUTS.DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS),
        outageWaitMs: Number(TIMEOUTS.DATABASE_OUTAGE_WAIT_MS),
      },
    });
    throughRelay = { ...handle, name: database.name, url: relay.url, destroy: () => handle.close() };
    portal = await startPortal(throughRelay, TIMEOUTS);
  }, 60_000);
  afterAll(async () => {
    await portal?.close();
    await throughRelay?.destroy();
    await relay?.close();
    await database?.destroy();
  });

  const timedFetch = async (path: string, cookie?: string) => {
    const started = performance.now();
    const response = await portal.fetch(path, cookie ? { headers: { cookie } } : undefined);
    const body = await response.text();
    return { status: response.status, body, ms: performance.now() - started };
  };

  it("answers /readyz 503 within the connect timeout, and a page its error page within the request's budget", async () => {
    const { cookie } = await signedInCustomer(portal.services, database.db);
    expect((await timedFetch("/readyz")).status).toBe(200);
    const healthy = await timedFetch("/dashboard/", cookie);
    expect(healthy.status).toBe(200);
    await throughRelay.db.execute(sql`select 1`); // pooled connections, which the hang freezes

    await relay.blackhole();
    const ready = await timedFetch("/readyz");
    expect(ready.status).toBe(503);
    expect(JSON.parse(ready.body)).toEqual({ status: "unavailable", database: "error" });
    expect(ready.ms).toBeLessThan(Number(TIMEOUTS.DATABASE_CONNECT_TIMEOUT_MS) + SLACK_MS);

    const page = await timedFetch("/dashboard/", cookie);
    expect(page.status).toBe(500);
    expect(page.body).toContain("Si è verificato un errore imprevisto");
    const answerMs = Number(TIMEOUTS.DATABASE_STATEMENT_TIMEOUT_MS) + 1_000; // the pool's answer margin
    expect(page.ms).toBeLessThan(Math.max(Number(TIMEOUTS.DATABASE_OUTAGE_WAIT_MS), answerMs) + SLACK_MS);

    await relay.resume();
    expect((await timedFetch("/readyz")).status).toBe(200);
    expect((await timedFetch("/dashboard/", cookie)).status).toBe(200);
  });
});
