// `npm run admin -- backup --out <file>` and `restore <file>` (docs/operating.md, "Back up and
// restore"), for both databases:
// - PostgreSQL (DATABASE_URL): PostgreSQL's own pg_dump in its custom format (one snapshot of the
//   whole database, taken while the portal runs), and pg_restore into an empty database in one
//   transaction. The programs are found as server/lib/postgres-binaries.ts says; pg_dump must be of
//   the server's major version or newer. The password goes to them in PGPASSWORD, never on their
//   command line (which `ps` shows) and never in a message.
// - The embedded PGlite (DATA_DIR): a snapshot of the database's folder (server/db/pglite-snapshot.ts),
//   taken by the running portal when one holds the database (asked through DATA_DIR's socket,
//   server/db/pglite-owner.ts), else by this command; restored by PGlite itself into an empty
//   `$DATA_DIR/pglite`.
// Neither runs the portal's services: a restore's target is empty, a backup's may be held by the
// portal. Each records what it did in the audit log (a backup: in the database it copied, after
// the copy; a restore: in the restored database).
import { spawn } from "node:child_process";
import { sql, TransactionRollbackError } from "drizzle-orm";
import { closeSync, existsSync, fstatSync, openSync, readdirSync, readFileSync, readSync, rmSync, writeSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import { createAuditLog } from "#server/audit/service.ts";
import { ConfigError, type Config } from "#server/config.ts";
import { openDatabase, type Database } from "#server/db/client.ts";
import { holdDataDir, requestSnapshot } from "#server/db/pglite-owner.ts";
import { restoreSnapshot } from "#server/db/pglite-snapshot.ts";
import type { AuditEvent } from "#server/db/schema/index.ts";
import { systemClock } from "#server/lib/clock.ts";
import { makePrivateDir } from "#server/lib/private-files.ts";
import { missingTools, postgresBinDirs, toolMajorVersion } from "#server/lib/postgres-binaries.ts";
import { checkKeyFingerprints, dataKeys } from "#server/security/key-fingerprints.ts";
import { OperatorError } from "./context.ts";

/** The first bytes of each kind of backup: pg_dump's custom format, and gzip (PGlite's tarball). */
const PG_DUMP_MAGIC = Buffer.from("PGDMP");
const GZIP_MAGIC = Buffer.from([0x1f, 0x8b]);

export type BackupTarget = { fd: number; path: string };
export type BackupResult = {
  /** "PostgreSQL <database> on <host>", or "PGlite in <folder>". */
  database: string;
  file: string;
  bytes: number;
  /** How the copy was taken, in words. */
  how: string;
};
export type RestoreResult = {
  database: string;
  file: string;
  tables: number;
  counts: { users: number; orders: number; payments: number };
  /** A problem the restore did not cause but the operator must know before starting the portal. */
  warning: string | null;
};

/**
 * PostgreSQL itself: behind a transaction pooler (DATABASE_POOLER=transaction) DATABASE_URL is
 * PgBouncer's, and pg_dump and pg_restore set session settings that a pooler in transaction mode
 * would leave to whichever client gets the connection next; DATABASE_DIRECT_URL is the server's.
 */
function serverUrl(config: Config): string | undefined {
  return config.database.url ? config.database.directUrl : undefined; // directUrl is DATABASE_URL when unset
}

/** A backup of the configured database into the file already opened for it (created new, 0600). */
export async function backupDatabase(config: Config, out: BackupTarget, actor: string): Promise<BackupResult> {
  const url = serverUrl(config);
  return url ? backupPostgres(config, url, out, actor) : backupPglite(config, out, actor);
}

/** The backup `file` restored into the configured database, which must be empty. */
export async function restoreDatabase(config: Config, file: string, actor: string): Promise<RestoreResult> {
  const resolved = path.resolve(file);
  const kind = backupKind(resolved);
  const url = serverUrl(config);
  if (url) {
    if (kind !== "pg_dump")
      throw new OperatorError(`${resolved} is a backup of the embedded database (PGlite): unset DATABASE_URL to restore it.`);
    return restorePostgres(config, url, resolved, actor);
  }
  if (kind !== "pglite")
    throw new OperatorError(`${resolved} is a PostgreSQL dump (pg_dump): set DATABASE_URL to an empty database to restore it.`);
  return restorePglite(config, resolved, actor);
}

function backupKind(file: string): "pg_dump" | "pglite" {
  let head = Buffer.alloc(PG_DUMP_MAGIC.length);
  try {
    const fd = openSync(file, "r");
    try {
      head = head.subarray(0, readSync(fd, head, 0, head.length, 0));
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    throw new OperatorError(`Cannot read ${file}: ${(error as NodeJS.ErrnoException).code}`);
  }
  if (head.subarray(0, PG_DUMP_MAGIC.length).equals(PG_DUMP_MAGIC)) return "pg_dump";
  if (head.subarray(0, GZIP_MAGIC.length).equals(GZIP_MAGIC)) return "pglite";
  throw new OperatorError(
    `${file} is not a backup made by \`npm run admin -- backup\` (neither a pg_dump custom file nor a PGlite tarball).`,
  );
}

// ── PostgreSQL ─────────────────────────────────────────────────────────────────

/** How pg_dump and pg_restore reach the database: the URL without its password, which goes in PGPASSWORD. */
function libpqConnection(url: string): { dbname: string; env: NodeJS.ProcessEnv; label: string } {
  const parsed = new URL(url);
  const password = decodeURIComponent(parsed.password);
  parsed.password = "";
  const database = decodeURIComponent(parsed.pathname.slice(1)) || decodeURIComponent(parsed.username) || "postgres";
  const host = parsed.searchParams.get("host") ?? (parsed.hostname || "localhost");
  return {
    dbname: parsed.toString(),
    env: { ...process.env, ...(password ? { PGPASSWORD: password } : {}) },
    label: `PostgreSQL ${database} on ${host}${parsed.port ? `:${parsed.port}` : ""}`,
  };
}

type Server = { major: number; version: string; tables: string[] };

/** The server's version and the database's tables (none in an empty database). */
async function inspectServer(url: string, label: string): Promise<Server> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  client.on("error", () => undefined);
  try {
    await client.connect();
  } catch (error) {
    throw new OperatorError(`Cannot connect to ${label}: ${(error as Error).message}`);
  }
  try {
    const version = await client.query<{ num: string; text: string }>(
      "select current_setting('server_version_num') as num, current_setting('server_version') as text",
    );
    const tables = await client.query<{ name: string }>(
      `select n.nspname || '.' || c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
       where c.relkind in ('r', 'p') and n.nspname not in ('pg_catalog', 'information_schema')
         and n.nspname not like 'pg\\_toast%' and n.nspname not like 'pg\\_temp%'
       order by (n.nspname = 'public') desc, c.relname`,
    );
    return {
      major: Math.floor(Number(version.rows[0]!.num) / 10_000),
      version: version.rows[0]!.text,
      tables: tables.rows.map((r) => r.name),
    };
  } finally {
    await client.end();
  }
}

/** The folder of pg_dump and pg_restore of the server's major version or newer, and its version. */
function toolsFor(config: Config, server: Server): { bin: string; major: number } {
  const tools = ["pg_dump", "pg_restore"];
  const dirs = postgresBinDirs(tools, config.database.binDir);
  if (dirs.length === 0) throw new OperatorError(missingTools(tools, "postgresql-client"));
  const found = dirs.map((bin) => ({ bin, major: toolMajorVersion(path.join(bin, "pg_dump")) }));
  const fit = found.find((t) => t.major >= server.major);
  if (!fit) {
    const newest = found.reduce((a, b) => (b.major > a.major ? b : a));
    throw new OperatorError(
      `pg_dump ${newest.major} (${newest.bin}) is older than the server, PostgreSQL ${server.version}: a dump needs ` +
        `pg_dump ${server.major} or newer. Install postgresql-client-${server.major} or set PG_BINDIR to its folder.`,
    );
  }
  return fit;
}

/** Runs one of PostgreSQL's programs to its end; its stderr in the error when it fails. */
function runTool(program: string, args: string[], env: NodeJS.ProcessEnv, stdout: number | "ignore"): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { env, stdio: ["ignore", stdout, "pipe"] });
    let stderr = "";
    child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", (error) => reject(new OperatorError(`${path.basename(program)} could not run: ${error.message}`)));
    child.on("close", (code) => {
      if (code === 0) return resolve();
      reject(new OperatorError(`${path.basename(program)} failed (exit ${code}): ${stderr.trim() || "no message"}`));
    });
  });
}

