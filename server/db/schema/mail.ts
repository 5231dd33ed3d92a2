// Mail: the outbox.
import { bigserial, boolean, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { users } from "./accounts.ts";
import { id, createdAt } from "./columns.ts";

/** Mail waiting for, or sent through, the outbox (the embedded default when no SMTP is set). */
export const mailOutbox = pgTable("mail_outbox", {
  id: id(),
  to: text("to").notNull(),
  /**
   * The account the mail is about, so that deleting the account erases its mails, even those
   * sent to an address it no longer has. The row of a deleted account stays, so no cascade.
   */
  userId: uuid("user_id").references(() => users.id),
  subject: text("subject").notNull(),
  text: text("text").notNull(),
  html: text("html").notNull(),
  /**
   * Whether the account's data download lists it: not a mail to an address the account asked to
   * move to (a confirmation link, or a notice that the address has an account), so the download
   * does not tell which addresses are registered.
   */
  inDownload: boolean("in_download").notNull().default(true),
  createdAt: createdAt(),
  sentAt: timestamp("sent_at", { withTimezone: true }),
  // Orders the outbox: created_at can tie when mails are sent within one clock tick.
  seq: bigserial("seq", { mode: "number" }).notNull(),
});
