// The frame of an operator's one-off command (npm run admin): the configured database
// (DATABASE_URL, or the embedded PGlite in DATA_DIR), checked to exist and to be migrated, the
// services over it with the server's clock (outside production, the one moved at /dev/orologio),
// everything closed afterwards; and how the commands print.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { sql } from "drizzle-orm";
import pino from "pino";
import type { Config } from "#server/config.ts";
import { configuredDatabase, openDatabase, type Database } from "#server/db/client.ts";
import { DataDirHeld, holdDataDir } from "#server/db/pglite-owner.ts";
import { createShiftableClock } from "#server/lib/clock.ts";
import { createLogger, type Logger } from "#server/logger.ts";
import { OperatorError } from "#server/operators/context.ts";
import { checkKeyFingerprints, dataKeys } from "#server/security/key-fingerprints.ts";
import { createServices, type Services } from "#server/services.ts";
import { formatDate } from "#shared/format.ts";

/** Whether every committed migration is applied (as drizzle's migrator decides: by the newest one's time). */
async function isMigrated(db: Database): Promise<boolean> {
  const journal = JSON.parse(readFileSync(new URL("../server/db/migrations/meta/_journal.json", import.meta.url), "utf8")) as {
    entries: { when: number }[];
  };
  const newest = Math.max(...journal.entries.map((e) => e.when));
  const query = async (text: string) =>
    ((await db.execute(sql.raw(text))) as unknown as { rows: Record<string, unknown>[] }).rows[0]!;
  if (!(await query("select to_regclass('drizzle.__drizzle_migrations') is not null as present")).present) return false;
  return Number((await query("select max(created_at) as last from drizzle.__drizzle_migrations")).last) >= newest;
}

export type OperatorRun = {
  db: Database;
  services: Services;
  /** "PostgreSQL", or "PGlite in <folder>". */
  where: string;
  /** How far the development clock runs ahead of the system's (0 in production). */
  aheadMs: number;
};

/**
 * Opens the configured database and the services over it, runs `work`, and closes both. A
 * database missing or not migrated is an OperatorError (the script prints its message).
 */
export async function withOperatorServices<T>(config: Config, work: (run: OperatorRun) => Promise<T>): Promise<T> {
  if (!config.database.url && !existsSync(config.database.pgliteDir)) {
    throw new OperatorError(`No database in ${config.database.pgliteDir}: set DATABASE_URL, or DATA_DIR to the portal's.`);
  }
  // Warnings and errors (a charge or a refund that could not complete) go to stderr, so stdout
  // stays the command's output; LOG_LEVEL=info shows more.
  const log = createLogger(process.env.LOG_LEVEL ? config.logLevel : "warn", pino.destination({ dest: 2, sync: true }));
  // The embedded database is one process's: not while the portal runs on it (server/db/pglite-owner.ts).
  const hold = config.database.url ? null : await holdDataDir(config.dataDir, "operator").catch(stopThePortalFirst);
  try {
    return await withDatabase(config, log, work);
  } finally {
    await hold?.close();
  }
}

/** A DataDirHeld error, with what the operator does about it. */
function stopThePortalFirst(error: Error): never {
  if (!(error instanceof DataDirHeld)) throw error;
  throw new OperatorError(
    `${error.message} Stop it first (${error.holder.holder === "portal" ? "only `backup` works while it runs" : "or wait for it to end"}).`,
  );
}

async function withDatabase<T>(config: Config, log: Logger, work: (run: OperatorRun) => Promise<T>): Promise<T> {
  const database = await openDatabase(configuredDatabase(config.database, { poolMax: 2 }));
  const pgliteDir = path.relative(process.cwd(), config.database.pgliteDir);
  const where = config.database.url
    ? "PostgreSQL"
    : `PGlite in ${pgliteDir.startsWith("..") ? config.database.pgliteDir : pgliteDir}`;
  try {
    if (!(await isMigrated(database.db))) {
      throw new OperatorError(`The database (${where}) is not migrated: run \`npm run db:migrate\` first.`);
    }
    // Codes created under another ACTIVATION_CODE_KEY would never activate on the portal.
    await checkKeyFingerprints(database.db, dataKeys(config), new Date());
    // The server's clock: outside production it may run ahead (docs/features.md,
    // "Moving the clock").
    const devClock = config.isProduction ? null : createShiftableClock(path.join(config.dataDir, "clock-offset.json"));
    const services = await createServices({ config, database, log, devClock });
    try {
      return await work({ db: database.db, services, where, aheadMs: devClock?.offsetMs() ?? 0 });
    } finally {
      await services.close();
    }
  } finally {
    await database.close();
  }
}

const time = new Intl.DateTimeFormat("it-IT", { hour: "2-digit", minute: "2-digit", timeZone: "Europe/Rome" });
/** A date and time as operators read them (Europe/Rome), or "-". */
export const when = (date: Date | null) => (date ? `${formatDate(date)} ${time.format(date)}` : "-");

/** Left-aligned text columns, right-aligned numbers (those named in `right`). */
export function table(head: string[], rows: string[][], right: string[] = []) {
  if (rows.length === 0) return console.log("  (none)");
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    "  " +
    cells
      .map((c, i) => (right.includes(head[i]!) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd();
  console.log(line(head));
  console.log(line(widths.map((w) => "-".repeat(w))));
  for (const row of rows) console.log(line(row));
}