async function backupPostgres(config: Config, url: string, out: BackupTarget, actor: string): Promise<BackupResult> {
  const { dbname, env, label } = libpqConnection(url);
  const server = await inspectServer(url, label);
  const { bin, major } = toolsFor(config, server);
  // One snapshot of the whole database (pg_dump's own transaction, repeatable read): consistent
  // while the portal writes. --no-password: never a prompt, the password comes from PGPASSWORD.
  await runTool(path.join(bin, "pg_dump"), ["--format=custom", "--no-password", `--dbname=${dbname}`], env, out.fd);
  const bytes = fstatSync(out.fd).size;
  await withDatabase(url, (db) =>
    record(db, "database_backed_up", actor, { file: path.basename(out.path), bytes, format: `pg_dump ${major} custom` }),
  );
  return { database: label, file: out.path, bytes, how: `pg_dump ${major}, custom format, one snapshot` };
}

async function restorePostgres(config: Config, url: string, file: string, actor: string): Promise<RestoreResult> {
  const { dbname, env, label } = libpqConnection(url);
  const server = await inspectServer(url, label);
  if (server.tables.length > 0) {
    const some = server.tables.slice(0, 3).join(", ");
    throw new OperatorError(
      `${label} is not empty (${server.tables.length} tables: ${some}${server.tables.length > 3 ? ", …" : ""}): a backup is ` +
        `restored only into an empty database. Create one (createdb, or the provider's console) and set DATABASE_URL to it.`,
    );
  }
  const { bin } = toolsFor(config, server);
  // All or nothing; the objects owned by DATABASE_URL's user, whatever role owned them before.
  await runTool(
    path.join(bin, "pg_restore"),
    ["--exit-on-error", "--single-transaction", "--no-owner", "--no-privileges", "--no-password", `--dbname=${dbname}`, file],
    env,
    "ignore",
  );
  return withDatabase(url, async (db) => {
    // pg_restore brings no planner statistics: without them the first pages would plan blind.
    await db.execute(sql`analyze`);
    return restored(config, db, label, file, actor);
  });
}

