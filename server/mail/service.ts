// Outgoing mail. With SMTP_URL set, nodemailer delivers over SMTP; without it the mail is kept
// in the `mail_outbox` table, where the development mailbox page (/dev/mailbox) shows it.
//
// Mail bodies carry single-use password links, which are secrets: they are never logged, in
// either mode. The log says only that a mail left (or was put in the outbox), and which: never
// to whom, since an address in the log would outlive the erasure of its account.
import { desc, eq } from "drizzle-orm";
import nodemailer from "nodemailer";
import type { Config } from "../config.ts";
import type { Database, Queryable } from "../db/client.ts";
import { mailOutbox } from "../db/schema.ts";
import type { Logger } from "../logger.ts";
import { isUuid } from "../lib/uuid.ts";
import { systemClock, type Clock } from "../lib/clock.ts";

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
  log: Logger;
  now?: Clock;
};

/** How many outbox mails `listOutbox` returns when not told, and at most. */
const OUTBOX_PAGE_SIZE = 50;
const OUTBOX_MAX_PAGE_SIZE = 500;

export function createMailService({ db, smtpUrl, from, log, now = systemClock }: MailServiceOptions) {
  // Created once: nodemailer parses the URL here and opens a connection per message.
  const transport = smtpUrl ? nodemailer.createTransport(smtpUrl) : null;

  async function sendOverSmtp(smtp: NonNullable<typeof transport>, message: MailMessage): Promise<void> {
    const info = await smtp.sendMail({ from, to: message.to, subject: message.subject, text: message.text, html: message.html });
    log.info({ mail: { messageId: info.messageId, subject: message.subject } }, "mail sent over SMTP");
  }

  async function putInOutbox(message: MailMessage, into: Queryable = db): Promise<void> {
    const [row] = await into
      .insert(mailOutbox)
      .values({
        to: message.to,
        userId: message.userId,
        inDownload: message.inDownload ?? true,
        subject: message.subject,
        text: message.text,
        html: message.html,
        createdAt: now(),
      })
      .returning({ id: mailOutbox.id });
    // The id only: an address in a log line would outlive the account's erasure.
    log.info({ mail: { id: row!.id, subject: message.subject } }, "mail put in the outbox (SMTP_URL is not set)");
  }

  return {
    /** "smtp" when SMTP_URL is configured, "outbox" when mail is kept in the database. */
    mode: transport ? ("smtp" as const) : ("outbox" as const),

    /** Sends a mail, or keeps it in the outbox. SMTP errors propagate: the caller decides. */
    send(message: MailMessage): Promise<void> {
      return transport ? sendOverSmtp(transport, message) : putInOutbox(message);
    },

    /**
     * A mail that a change owes, written with it: kept in the outbox within the change's
     * transaction `tx` (the change and its mail commit together, or neither); with SMTP nothing
     * is written, and the answer sends it, to be called once `tx` has committed.
     */
    async owe(tx: Queryable, message: MailMessage): Promise<() => Promise<void>> {
      if (transport) return () => sendOverSmtp(transport, message);
      await putInOutbox(message, tx);
      return async () => {};
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
