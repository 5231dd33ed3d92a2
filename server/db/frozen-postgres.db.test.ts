// A real PostgreSQL whose processes are frozen (SIGSTOP) for longer than every bound, as in
// issue 29 (40 s then; /dashboard/ and /readyz answered only when it ended). A cluster of the
// test's own (tests/support/own-postgres.ts), not the server the run shares.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { freePort } from "#scripts/bench/server.ts";
import { ownPostgresAvailable, startOwnPostgres, type OwnPostgres } from "#tests/support/own-postgres.ts";
import { timed } from "#tests/support/timed.ts";
import { openDatabase, type DatabaseHandle } from "./client.ts";
import { withinOutageBudget } from "./reconnecting-pool.ts";

const timeouts = { connectMs: 300, statementMs: 400, lockMs: 300, idleInTransactionMs: 5_000, outageWaitMs: 1_500 };
/** Scheduling slack on a shared machine, on top of each bound. */
const SLACK_MS = 1_000;
/** How soon a thawed PostgreSQL answers a ping again. */
const THAWED_WITHIN_MS = 10_000;

describe.runIf(process.env.TEST_DATABASE === "postgres" && ownPostgresAvailable)("a frozen PostgreSQL", () => {
  let server: OwnPostgres;
  let handle: DatabaseHandle;
  beforeAll(async () => {
    // A port the system has free now: a port of a fixed range may be another test's (CI once failed
    // to start this cluster on 54 000 + pid).
    server = startOwnPostgres(await freePort());
    handle = await openDatabase({ url: server.url, poolMax: 3, timeouts });
  }, 30_000);
  afterAll(async () => {
    server?.thaw();
    await handle?.close();
    server?.stop();
  });

  it("is unready, and fails a request's statements, within their bounds; then goes on once thawed", async () => {
    await handle.db.execute(sql`select 1`);
    server.freeze();
    try {
      const ping = await timed(() => handle.ping());
      expect(ping).toMatchObject({ failed: true });
      expect(ping.ms).toBeLessThan(timeouts.connectMs + SLACK_MS);
      const request = await timed(() =>
        withinOutageBudget(timeouts.outageWaitMs, async () => {
          await handle.db.execute(sql`select 1`);
        }),
      );
      expect(request).toMatchObject({ failed: true });
      expect(request.ms).toBeLessThan(timeouts.outageWaitMs + SLACK_MS);
    } finally {
      server.thaw();
    }
    // Ready again once thawed: on a busy machine its first answer may take longer than the 300 ms
    // a ping waits (CI once failed here), so readiness is asked again as a balancer would.
    await vi.waitFor(() => handle.ping(), { timeout: THAWED_WITHIN_MS, interval: 200 });
    const { rows } = (await handle.db.execute(sql`select 41 + 1 as answer`)) as unknown as { rows: { answer: number }[] };
    expect(rows[0]!.answer).toBe(42);
  });
});
