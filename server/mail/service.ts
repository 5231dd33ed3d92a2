// Outgoing mail. Every mail is first a row of `mail_outbox`, written in the transaction of the
// change that owes it (a registration and its welcome, a payment and its confirmation commit
// together, or neither). Then:
//   - with SMTP_URL set, a `mail.deliver` job, queued in the same transaction, sends it over SMTP
//     (nodemailer): at once once the change has committed, and on failure (the SMTP server down,
//     the instance dead before it sent) again at the job runner's next tries. Once delivered the
//     row keeps only who, what and when (the data download lists it): its body, which may carry a
//     password link, is cleared. A mail may go twice if an instance dies between the SMTP
//     server's acceptance and the row's update; never not at all while its tries last;
//   - without it, the row stays as written: the development mailbox page (/dev/mailbox) shows it.
//
// Mail bodies carry single-use password links, which are secrets: they are never logged, in
// either mode. The log says only that a mail left (or was put in the outbox), and which: never
// to whom, since an address in the log would outlive the erasure of its account.
import { and, desc, eq, isNull } from "drizzle-orm";
import nodemailer from "nodemailer";
import type { Config } from "#server/config.ts";
import type { Database, Queryable } from "#server/db/client.ts";
import { mailOutbox } from "#server/db/schema/index.ts";
import type { Logger } from "#server/logger.ts";
import type { Metrics } from "#server/metrics.ts";
import { isUuid } from "#server/lib/uuid.ts";
import { systemClock, type Clock } from "#server/lib/clock.ts";
import type { JobRunner } from "#server/jobs/runner.ts";

export type MailMessage = {
  to: string;
  /** The account the mail is about, if any: its deletion erases the mail from the outbox. */
  userId?: string;
  /** False: the account's data download does not list it (see mail_outbox.in_download). */
  inDownload?: boolean;
  subject: string;
  /** Plain-text body. */
  text: string;
  /** HTML body (a complete document). */
  html: string;
};

export type OutboxMail = {
  id: string;
  to: string;
  userId: string | null;
  subject: string;
  text: string;
  html: string;
  createdAt: Date;
  sentAt: Date | null;
};

export type MailServiceOptions = Config["mail"] & {
  db: Database;
  /** Runs the deliveries over SMTP (their tries, and the takeover of an instance that died). */
  runner: JobRunner;
  log: Logger;
  now?: Clock;
  /** Where the mails queued (once their change has committed) and the failed deliveries are counted (server/metrics.ts). */
  metrics?: Metrics;
};

const DELIVERY_QUEUE = "mail.deliver";
const deliveryKey = (mailId: string) => `${DELIVERY_QUEUE}:${mailId}`;

/** How many outbox mails `listOutbox` returns when not told, and at most. */
const OUTBOX_PAGE_SIZE = 50;
const OUTBOX_MAX_PAGE_SIZE = 500;

export function createMailService({ db, smtpUrl, from, runner, log, now = systemClock, metrics }: MailServiceOptions) {
  // Created once: nodemailer parses the URL here and opens a connection per message.
  const transport = smtpUrl ? nodemailer.createTransport(smtpUrl) : null;

  if (transport) {
    runner.handle(DELIVERY_QUEUE, async ({ mailId }: { mailId: string }) => {
      const [row] = await db
        .select()
        .from(mailOutbox)
        .where(and(eq(mailOutbox.id, mailId), isNull(mailOutbox.sentAt)));
      // Delivered already, or erased with its account meanwhile.
      if (!row) return;
      const info = await transport
        .sendMail({ from, to: row.to, subject: row.subject, text: row.text, html: row.html })
        .catch((error: unknown) => {
          // The job runner tries again later (and gives the mail up after its last try).
          metrics?.mails.failed.inc();
          throw error;
        });
      await db.update(mailOutbox).set({ sentAt: now(), text: "", html: "" }).where(eq(mailOutbox.id, mailId));
      log.info({ mail: { id: mailId, messageId: info.messageId, subject: row.subject } }, "mail sent over SMTP");
    });
  }

  /** Writes `message` in `tx`; with SMTP, its delivery too. Returns the row's id. */
  async function write(tx: Queryable, message: MailMessage): Promise<string> {
    const at = now();
    const [row] = await tx
      .insert(mailOutbox)
      .values({
        to: message.to,
        userId: message.userId,
        inDownload: message.inDownload ?? true,
        subject: message.subject,
        text: message.text,
        html: message.html,
        createdAt: at,
      })
      .returning({ id: mailOutbox.id });
    const id = row!.id;
    if (transport) {
      // Due at once: the change's own call runs it after the commit, a tick takes it over if that fails.
      await runner.enqueue(tx, { queue: DELIVERY_QUEUE, key: deliveryKey(id), payload: { mailId: id }, runAt: at });
    } else {
      // The id only: an address in a log line would outlive the account's erasure.
      log.info({ mail: { id, subject: message.subject } }, "mail put in the outbox (SMTP_URL is not set)");
    }
    return id;
  }

  /**
   * Counts the mail queued and delivers it now, once its transaction has committed (a mail written
   * in a transaction that rolls back is neither); a failure is left to the job's next try.
   */
  async function deliverNow(id: string): Promise<void> {
    metrics?.mails.queued.inc();
    if (!transport) return;
    await runner.runNow(deliveryKey(id)).catch((err: unknown) => {
      log.warn({ err, mail: { id } }, "the mail could not be delivered now: the job runner tries again");
    });
  }

  return {
    /** "smtp" when SMTP_URL is configured, "outbox" when mail is kept in the database. */
    mode: transport ? ("smtp" as const) : ("outbox" as const),

    /**
     * A mail that a change owes, written with it in the change's transaction `tx`: the change and
     * its mail commit together, or neither. The answer delivers it (with SMTP), to be called once
     * `tx` has committed (the mail counts as queued then); it never fails, a delivery that fails
     * being tried again later.
     */
    async owe(tx: Queryable, message: MailMessage): Promise<() => Promise<void>> {
      const id = await write(tx, message);
      return () => deliverNow(id);
    },

    /** A mail that no change owes (a notice of a job): written on its own, delivered at once. */
    async send(message: MailMessage): Promise<void> {
      await deliverNow(await db.transaction((tx) => write(tx, message)));
    },

    /** The newest mails of the outbox first. */
    async listOutbox(limit: number = OUTBOX_PAGE_SIZE): Promise<OutboxMail[]> {
      const size = Math.min(Math.max(Math.trunc(limit) || OUTBOX_PAGE_SIZE, 1), OUTBOX_MAX_PAGE_SIZE);
      return db.select().from(mailOutbox).orderBy(desc(mailOutbox.seq)).limit(size);
    },

    /** One outbox mail, or null when the id is unknown or not a UUID. */
    async getOutboxMail(id: string): Promise<OutboxMail | null> {
      if (!isUuid(id)) return null;
      const [row] = await db.select().from(mailOutbox).where(eq(mailOutbox.id, id)).limit(1);
      return row ?? null;
    },
  };
}

export type MailService = ReturnType<typeof createMailService>;
