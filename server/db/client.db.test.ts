// The PostgreSQL pool survives the server ending its connections (a restart, an administrator's
// pg_terminate_backend), and waits a short outage out (reconnecting-pool.ts): both found by
// `npm run load`, where `pg_ctl restart -m fast` first killed an instance (an unhandled 'error'
// event of a connection checked out for a transaction), then gave pages 500.
import { sql } from "drizzle-orm";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { createTestDatabase, type TestDatabase } from "#tests/support/database.ts";
import { startPostgresRelay, type PostgresRelay } from "#tests/support/postgres-relay.ts";
import { timed } from "#tests/support/timed.ts";
import { openDatabase, type DatabaseHandle } from "./client.ts";
import { idempotent, withinOutageBudget } from "./reconnecting-pool.ts";

// Only against PostgreSQL (the suite's PostgreSQL run): PGlite has no server to end a connection.
describe.runIf(process.env.TEST_DATABASE === "postgres")("the PostgreSQL pool", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase({ migrate: false });
  });
  afterAll(() => database.destroy());

  it("fails the transaction whose connection the server ends, and goes on with a new connection", async () => {
    const errors: Error[] = [];
    const handle: DatabaseHandle = await openDatabase({
      url: database.url!,
      poolMax: 2,
      onConnectionError: (e) => errors.push(e),
    });
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    try {
      const outcome = await handle.db
        .transaction(async (tx) => {
          const { rows } = (await tx.execute(sql`select pg_backend_pid() as pid`)) as unknown as { rows: { pid: number }[] };
          await admin.query("select pg_terminate_backend($1)", [rows[0]!.pid]);
          // The server's FATAL message arrives while no statement of this connection runs.
          await new Promise((r) => setTimeout(r, 300));
          await tx.execute(sql`select 1`);
        })
        .then(
          () => "committed",
          () => "failed",
        );
      expect(outcome).toBe("failed");
      expect(errors.some((e) => (e as { code?: string }).code === "57P01")).toBe(true);
      const { rows } = (await handle.db.execute(sql`select 1 as one`)) as unknown as { rows: { one: number }[] };
      expect(rows[0]!.one).toBe(1);
    } finally {
      await admin.end();
      await handle.close();
    }
  });

  // PostgreSQL restarting under the pool, played by a relay in front of the shared test server.
  describe("during an outage", () => {
    let relay: PostgresRelay;
    let handle: DatabaseHandle;
    let admin: pg.Client;
    let waitedOut: Error[];
    const codeOf = (error: Error) => (error as { code?: string }).code ?? error.message;
    const open = async (outageWaitMs = 10_000) => {
      relay = await startPostgresRelay(database.url!);
      waitedOut = [];
      handle = await openDatabase({
        url: relay.url,
        poolMax: 3,
        timeouts: { outageWaitMs },
        onConnectionError: (e) => waitedOut.push(e),
      });
      admin = new pg.Client({ connectionString: database.url });
      await admin.connect();
      await admin.query("create table if not exists outage_probe (n int)");
      await admin.query("truncate outage_probe");
    };
    afterEach(async () => {
      await handle.close();
      await admin.end();
      await relay.close();
    });
    // Drizzle's query builders run when awaited: this sends one now, as a request would.
    const start = <T>(query: PromiseLike<T>) => Promise.resolve(query);
    const count = async () => Number((await admin.query("select count(*) as n from outage_probe")).rows[0].n);
    /** Resolves once the server runs a statement whose text contains `marker`. */
    const running = (marker: string) =>
      vi.waitFor(
        async () => {
          const { rows } = await admin.query("select 1 from pg_stat_activity where state = 'active' and query like $1", [
            `%${marker}%`,
          ]);
          expect(rows).toHaveLength(1);
        },
        { timeout: 5_000, interval: 20 },
      );

    it("waits while PostgreSQL is down and starting up, then runs reads, writes and transactions", async () => {
      await open();
      await handle.db.execute(sql`select 1`); // a pooled connection, which the restart ends
      relay.cutAll();
      await relay.refuse();
      const read = start(handle.db.execute(sql`select 41 + 1 as answer`));
      const write = start(handle.db.execute(sql`insert into outage_probe values (1)`));
      const transaction = handle.db.transaction(async (tx) => {
        await tx.execute(sql`insert into outage_probe values (2)`);
        await tx.execute(sql`insert into outage_probe values (3)`);
      });
      await vi.waitFor(() => expect(waitedOut.map(codeOf)).toContain("ECONNREFUSED"));
      await relay.answer57P03();
      await vi.waitFor(() => expect(waitedOut.map(codeOf)).toContain("57P03"));
      expect(await count()).toBe(0);
      await relay.resume();

      const { rows } = (await read) as unknown as { rows: { answer: number }[] };
      expect(rows[0]!.answer).toBe(42);
      await write;
      await transaction;
      expect(await count()).toBe(3);
    });

    it("runs again a read whose connection is lost while it runs, but not a write (it may have committed)", async () => {
      await open();
      const read = start(handle.db.execute(sql`select 'probe-read' as marker, pg_sleep(0.2)`));
      await running("probe-read");
      relay.cutAll();
      expect(((await read) as unknown as { rows: { marker: string }[] }).rows[0]!.marker).toBe("probe-read");

      const write = handle.db.execute(sql`insert into outage_probe select 7 from pg_sleep(0.2) where 'probe-write' <> ''`).then(
        () => "done",
        (error: Error) => codeOf(error.cause as Error),
      );
      await running("probe-write");
      relay.cutAll();
      expect(await write).toMatch(/Connection terminated|ECONNRESET/);
      // The server finished the insert without its client: repeating it would have added a second row.
      await vi.waitFor(async () => expect(await count()).toBe(1), { timeout: 5_000, interval: 20 });
    });

    it("does not run again a select that draws on a sequence: the value it drew is spent", async () => {
      await open();
      await admin.query("drop sequence if exists outage_sequence");
      await admin.query("create sequence outage_sequence");
      const drawn = start(handle.db.execute(sql`select nextval('outage_sequence') as n, 'probe-nextval', pg_sleep(0.2)`)).then(
        () => "answered",
        (error: Error) => codeOf(error.cause as Error),
      );
      await running("probe-nextval");
      relay.cutAll();
      expect(await drawn).toMatch(/Connection terminated|ECONNRESET/);
      expect((await admin.query("select last_value from outage_sequence")).rows).toEqual([{ last_value: "1" }]);
    });

    it("runs again a write its caller says is idempotent", async () => {
      await open();
      await admin.query("create table if not exists outage_upsert (k int primary key, v int)");
      await admin.query("truncate outage_upsert");
      const upsert = idempotent(handle.db, () =>
        handle.db.execute(
          sql`insert into outage_upsert select 1, 7 from pg_sleep(0.2) where 'probe-upsert' <> ''
              on conflict (k) do update set v = excluded.v`,
        ),
      );
      await running("probe-upsert");
      relay.cutAll();
      await upsert;
      expect((await admin.query("select k, v from outage_upsert")).rows).toEqual([{ k: 1, v: 7 }]);
    });

    it("runs an idempotent write again only within the database's outage wait", async () => {
      await open(300);
      await handle.db.execute(sql`select 1`); // a pooled connection, which the outage ends
      relay.cutAll();
      await relay.refuse();
      // Outside a request, as a job's or a command's: the database's wait bounds it, not a longer one of its own.
      const write = await timed(() => idempotent(handle.db, () => handle.db.execute(sql`insert into outage_probe values (1)`)));
      expect(write.failed).toBe(true);
      expect(write.ms).toBeLessThan(300 + 1_000);
      expect(waitedOut.map(codeOf)).toContain("ECONNREFUSED");
    });

    it("fails once the outage lasts longer than it waits, and does not repeat SQL errors", async () => {
      await open(300);
      const badSql = await handle.db.execute(sql`select 1 / 0`).then(
        () => "ran",
        (error: Error) => codeOf(error.cause as Error),
      );
      expect(badSql).toBe("22012");
      expect(waitedOut).toEqual([]);

      relay.cutAll();
      await relay.refuse();
      const failure = await handle.db.execute(sql`select 1`).then(
        () => "ran",
        (error: Error) => codeOf(error.cause as Error),
      );
      expect(failure).toBe("ECONNREFUSED");
      expect(waitedOut.length).toBeGreaterThan(0);
    });
  });

  // PostgreSQL's processes frozen (SIGSTOP), played by the relay: connections are accepted and
  // nothing is answered. Before the pool's timeouts every wait lasted as long as the hang.
  describe("when PostgreSQL hangs", () => {
    const timeouts = { connectMs: 300, statementMs: 400, lockMs: 300, idleInTransactionMs: 5_000, outageWaitMs: 1_500 };
    let relay: PostgresRelay;
    let handle: DatabaseHandle;
    beforeAll(async () => {
      relay = await startPostgresRelay(database.url!);
      handle = await openDatabase({ url: relay.url, poolMax: 3, timeouts });
    });
    afterAll(async () => {
      await handle.close();
      await relay.close();
    });
    it("fails readiness, reads, writes and transactions within their bounds, and recovers", async () => {
      await handle.db.execute(sql`select 1`); // a pooled connection, which the hang freezes
      await relay.blackhole();

      const ping = await timed(() => handle.ping());
      expect(ping.failed).toBe(true);
      expect(ping.ms).toBeLessThan(timeouts.connectMs + 700);

      await withinOutageBudget(timeouts.outageWaitMs, async () => {
        // The pooled connection: no answer within the statement's bound (statement + margin), and
        // a read tried again only while the request's budget lasts.
        const read = await timed(() => handle.db.execute(sql`select 1`));
        expect(read.failed).toBe(true);
        expect(read.ms).toBeLessThan(timeouts.outageWaitMs + 1_000);
        // The same request's next statement does not wait a whole outage again: the budget is spent.
        const next = await timed(() => handle.db.execute(sql`select 2`));
        expect(next.failed).toBe(true);
        expect(next.ms).toBeLessThan(timeouts.connectMs + 700);
      });
      const write = await timed(() => handle.db.execute(sql`insert into outage_probe values (9)`));
      expect(write.failed).toBe(true);
      expect(write.ms).toBeLessThan(timeouts.outageWaitMs + 1_000);
      const transaction = await timed(() => handle.db.transaction((tx) => tx.execute(sql`select 1`)));
      expect(transaction.failed).toBe(true);
      expect(transaction.ms).toBeLessThan(timeouts.outageWaitMs + 1_000);

      await relay.resume();
      await handle.ping();
      const { rows } = (await handle.db.execute(sql`select 41 + 1 as answer`)) as unknown as { rows: { answer: number }[] };
      expect(rows[0]!.answer).toBe(42);
    });
  });

  it("is not ready while the server takes no writes", async () => {
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    const name = new URL(database.url!).pathname.slice(1);
    await admin.query(`alter database "${name}" set default_transaction_read_only = on`);
    const handle = await openDatabase({ url: database.url!, poolMax: 1 });
    try {
      await expect(handle.ping()).rejects.toThrow(/takes no writes/);
    } finally {
      await handle.close();
      await admin.query(`alter database "${name}" reset default_transaction_read_only`);
      await admin.end();
    }
    const again = await openDatabase({ url: database.url!, poolMax: 1 });
    await again.ping();
    await again.close();
  });

  // The bounds the pool sets are PostgreSQL's own settings: the real server enforces them.
  describe("sets the server's timeouts", () => {
    let handle: DatabaseHandle;
    let admin: pg.Client;
    beforeAll(async () => {
      handle = await openDatabase({
        url: database.url!,
        poolMax: 2,
        timeouts: { statementMs: 300, lockMs: 200, idleInTransactionMs: 300 },
      });
      admin = new pg.Client({ connectionString: database.url });
      await admin.connect();
      await admin.query("create table if not exists timeout_probe (n int)");
    });
    afterAll(async () => {
      await handle.close();
      await admin.end();
    });
    const sqlStateOf = (work: PromiseLike<unknown>) =>
      Promise.resolve(work).then(
        () => "ran",
        (error: Error) =>
          (error.cause as { code?: string } | undefined)?.code ?? (error as { code?: string }).code ?? error.message,
      );

    it("cancels a statement that runs longer than the statement timeout", async () => {
      expect(await sqlStateOf(handle.db.execute(sql`select pg_sleep(5)`))).toBe("57014");
    });

    it("stops waiting for a lock after the lock timeout", async () => {
      await admin.query("begin");
      await admin.query("lock table timeout_probe in access exclusive mode");
      try {
        expect(await sqlStateOf(handle.db.execute(sql`insert into timeout_probe values (1)`))).toBe("55P03");
      } finally {
        await admin.query("rollback");
      }
    });

    it("ends a transaction left idle longer than the idle-in-transaction timeout", async () => {
      const outcome = await sqlStateOf(
        handle.db.transaction(async (tx) => {
          await tx.execute(sql`select 1`);
          await new Promise((resolve) => setTimeout(resolve, 800));
          await tx.execute(sql`select 2`);
        }),
      );
      expect(outcome).not.toBe("ran");
      const { rows } = (await handle.db.execute(sql`select 1 as one`)) as unknown as { rows: { one: number }[] };
      expect(rows[0]!.one).toBe(1);
    });
  });
});
