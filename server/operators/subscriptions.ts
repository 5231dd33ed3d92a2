// Operators' commands for the EDU subscription's charges: what is due, past due and failed, and
// running what is due now. run-due is safe to repeat, and to run beside instances of the server
// on PostgreSQL: every month and job is claimed, so each is handled once.
import type { OperatorReport } from "#server/commerce/subscriptions.ts";
import { recordOperation, type Operator } from "./context.ts";

/** The months due now, the subscriptions past due and the months whose every try failed. */
export async function subscriptionsReport(op: Operator): Promise<OperatorReport> {
  const report = await op.services.subscriptions.report();
  await recordOperation(op.db, op, "subscriptions_listed", {
    details: { due: report.due.length, pastDue: report.pastDue.length, failed: report.failed.length },
  });
  return report;
}

export type DueRun = {
  /** The services' clock when the run began. */
  at: Date;
  /** What each sweep (the months it took: paid, failed or ended) and each queue (its jobs) handled. */
  done: Record<string, number>;
  /** What is left afterwards. */
  left: OperatorReport;
};

/** Runs everything due now once: the months' charges, then the mails they queue. */
export async function runDue(op: Operator): Promise<DueRun> {
  const at = op.services.clock();
  const done = await op.services.jobs.runDue();
  await recordOperation(op.db, op, "due_work_run", { details: done });
  return { at, done, left: await op.services.subscriptions.report() };
}
