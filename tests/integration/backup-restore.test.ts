// `npm run admin -- backup` and `restore` as an operator runs them (child processes, production,
// --yes), on the database of the project: PostgreSQL's own pg_dump and pg_restore into a database
// the test creates and drops, or the embedded PGlite into a new DATA_DIR. The restored database
// holds what the original held (every table's rows counted, the customer's account, order and
// payment compared whole), and a restore over a database that holds tables is refused. On PGlite,
// a backup taken while another process holds the database and writes to it without pause is a
// consistent copy: every transaction committed before it is there, none half.
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { eq, sql } from "drizzle-orm";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, type Database, type DatabaseHandle } from "#server/db/client.ts";
import { auditLog, orders, payments, users } from "#server/db/schema/index.ts";
import { runAdmin } from "#tests/support/admin-cli.ts";
import { buyWithSandboxCard } from "#tests/support/checkout.ts";
import { testConfig } from "#tests/support/config.ts";
import { signedInCustomer } from "#tests/support/customers.ts";
import type { TestDatabase } from "#tests/support/database.ts";
import { createTestServices } from "#tests/support/services.ts";
import { createSharedDatabase } from "#tests/support/shared-database.ts";

const onPostgres = process.env.TEST_DATABASE === "postgres";
let shared: Awaited<ReturnType<typeof createSharedDatabase>>;
/** The commands' working folder, where the backups go. */
let folder: string;
/** Databases and folders the test made, removed at the end. */
const made: (() => Promise<void>)[] = [];

beforeAll(async () => {
  shared = await createSharedDatabase("portal-backup-");
  folder = mkdtempSync(path.join(tmpdir(), "portal-backup-out-"));
});
afterAll(async () => {
  for (const remove of made) await remove();
  await shared?.destroy();
  rmSync(folder, { recursive: true, force: true });
});

/** An empty target of the project's kind: a new PostgreSQL database, or a new DATA_DIR. */
async function emptyTarget(): Promise<{ env: NodeJS.ProcessEnv; open(): Promise<DatabaseHandle> }> {
  if (onPostgres) {
    const server = new URL(process.env.DATABASE_URL!);
    const name = `portal_restore_${randomBytes(5).toString("hex")}`;
    const admin = new pg.Client({ connectionString: server.toString() });
    await admin.connect();
    await admin.query(`create database ${name}`);
    await admin.end();
    made.push(async () => {
      const cleanup = new pg.Client({ connectionString: server.toString() });
      await cleanup.connect();
      await cleanup.query(`drop database if exists ${name} with (force)`);
      await cleanup.end();
    });
    const url = new URL(server);
    url.pathname = `/${name}`;
    return { env: { DATABASE_URL: url.toString() }, open: () => openDatabase({ url: url.toString(), poolMax: 2 }) };
  }
  const dataDir = mkdtempSync(path.join(tmpdir(), "portal-restore-"));
  made.push(async () => rmSync(dataDir, { recursive: true, force: true }));
  return { env: { DATA_DIR: dataDir }, open: () => openDatabase({ dataDir: path.join(dataDir, "pglite") }) };
}

async function withHandle<T>(open: () => Promise<DatabaseHandle>, work: (db: Database) => Promise<T>): Promise<T> {
  const handle = await open();
  try {
    return await work(handle.db);
  } finally {
    await handle.close();
  }
}

const rowsOf = async <T>(db: Database, text: string) => ((await db.execute(sql.raw(text))) as unknown as { rows: T[] }).rows;

/** Every table's rows, by name (the migrations' own table too). */
async function rowCounts(db: Database): Promise<Record<string, number>> {
  const tables = await rowsOf<{ name: string }>(
    db,
    `select schemaname || '.' || tablename as name from pg_tables
     where schemaname not in ('pg_catalog', 'information_schema') order by 1`,
  );
  const counts: Record<string, number> = {};
  for (const { name } of tables) counts[name] = (await rowsOf<{ n: number }>(db, `select count(*)::int as n from ${name}`))[0]!.n;
  return counts;
}

/** The customer's account, order and payment, whole. */
async function purchase(db: Database, userId: string) {
  return {
    user: await db.select().from(users).where(eq(users.id, userId)),
    orders: await db.select().from(orders).where(eq(orders.userId, userId)),
    payments: await db
      .select({ payment: payments })
      .from(payments)
      .innerJoin(orders, eq(orders.id, payments.orderId))
      .where(eq(orders.userId, userId)),
  };
}

