// The audit log.
import { bigserial, index, jsonb, pgTable, text, uuid } from "drizzle-orm/pg-core";
import { users } from "./accounts.ts";
import { id, createdAt } from "./columns.ts";

export const AUDIT_EVENTS = [
  "account_registered",
  "sign_in_success",
  "sign_in_failure",
  "password_reset_requested",
  "password_reset",
  "password_changed",
  "email_change_requested",
  "email_changed",
  "account_deleted",
  // The account console: sessions ended from 'Dove hai effettuato l'accesso', 'Scarica i tuoi dati'.
  "session_ended",
  "data_exported",
  // Operators' commands (scripts/admin.ts): who ran them is the row's `actor`.
  "codes_created",
  "codes_listed",
  "codes_disabled",
  "customer_viewed",
  "customer_exported",
  "access_granted",
  "access_revoked",
  "customer_signed_out",
  "coupon_created",
  "coupons_listed",
  "coupon_disabled",
  "order_viewed",
  "order_refunded",
  "refunds_listed",
  "invoices_exported",
  "invoices_issued",
  "invoice_viewed",
  "invoices_listed",
  "invoice_resent",
  "catalogue_imported",
  "subscriptions_listed",
  "due_work_run",
  // npm run admin -- backup | restore (server/operators/backup.ts); the running portal records the
  // backups it takes for an operator (server/db/pglite-owner.ts).
  "database_backed_up",
  "database_restored",
] as const;
export type AuditEvent = (typeof AUDIT_EVENTS)[number];

/** Security-relevant events: who, when, from where. Never a password or a token. */
export const auditLog = pgTable(
  "audit_log",
  {
    id: id(),
    /** Insertion order: events of the same instant still list in the order they happened. */
    seq: bigserial("seq", { mode: "number" }).notNull(),
    event: text("event", { enum: AUDIT_EVENTS }).notNull(),
    userId: uuid("user_id").references(() => users.id, { onDelete: "set null" }),
    /** The e-mail typed in, for failures on unknown accounts. */
    subject: text("subject"),
    ip: text("ip"),
    /** Who acted, when not the customer: an operator's command (`operator:<name>`), or the portal itself. */
    actor: text("actor"),
    /** What an operator's command did (a batch, a product, an amount): never a secret or a code in clear. */
    details: jsonb("details"),
    createdAt: createdAt(),
  },
  (t) => [index("audit_log_user_idx").on(t.userId, t.createdAt)],
);
