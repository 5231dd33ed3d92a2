// The EDU subscription's charges, for operators, against the configured database (DATABASE_URL,
// or the embedded PGlite in DATA_DIR), with the server's clock (outside production, the one
// moved at /dev/orologio):
//   node scripts/subscriptions.ts list      months due now, subscriptions past due, months failed
//   node scripts/subscriptions.ts run-due   runs what is due now once (charges, then their mails)
// run-due is safe to repeat, and to run while instances of the server run on PostgreSQL: every
// month and job is claimed, so each is handled once.
import { loadConfig } from "../server/config.ts";
import type { OperatorRow } from "../server/commerce/subscriptions.ts";
import { OperatorError } from "../server/operators/context.ts";
import { formatEuro } from "../shared/format.ts";
import { INSTALMENTS_PER_TERM, instalmentOf } from "../shared/subscription.ts";
import { table, when, withOperatorServices } from "./operator-runtime.ts";

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
let where = "";

const month = (n: number) => `${n} (rata ${instalmentOf(n)} di ${INSTALMENTS_PER_TERM})`;

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
  await withOperatorServices(config, async (run) => {
    const { services } = run;
    where = run.where;
    if (run.aheadMs)
      console.log(`(The clock runs ${(run.aheadMs / 86_400_000).toFixed(1)} days ahead of the system's: /dev/orologio.)`);
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
  });
} catch (error) {
  if (!(error instanceof OperatorError)) throw error;
  console.error(error.message);
  process.exitCode = 1;
}