describe(`npm run admin -- backup and restore (${onPostgres ? "PostgreSQL: pg_dump, pg_restore" : "PGlite"})`, () => {
  it("restores into an empty database what the backup held, and refuses a database that holds tables", async () => {
    // A command run once records the keys' fingerprints, as the portal's first start does.
    expect((await runAdmin(["codes:batches", "--yes"], folder, shared.env)).code).toBe(0);
    // A customer who bought an eBook with the sandbox's card: an account, a session, a paid order, a payment.
    const { userId, before, bought } = await shared.withDatabase(async (database) => {
      const services = await createTestServices(database as TestDatabase, testConfig());
      try {
        const { user } = await signedInCustomer(services, database.db);
        await buyWithSandboxCard(services, user.id, "EB-9788828813217");
        return { userId: user.id, before: await rowCounts(database.db), bought: await purchase(database.db, user.id) };
      } finally {
        await services.close();
      }
    });
    expect(bought.orders).toHaveLength(1);
    expect(bought.orders[0]!.status).toBe("payed");
    expect(bought.payments).toHaveLength(1);

    const file = path.join(folder, onPostgres ? "portale.dump" : "portale.tar.gz");
    const backup = await runAdmin(["backup", "--out", file, "--actor", "mrossi", "--yes"], folder, shared.env);
    expect(backup.stderr).toBe("");
    expect(backup.code).toBe(0);
    expect(backup.stdout).toMatch(
      onPostgres ? /^Backup of PostgreSQL portal_test_\w+ on / : /^Backup of PGlite in .*pglite written to /,
    );
    expect(backup.stdout).toContain(onPostgres ? "pg_dump 1" : "taken by this command, no portal running on it");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    // Asked again with the same --out, it writes over nothing.
    const again = await runAdmin(["backup", "--out", file, "--yes"], folder, shared.env);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/exists already/);

    const target = await emptyTarget();
    const restore = await runAdmin(["restore", file, "--actor", "mrossi", "--yes"], folder, target.env);
    expect(restore.stderr).toBe("");
    expect(restore.code).toBe(0);
    expect(restore.stdout).toMatch(
      new RegExp(
        `^Restored ${file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} into .*: \\d+ tables, ${before["public.users"]} accounts, ${before["public.orders"]} orders, ${before["public.payments"]} payments\\.\n$`,
      ),
    );

    await withHandle(target.open, async (db) => {
      // Every table as it was; the audit log has the restore's own row besides.
      expect(await rowCounts(db)).toEqual({ ...before, "public.audit_log": before["public.audit_log"]! + 1 });
      expect(await purchase(db, userId)).toEqual(bought);
      const [restored] = await db.select().from(auditLog).where(eq(auditLog.event, "database_restored"));
      expect(restored).toMatchObject({ actor: "operator:mrossi", details: { file: path.basename(file) } });
    });
    // The original records that it was copied, after the copy.
    const [copied] = await shared.withDatabase((d) =>
      d.db.select().from(auditLog).where(eq(auditLog.event, "database_backed_up")),
    );
    expect(copied).toMatchObject({ actor: "operator:mrossi", details: { file: path.basename(file) } });

    // Over a database that holds tables: refused, nothing changed.
    const over = await runAdmin(["restore", file, "--yes"], folder, target.env);
    expect(over.code).toBe(1);
    expect(over.stdout).toBe("");
    expect(over.stderr.trim()).toMatch(
      onPostgres
        ? /^PostgreSQL portal_restore_\w+ on .* is not empty \(\d+ tables: public\.\w+, .*\): a backup is restored only into an empty database\./
        : /pglite holds a database already: a backup is restored only into an empty DATA_DIR\./,
    );
    const overOriginal = await runAdmin(["restore", file, "--yes"], folder, shared.env);
    expect(overOriginal.code).toBe(1);
    await withHandle(target.open, async (db) => {
      expect(
        (await rowsOf<{ n: number }>(db, "select count(*)::int as n from audit_log where event = 'database_restored'"))[0]!.n,
      ).toBe(1);
    });

    // The other database's backup is told apart, not fed to the wrong program.
    const otherDatabase = onPostgres ? { DATA_DIR: folder } : { DATABASE_URL: "postgres://postgres@127.0.0.1:1/none" };
    const otherKind = await runAdmin(["restore", file, "--yes"], folder, otherDatabase);
    expect(otherKind.code).toBe(1);
    expect(otherKind.stderr).toMatch(
      onPostgres
        ? /is a PostgreSQL dump \(pg_dump\): set DATABASE_URL/
        : /is a backup of the embedded database \(PGlite\): unset DATABASE_URL/,
    );

    // Restored where the portal would start with another ACTIVATION_CODE_KEY: done, and said why not.
    const elsewhere = await emptyTarget();
    const otherKey = await runAdmin(["restore", file, "--yes"], folder, {
      ...elsewhere.env,
      ACTIVATION_CODE_KEY: "another-activation-code-key-long-enough-0123456789",
    });
    expect(otherKey.code).toBe(1);
    expect(otherKey.stdout).toMatch(/^Restored /);
    expect(otherKey.stderr).toMatch(
      /^But the portal will not start on it with these settings: ACTIVATION_CODE_KEY is not the key this database was written with/,
    );
  }, 240_000); // eight runs of the script, with pg_dump and pg_restore
});

