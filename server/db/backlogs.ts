// What waits to be done, read for the operators' metrics (server/metrics.ts) in one statement at
// each scrape: the same figures on every instance, since they are the database's.
import { sql } from "drizzle-orm";
import type { Queryable } from "./client.ts";

export type Backlogs = {
  /** Background jobs due now and not yet run; the age of the oldest (seconds, 0 when none). */
  jobsDue: number;
  oldestDueJobSeconds: number;
  /** Jobs given up after their last try (the operators' to look at). */
  jobsGivenUp: number;
  /** E-invoice files made and not yet taken by the transmitter; the age of the oldest (seconds). */
  invoiceFilesUnsent: number;
  oldestUnsentInvoiceFileSeconds: number;
  /** E-invoice files SDI rejected (each corrected one is a new file). */
  invoiceFilesRejected: number;
  /** Mails owed and not yet delivered; the age of the oldest (seconds). */
  mailsUnsent: number;
  oldestUnsentMailSeconds: number;
  /** EDU subscriptions whose month's charge failed and is being tried again. */
  subscriptionsPastDue: number;
};

export async function readBacklogs(db: Queryable, at: Date): Promise<Backlogs> {
  const result = (await db.execute(sql`
    select
      (select count(*) from jobs where status = 'queued' and run_at <= ${at}) as "jobsDue",
      (select coalesce(extract(epoch from (${at}::timestamptz - min(run_at))), 0) from jobs where status = 'queued' and run_at <= ${at}) as "oldestDueJobSeconds",
      (select count(*) from jobs where status = 'failed') as "jobsGivenUp",
      (select count(*) from invoice_transmissions where sent_at is null) as "invoiceFilesUnsent",
      (select coalesce(extract(epoch from (${at}::timestamptz - min(created_at))), 0) from invoice_transmissions where sent_at is null) as "oldestUnsentInvoiceFileSeconds",
      (select count(*) from invoice_transmissions where outcome = 'rejected') as "invoiceFilesRejected",
      (select count(*) from mail_outbox where sent_at is null) as "mailsUnsent",
      (select coalesce(extract(epoch from (${at}::timestamptz - min(created_at))), 0) from mail_outbox where sent_at is null) as "oldestUnsentMailSeconds",
      (select count(*) from subscriptions where status = 'past_due') as "subscriptionsPastDue"
  `)) as unknown as { rows: Record<keyof Backlogs, string | number>[] };
  const row = result.rows[0]!;
  return Object.fromEntries(Object.entries(row).map(([key, value]) => [key, Number(value)])) as Backlogs;
}