// ── PGlite ───────────────────────────────────────────────────────────────────────

async function backupPglite(config: Config, out: BackupTarget, actor: string): Promise<BackupResult> {
  const database = `PGlite in ${config.database.pgliteDir}`;
  if (!existsSync(path.join(config.database.pgliteDir, "PG_VERSION"))) {
    throw new OperatorError(`No database in ${config.database.pgliteDir}: set DATABASE_URL, or DATA_DIR to the portal's.`);
  }
  let bytes: Uint8Array;
  let how: string;
  let asked;
  try {
    // The portal records the backup in its audit log itself, once it has handed the bytes over.
    asked = await requestSnapshot(config.dataDir, { actor, file: path.basename(out.path) });
  } catch (error) {
    throw new OperatorError(`The backup could not be taken: ${(error as Error).message}`);
  }
  if (asked) {
    bytes = asked.bytes;
    how = `taken by the running portal, pid ${asked.holder.pid}, between two statements in ${asked.ms} ms`;
  } else {
    // Nobody holds the database: this command does, while it copies it.
    const hold = await holdDataDir(config.dataDir, "operator");
    try {
      const handle = await openDatabase({ dataDir: config.database.pgliteDir });
      try {
        bytes = await handle.snapshot!();
        await record(handle.db, "database_backed_up", actor, {
          file: path.basename(out.path),
          bytes: bytes.length,
          format: "PGlite dumpDataDir",
        });
      } finally {
        await handle.close();
      }
    } finally {
      await hold.close();
    }
    how = "taken by this command, no portal running on it";
  }
  writeSync(out.fd, bytes);
  return { database, file: out.path, bytes: bytes.length, how };
}