// One process at a time holds an embedded database, so only PGlite has this question: what does
// a backup hold when the portal writes while it is taken.
describe.runIf(!onPostgres)("a PGlite backup while another process holds the database and writes", () => {
  let holder: ChildProcess | undefined;
  afterAll(() => void holder?.kill("SIGKILL"));

  it("holds every transaction committed before it, each whole, and not those after", async () => {
    const dataDir = path.dirname(shared.location);
    holder = spawn(process.execPath, [path.resolve(import.meta.dirname, "../support/pglite-holder.ts"), dataDir, "3"], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    const committed = new Set<number>();
    let ready!: () => void;
    const isReady = new Promise<void>((resolve) => (ready = resolve));
    let stopped!: () => void;
    const isStopped = new Promise<void>((resolve) => (stopped = resolve));
    createInterface({ input: holder.stdout! }).on("line", (line) => {
      if (line === "ready") ready();
      else if (line === "stopped") stopped();
      else if (line.startsWith("committed ")) committed.add(Number(line.slice("committed ".length)));
    });
    await isReady;
    while (committed.size < 100) await new Promise((r) => setTimeout(r, 20));

    // While it holds the database, the other commands leave it alone.
    const refused = await runAdmin(["codes:batches", "--yes"], folder, shared.env);
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim()).toBe(
      `The portal (pid ${holder.pid}) holds the embedded database in ${dataDir} (DATA_DIR): PGlite is one process at a time. ` +
        "Stop it first (only `backup` works while it runs).",
    );

    const before = new Set(committed);
    const file = path.join(folder, "durante.tar.gz");
    const backup = await runAdmin(["backup", "--out", file, "--yes"], folder, shared.env);
    expect(backup.stderr).toBe("");
    expect(backup.code).toBe(0);
    expect(backup.stdout).toMatch(
      new RegExp(`taken by the running portal, pid ${holder.pid}, between two statements in \\d+ ms`),
    );
    // The writes go on after it.
    const after = committed.size;
    while (committed.size < after + 100) await new Promise((r) => setTimeout(r, 20));
    holder.kill("SIGTERM");
    await isStopped;

    const target = await emptyTarget();
    const restore = await runAdmin(["restore", file, "--yes"], folder, target.env);
    expect(restore.stderr).toBe("");
    expect(restore.code).toBe(0);
    const { orderIds, torn } = await withHandle(target.open, async (db) => ({
      orderIds: (await rowsOf<{ id: number }>(db, "select id from probe_orders")).map((r) => r.id),
      torn: await rowsOf<{ id: number }>(
        db,
        `select coalesce(o.id, p.order_id) as id from probe_orders o full join probe_payments p on p.order_id = o.id
         where o.id is null or p.order_id is null or p.amount_cents <> o.total_cents`,
      ),
    }));
    const inBackup = new Set(orderIds);
    expect([...before].filter((id) => !inBackup.has(id))).toEqual([]);
    expect(torn).toEqual([]);
    expect(orderIds.filter((id) => !committed.has(id))).toEqual([]);
    expect(inBackup.size).toBeLessThan(committed.size);
  }, 120_000);
});
