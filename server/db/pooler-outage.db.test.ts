// PostgreSQL stopped and started again behind PgBouncer in transaction mode (Debian's pgbouncer with
// the shipped configuration, scripts/pgbouncer.ts): PgBouncer keeps the portal's connections and
// answers for the server, "server login has been failing, try again later" (SQLSTATE 08P01), which
// the pool must wait out as it waits out PostgreSQL's own refusals (connection-errors.ts). A cluster
// and a PgBouncer of the test's own (tests/support/own-postgres.ts), not the server the run shares.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, inject, it, vi } from "vitest";
import { freePort } from "#scripts/bench/server.ts";
import { startPgbouncer, type PrivatePgbouncer } from "#scripts/pgbouncer.ts";
import { ownPostgresAvailable, startOwnPostgres, type OwnPostgres } from "#tests/support/own-postgres.ts";
import { openDatabase, type DatabaseHandle } from "./client.ts";

// In the `pgbouncer` project only, where the pooler's own tests run.
describe.runIf(inject("pgbouncerPort") !== undefined && ownPostgresAvailable)("PostgreSQL restarted behind PgBouncer", () => {
  let server: OwnPostgres;
  let pgbouncer: PrivatePgbouncer;
  let handle: DatabaseHandle;
  const waitedOut: Error[] = [];
  beforeAll(async () => {
    server = startOwnPostgres(await freePort());
    pgbouncer = await startPgbouncer(server.url);
    handle = await openDatabase({
      url: pgbouncer.urlOf(server.url),
      pooler: "transaction",
      directUrl: server.url,
      poolMax: 3,
      timeouts: { outageWaitMs: 20_000 },
      onConnectionError: (error) => waitedOut.push(error),
    });
    await handle.db.execute(sql`create table outage_probe (n int)`);
  }, 60_000);
  afterAll(async () => {
    await handle?.close();
    await pgbouncer?.stop();
    server?.stop();
  });

  it("waits while PgBouncer says its login fails, then runs the read, the write and the transaction sent meanwhile", async () => {
    await handle.db.execute(sql`select 1`); // a connection to PgBouncer, which it keeps through the outage
    server.down();
    let serverUp = false;
    try {
      const read = Promise.resolve(handle.db.execute(sql`select 41 + 1 as answer`));
      const write = Promise.resolve(handle.db.execute(sql`insert into outage_probe values (1)`));
      const transaction = handle.db.transaction(async (tx) => {
        await tx.execute(sql`insert into outage_probe values (2)`);
        await tx.execute(sql`insert into outage_probe values (3)`);
      });
      await vi.waitFor(
        () =>
          expect(waitedOut.map((e) => `${(e as { code?: string }).code} ${e.message}`)).toContain(
            "08P01 server login has been failing, try again later (server_login_retry)",
          ),
        { timeout: 10_000, interval: 50 },
      );
      server.up();
      serverUp = true;
      const { rows } = (await read) as unknown as { rows: { answer: number }[] };
      expect(rows[0]!.answer).toBe(42);
      await write;
      await transaction;
    } finally {
      if (!serverUp) server.up();
    }
    const { rows } = (await handle.db.execute(sql`select n from outage_probe order by n`)) as unknown as {
      rows: { n: number }[];
    };
    expect(rows.map((r) => r.n)).toEqual([1, 2, 3]);
  });
});
