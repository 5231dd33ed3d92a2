// SDI's notifications read from its inbox (docs/e-invoices.md; decision 023): a sweep
// of the job runner, on every instance. Each notification is applied once: its row (unique on SDI's
// file number, its type and message id) is written in the transaction that sets the file's outcome,
// so a notification read twice, or by two instances at once, changes the invoice once. The file
// leaves the inbox only after that commit (into done/), so a crash between the two reads it again
// and finds it applied. A file that is no notification, or one about no file of the portal's, is
// set aside (rejected/, unknown/) and logged: never deleted.
import { and, eq, isNull, or, sql } from "drizzle-orm";
import type { Database } from "#server/db/client.ts";
import { invoiceTransmissions, sdiNotifications, type SdiNotificationType, type SdiOutcome } from "#server/db/schema/index.ts";
import type { JobRunner } from "#server/jobs/runner.ts";
import type { Clock } from "#server/lib/clock.ts";
import type { Logger } from "#server/logger.ts";
import { readNotification, type SdiNotification } from "./sdi-messages.ts";
import { markSent, transmissionOf } from "./transmissions.ts";
import type { SdiInbox } from "./transmitter.ts";

const OUTCOME_OF: Readonly<Record<SdiNotificationType, SdiOutcome>> = {
  RC: "delivered",
  MC: "not_delivered",
  NS: "rejected",
};

/** A file whose reading or moving failed (a database or disk error) is tried again after this. */
const RETRY_AFTER_MS = 60_000;

/** What reading a notification did: `duplicate` when it had been applied already. */
type Applied = "applied" | "duplicate" | "stale" | "unknown_file";

export type SdiInboxOptions = { db: Database; inbox: SdiInbox; runner: JobRunner; log: Logger; now: Clock };

export function createSdiInbox({ db, inbox, runner, log, now }: SdiInboxOptions) {
  /** Files that failed here, by name: when to try them again (this instance only; the others try on). */
  const retryAt = new Map<string, number>();

  /** Applies a notification: once, with the file's new outcome, in one transaction. */
  async function apply(notification: SdiNotification): Promise<Applied> {
    const { type, sdiId, messageId, invoiceFileName } = notification;
    return db.transaction(async (tx) => {
      const readAt = now();
      const transmission = await transmissionOf(tx, invoiceFileName);
      const [recorded] = await tx
        .insert(sdiNotifications)
        .values({
          type,
          sdiId,
          messageId,
          fileName: notification.fileName,
          invoiceFileName,
          transmissionId: transmission?.id ?? null,
          status: transmission ? "applied" : "unknown_file",
          receivedAt: notification.receivedAt,
          xml: notification.xml,
          readAt,
        })
        .onConflictDoNothing({ target: [sdiNotifications.sdiId, sdiNotifications.type, sdiNotifications.messageId] })
        .returning({ id: sdiNotifications.id });
      if (!recorded) return "duplicate";
      if (!transmission) return "unknown_file";

      // An outcome is final, but for a file first not delivered (MC) and then delivered after all.
      const outcome = OUTCOME_OF[type];
      const [changed] = await tx
        .update(invoiceTransmissions)
        .set({
          outcome,
          outcomeAt: notification.outcomeAt,
          sdiId: sql`coalesce(${invoiceTransmissions.sdiId}, ${sdiId})`,
          errors: type === "NS" ? notification.errors : null,
        })
        .where(
          and(
            eq(invoiceTransmissions.id, transmission.id),
            or(
              isNull(invoiceTransmissions.outcome),
              outcome === "delivered" ? eq(invoiceTransmissions.outcome, "not_delivered") : sql`false`,
            ),
          ),
        )
        .returning({ id: invoiceTransmissions.id });
      if (!changed) {
        await tx.update(sdiNotifications).set({ status: "stale" }).where(eq(sdiNotifications.id, recorded.id));
        return "stale";
      }
      // SDI has the file: handed over, even if the instance that sent it died before saying so.
      await markSent(tx, transmission.invoiceId, invoiceFileName, readAt);
      return "applied";
    });
  }

  /** Reads up to `limit` files of the inbox; how many left it. */
  async function read(at: Date, limit: number): Promise<number> {
    const files = await inbox.list(limit, (name) => (retryAt.get(name) ?? 0) > at.getTime());
    let handled = 0;
    for (const file of files) {
      try {
        const read = readNotification(file.name, file.content);
        if (!read.ok) {
          const folder = read.kind === "unreadable" ? "rejected" : "unknown";
          if (read.kind === "unreadable")
            log.error({ file: file.name, reason: read.reason }, "an SDI inbox file is unreadable: set aside");
          else
            log.warn({ file: file.name, reason: read.reason }, "an SDI inbox file is not about the portal's invoices: set aside");
          await inbox.setAside(file.name, folder);
        } else {
          const n = read.notification;
          const result = await apply(n);
          const context = { file: file.name, invoiceFile: n.invoiceFileName, type: n.type, sdiId: n.sdiId, result };
          if (result === "unknown_file") log.warn(context, "an SDI notification names no file of the portal's: set aside");
          else if (result === "stale") log.warn(context, "an SDI notification contradicts the file's outcome: kept, not applied");
          else log.info(context, "an SDI notification was read");
          if (result === "unknown_file") await inbox.setAside(file.name, "unknown");
          else await inbox.done(file.name);
        }
        retryAt.delete(file.name);
        handled += 1;
      } catch (err) {
        retryAt.set(file.name, at.getTime() + RETRY_AFTER_MS);
        log.error({ err, file: file.name }, "an SDI inbox file could not be read; it will be tried again");
      }
    }
    return handled;
  }

  runner.sweep("sdi-inbox", read);
  return { apply, read };
}