async function restorePglite(config: Config, file: string, actor: string): Promise<RestoreResult> {
  const dir = config.database.pgliteDir;
  const database = `PGlite in ${dir}`;
  if (existsSync(dir) && readdirSync(dir).length > 0) {
    throw new OperatorError(
      `${dir} holds a database already: a backup is restored only into an empty DATA_DIR. Set DATA_DIR to a new folder.`,
    );
  }
  // Nobody may open it while it is written (a portal started on this DATA_DIR meanwhile refuses to).
  await makePrivateDir(config.dataDir);
  const hold = await holdDataDir(config.dataDir, "operator").catch((error: Error) => {
    throw new OperatorError(`${error.message} Stop it before restoring into this DATA_DIR.`);
  });
  try {
    try {
      await makePrivateDir(dir);
      await restoreSnapshot(dir, readFileSync(file));
    } catch (error) {
      // What was written of it is no database: nothing of it is left.
      rmSync(dir, { recursive: true, force: true });
      throw new OperatorError(`${file} could not be restored: ${(error as Error).message}`);
    }
    const handle = await openDatabase({ dataDir: dir });
    try {
      return await restored(config, handle.db, database, file, actor);
    } finally {
      await handle.close();
    }
  } finally {
    await hold.close();
  }
}

// ── both ─────────────────────────────────────────────────────────────────────────

/** What was restored (tables, a few counts), the audit row, and whether the configured keys are the backup's. */
async function restored(config: Config, db: Database, database: string, file: string, actor: string): Promise<RestoreResult> {
  const rows = async <T>(text: string) => ((await db.execute(sql.raw(text))) as unknown as { rows: T[] }).rows;
  const [portal] = await rows<{ present: boolean }>("select to_regclass('public.orders') is not null as present");
  if (!portal!.present)
    throw new OperatorError(`${file} was restored into ${database}, but it holds no portal database (no orders table).`);
  const [tables] = await rows<{ n: number }>(
    "select count(*)::int as n from pg_tables where schemaname not in ('pg_catalog', 'information_schema')",
  );
  const [counts] = await rows<RestoreResult["counts"]>(
    `select (select count(*) from users)::int as users, (select count(*) from orders)::int as orders,
            (select count(*) from payments)::int as payments`,
  );
  // Compared, not recorded: a database that never started keeps no fingerprint, and the restored
  // data stays what the backup held (the portal's first start records them).
  let warning: string | null = null;
  await db
    .transaction(async (tx) => {
      try {
        await checkKeyFingerprints(tx, dataKeys(config), systemClock());
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error;
        warning = error.message;
      }
      tx.rollback();
    })
    .catch((error: unknown) => {
      if (!(error instanceof TransactionRollbackError)) throw error;
    });
  await record(db, "database_restored", actor, { file: path.basename(file) });
  return { database, file, tables: tables!.n, counts: counts!, warning };
}

async function record(db: Database, event: AuditEvent, actor: string, details: Record<string, unknown>) {
  await createAuditLog(db, systemClock).record(event, { actor, details });
}

async function withDatabase<T>(url: string, work: (db: Database) => Promise<T>): Promise<T> {
  const handle = await openDatabase({ url, poolMax: 1 });
  try {
    return await work(handle.db);
  } finally {
    await handle.close();
  }
}
