// The EDU subscription's charges, for operators, against the configured database (DATABASE_URL,
// or the embedded PGlite in DATA_DIR), with the server's clock (outside production, the one
// moved at /dev/orologio):
//   node scripts/subscriptions.ts list      months due now, subscriptions past due, months failed
//   node scripts/subscriptions.ts run-due   runs what is due now once (charges, then their mails)
// run-due is safe to repeat, and to run while instances of the server run on PostgreSQL: every
// month and job is claimed, so each is handled once.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { sql } from "drizzle-orm";
import pino from "pino";
import { loadConfig } from "../server/config.ts";
import type { OperatorRow } from "../server/commerce/subscriptions.ts";
import { openDatabase, type Database } from "../server/db/client.ts";
import { createShiftableClock } from "../server/lib/clock.ts";
import { createLogger } from "../server/logger.ts";
import { createServices } from "../server/services.ts";
import { formatDate, formatEuro } from "../shared/format.ts";
import { INSTALMENTS_PER_TERM, instalmentOf } from "../shared/subscription.ts";

const USAGE = `usage: npm run subscriptions -- list | run-due
  list      the months due now, the subscriptions past due (the failed month, its tries, the
            next try, the last error) and the months whose every try failed, recent first
  run-due   runs everything due now once (the months' charges, then the mails they queue) and
            prints how many of each it handled; running it again does nothing more
Uses DATABASE_URL, or the embedded PGlite in DATA_DIR: PGlite is one process at a time, so stop
the portal's server first. The database must be migrated (npm run db:migrate).`;

const command = process.argv[2];
if (process.argv.length !== 3 || (command !== "list" && command !== "run-due")) {
  console.error(USAGE);
  process.exit(2);
}

const config = loadConfig();
if (!config.database.url && !existsSync(config.database.pgliteDir)) {
  console.error(`No database in ${config.database.pgliteDir}: set DATABASE_URL, or DATA_DIR to the portal's.`);
  process.exit(1);
}
// Warnings and errors (a charge that could not complete, a mail that failed) go to stderr;
// LOG_LEVEL=info shows every mail put in the outbox as well.
const log = createLogger(process.env.LOG_LEVEL ? config.logLevel : "warn", pino.destination({ dest: 2, sync: true }));
const database = await openDatabase(
  config.database.url ? { url: config.database.url, poolMax: 2 } : { dataDir: config.database.pgliteDir },
);
const pgliteDir = path.relative(process.cwd(), config.database.pgliteDir);
const where = config.database.url
  ? "PostgreSQL"
  : `PGlite in ${pgliteDir.startsWith("..") ? config.database.pgliteDir : pgliteDir}`;

const time = new Intl.DateTimeFormat("it-IT", { hour: "2-digit", minute: "2-digit", timeZone: "Europe/Rome" });
const when = (date: Date | null) => (date ? `${formatDate(date)} ${time.format(date)}` : "-");
const month = (n: number) => `${n} (rata ${instalmentOf(n)} di ${INSTALMENTS_PER_TERM})`;

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

/** Left-aligned text columns, right-aligned numbers (those named in `right`). */
function table(head: string[], rows: string[][], right: string[] = []) {
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

function list({ at, due, pastDue, failed }: { at: Date; due: OperatorRow[]; pastDue: OperatorRow[]; failed: OperatorRow[] }) {
  console.log(`EDU subscriptions at ${when(at)} (Europe/Rome), ${where}\n`);
  console.log(`Months due now: ${due.length}`);
  table(
    ["subscription", "customer", "month", "state", "due", "next try", "tries", "amount"],
    due.map((r) => [
      r.subscriptionId,
      r.userId,
      month(r.number),
      r.periodStatus,
      when(r.dueAt),
      when(r.nextAttemptAt),
      String(r.tries),
      formatEuro(r.amountCents),
    ]),
    ["tries", "amount"],
  );
  console.log(`\nSubscriptions past due: ${pastDue.length}`);
  table(
    ["subscription", "customer", "failed month", "tries", "next try", "last error"],
    pastDue.map((r) => [r.subscriptionId, r.userId, month(r.number), String(r.tries), when(r.nextAttemptAt), r.lastError ?? "-"]),
    ["tries"],
  );
  console.log(`\nMonths whose every try failed (the subscription ended), most recent first: ${failed.length}`);
  table(
    ["subscription", "customer", "month", "due", "tries", "amount", "last error"],
    failed.map((r) => [
      r.subscriptionId,
      r.userId,
      month(r.number),
      when(r.dueAt),
      String(r.tries),
      formatEuro(r.amountCents),
      r.lastError ?? "-",
    ]),
    ["tries", "amount"],
  );
}

try {
  if (!(await isMigrated(database.db))) {
    console.error(`The database (${where}) is not migrated: run \`npm run db:migrate\` first.`);
    process.exitCode = 1;
  } else {
    // The server's clock: outside production it may run ahead (README, "Moving the clock").
    const devClock = config.isProduction ? null : createShiftableClock(path.join(config.dataDir, "clock-offset.json"));
    const services = await createServices({ config, database, log, devClock });
    try {
      const ahead = devClock?.offsetMs() ?? 0;
      if (ahead) console.log(`(The clock runs ${(ahead / 86_400_000).toFixed(1)} days ahead of the system's: /dev/orologio.)`);
      if (command === "list") {
        list(await services.subscriptions.report());
      } else {
        const at = services.clock();
        const done = await services.jobs.runDue();
        console.log(`Ran what was due at ${when(at)} (Europe/Rome), ${where}:`);
        // Sweeps count the months they took (paid, failed or ended); queues the jobs done.
        if (Object.values(done).every((n) => n === 0)) console.log("  nothing was due");
        else
          table(
            ["sweep or queue", "handled"],
            Object.entries(done).map(([name, n]) => [name, String(n)]),
            ["handled"],
          );
        const left = await services.subscriptions.report();
        console.log(
          `\nNow: ${left.due.length} month(s) due, ${left.pastDue.length} subscription(s) past due, ` +
            `${left.failed.length} failed month(s) (npm run subscriptions -- list).`,
        );
      }
    } finally {
      await services.close();
    }
  }
} finally {
  await database.close();
}
