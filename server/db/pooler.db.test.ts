// The portal behind PgBouncer in transaction mode (pooler.ts): Debian's pgbouncer, started for the
// `pgbouncer` project with the shipped configuration (tests/support/pgbouncer-setup.ts). PgBouncer
// hands each transaction the server connection it has free, the one freed last first: the tests
// hold that one in a transaction of their own to send the next statement to another.
import { sql } from "drizzle-orm";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createLogger } from "#server/logger.ts";
import { testConfig } from "#tests/support/config.ts";
import { createTestDatabase, type TestDatabase } from "#tests/support/database.ts";
import { openDatabase, type DatabaseHandle } from "./client.ts";
import { prepareDatabase } from "./prepare.ts";
import { DEFAULT_DATABASE_TIMEOUTS } from "./timeouts.ts";

type Rows<T> = { rows: T[] };
const pidOf = async (run: Promise<unknown>) => ((await run) as Rows<{ pid: number }>).rows[0]!.pid;
const settingOf = async (db: DatabaseHandle["db"], name: string) =>
  ((await db.execute(sql`select setting from pg_settings where name = ${name}`)) as unknown as Rows<{ setting: string }>).rows[0]!
    .setting;

// Only where there is a pooler in front: the `pgbouncer` project (the PostgreSQL and PGlite projects
// have none, and their connections keep what they are given).
describe.runIf(inject("pgbouncerPort") !== undefined)("behind PgBouncer in transaction mode", () => {
  let database: TestDatabase;
  /** A client of PgBouncer of the tests' own, to hold a server connection in a transaction. */
  const holders: pg.Client[] = [];
  async function holdServerConnection(): Promise<number> {
    const holder = new pg.Client({ connectionString: database.url });
    holders.push(holder);
    await holder.connect();
    await holder.query("begin");
    return pidOf(holder.query("select pg_backend_pid() as pid"));
  }
  async function releaseHeld() {
    for (const holder of holders.splice(0)) await holder.end();
  }

  beforeAll(async () => {
    // A database of its own, nothing run on it yet: PgBouncer holds no server connection to it.
    database = await createTestDatabase({ migrate: false });
  });
  afterAll(async () => {
    await releaseHeld();
    await database?.destroy();
  });

  it("refuses the timeouts as startup parameters: the portal sets them otherwise (DATABASE_POOLER=transaction)", async () => {
    const direct = new pg.Client({ connectionString: database.url, statement_timeout: 10_000 });
    await expect(direct.connect()).rejects.toThrow("unsupported startup parameter: statement_timeout");
    await direct.end().catch(() => undefined);
  });

  it("runs a prepared query on whichever server connection comes; a named statement would not be there", async () => {
    const portal = await openDatabase({ ...database.connection!, poolMax: 1 });
    try {
      const query = portal.db.select({ pid: sql<number>`pg_backend_pid()`.as("pid") }).from(sql`(select 1) as one`);
      const prepared = query.prepare("pooler_test_pid");
      const first = (await prepared.execute())[0]!.pid;
      // The one server connection PgBouncer has is now this test's: the query goes to a new one.
      expect(await holdServerConnection()).toBe(first);
      const second = (await prepared.execute())[0]!.pid;
      expect(second).not.toBe(first);
    } finally {
      await releaseHeld();
      await portal.close();
    }

    // node-postgres alone, with the statement named: parsed on one server connection, then only
    // bound, on another that never parsed it.
    const named = new pg.Client({ connectionString: database.url });
    await named.connect();
    try {
      const statement = { name: "pooler_test_named", text: "select pg_backend_pid() as pid" };
      const server = await pidOf(named.query(statement));
      expect(await holdServerConnection()).toBe(server);
      await expect(named.query(statement)).rejects.toThrow('prepared statement "pooler_test_named" does not exist');
    } finally {
      await releaseHeld();
      await named.end();
    }
  });

  it("gives each transaction the configured timeouts, and leaves them behind when it ends", async () => {
    const timeouts = { statementMs: 1_500, lockMs: 300, idleInTransactionMs: 800 };
    const portal = await openDatabase({ ...database.connection!, poolMax: 2, timeouts });
    const other = new pg.Client({ connectionString: database.connection!.directUrl });
    await other.connect();
    try {
      const inside = await portal.db.transaction(async (tx) => ({
        statement: await settingOf(tx as unknown as DatabaseHandle["db"], "statement_timeout"),
        lock: await settingOf(tx as unknown as DatabaseHandle["db"], "lock_timeout"),
        idle: await settingOf(tx as unknown as DatabaseHandle["db"], "idle_in_transaction_session_timeout"),
      }));
      expect(inside).toEqual({ statement: "1500", lock: "300", idle: "800" });
      // Outside a transaction, on a server connection a transaction just used: the role's defaults.
      expect(await settingOf(portal.db, "statement_timeout")).toBe(String(DEFAULT_DATABASE_TIMEOUTS.statementMs));
      expect(await settingOf(portal.db, "lock_timeout")).toBe(String(DEFAULT_DATABASE_TIMEOUTS.lockMs));

      // A lock held elsewhere is waited for 300 ms, not the role's 5 s.
      await other.query("begin");
      await other.query("select pg_advisory_xact_lock(7402)");
      const started = performance.now();
      const waited = portal.db.transaction((tx) => tx.execute(sql`select pg_advisory_xact_lock(7402)`));
      await expect(waited).rejects.toMatchObject({ cause: { code: "55P03" } }); // lock_not_available
      expect(performance.now() - started).toBeLessThan(DEFAULT_DATABASE_TIMEOUTS.lockMs);
      await other.query("rollback");

      // A transaction left idle past 800 ms is ended by PostgreSQL; the pool goes on.
      const idle = portal.db.transaction(async (tx) => {
        await tx.execute(sql`select 1`);
        await new Promise((resolve) => setTimeout(resolve, 2_000));
        await tx.execute(sql`select 1`);
      });
      await expect(idle).rejects.toThrow();
      expect(await settingOf(portal.db, "lock_timeout")).toBe(String(DEFAULT_DATABASE_TIMEOUTS.lockMs));
    } finally {
      await other.end();
      await portal.close();
    }
  });

  it("warns at start when the role's timeouts, those of statements outside a transaction, are not the configured ones", async () => {
    const lines: { msg: string; differing?: string[] }[] = [];
    const capture = createLogger("warn", { write: (line: string) => void lines.push(JSON.parse(line)) });
    // The test databases have the portal's defaults as the role's (tests/support/database.ts).
    const same = await openDatabase({ ...database.connection!, poolMax: 1 });
    try {
      await prepareDatabase(same, testConfig(), capture);
      expect(lines).toEqual([]);
    } finally {
      await same.close();
    }
    const longer = await openDatabase({ ...database.connection!, poolMax: 1, timeouts: { statementMs: 60_000 } });
    try {
      await prepareDatabase(longer, testConfig(), capture);
      expect(lines).toHaveLength(1);
      expect(lines[0]!.msg).toContain("ALTER ROLE");
      expect(lines[0]!.differing).toEqual([`statement_timeout: ${DEFAULT_DATABASE_TIMEOUTS.statementMs} (configured 60000)`]);
    } finally {
      await longer.close();
    }
  });
});
