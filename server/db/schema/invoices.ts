// E-invoices (FatturaPA): the numberings, the invoices and credit notes, what was sent to SDI and what it said.
import { sql } from "drizzle-orm";
import {
  type AnyPgColumn,
  boolean,
  check,
  date,
  index,
  integer,
  jsonb,
  pgSequence,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import { users } from "./accounts.ts";
import { orders } from "./orders.ts";
import { payments, paymentRefunds } from "./payments.ts";
import { id, createdAt } from "./columns.ts";

/**
 * The numberings e-invoices take their numbers in: `invoices`, and `credit_notes` when credit
 * notes have a series of their own (CREDIT_NOTE_SERIES differs from INVOICE_SERIES, decision 025).
 */
export const INVOICE_NUMBERINGS = ["invoices", "credit_notes"] as const;
export type InvoiceNumbering = (typeof INVOICE_NUMBERINGS)[number];

/** TipoDocumento: TD01 an invoice, TD04 a credit note (nota di credito) correcting one. */
export const INVOICE_TYPES = ["TD01", "TD04"] as const;
export type InvoiceType = (typeof INVOICE_TYPES)[number];

/**
 * The last number given in a year of a numbering. Bumped by one UPDATE in the transaction that
 * writes the document, so a number is taken only when its document commits: no gaps, no duplicates.
 */
export const invoiceCounters = pgTable(
  "invoice_counters",
  {
    numbering: text("numbering", { enum: INVOICE_NUMBERINGS }).notNull().default("invoices"),
    year: integer("year").notNull(),
    lastNumber: integer("last_number").notNull(),
  },
  (t) => [primaryKey({ columns: [t.numbering, t.year] })],
);

/** What numbers the SDI files (IT<Partita IVA>_<5 characters>.xml): unique per sender, gaps allowed. */
export const invoiceTransmissionSeq = pgSequence("invoice_transmission_seq");

/**
 * An e-invoice (docs/e-invoices.md): one per payment of an order whose customer
 * asked for one (a checkout's payment, each month of the EDU subscription), dated the payment's
 * day in Rome and numbered 1, 2, … in that day's year (decision 021); and a credit note (TD04) per
 * refund of an invoiced payment that succeeded, dated the day the money went back and naming the
 * invoice it corrects (decision 025). The XML is kept as issued: it is the document.
 */
export const invoices = pgTable(
  "invoices",
  {
    id: id(),
    type: text("type", { enum: INVOICE_TYPES }).notNull().default("TD01"),
    /** The numbering its number was taken in (see INVOICE_NUMBERINGS). */
    numbering: text("numbering", { enum: INVOICE_NUMBERINGS }).notNull().default("invoices"),
    year: integer("year").notNull(),
    number: integer("number").notNull(),
    /** As printed in the XML's Numero: the series and the number (`WEB/17`, `NC/3`). */
    documentNumber: text("document_number").notNull(),
    /** The payment invoiced; for a credit note, the payment its refund gave back from. */
    paymentId: uuid("payment_id")
      .notNull()
      .references(() => payments.id),
    /** A credit note's refund, and the invoice it corrects (its DatiFattureCollegate). */
    refundId: uuid("refund_id")
      .unique()
      .references(() => paymentRefunds.id),
    correctsInvoiceId: uuid("corrects_invoice_id").references((): AnyPgColumn => invoices.id),
    orderId: uuid("order_id")
      .notNull()
      .references(() => orders.id),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id),
    /** The document's date (Data): the day of the payment in Rome, in the year of `year`. */
    date: date("date", { mode: "string" }).notNull(),
    /** When the file was made (within 12 days of `date`, or later only as a late invoice). */
    issuedAt: timestamp("issued_at", { withTimezone: true }).notNull(),
    totalCents: integer("total_cents").notNull(),
    /** Whether it carries the virtual stamp duty (DatiBollo, 2 €, borne by the publisher). */
    stampDuty: boolean("stamp_duty").notNull().default(false),
    /**
     * The SDI file name, IT<seller's Partita IVA>_<progressive>.xml, and the XML: the invoice's latest
     * file (one SDI rejected is written again under a new name; invoice_transmissions keeps them all).
     */
    fileName: text("file_name").notNull().unique(),
    xml: text("xml").notNull(),
    /** When the transmitter took the latest file (null: still to send; the `invoices.transmit` job retries). */
    transmittedAt: timestamp("transmitted_at", { withTimezone: true }),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("invoices_numbering_year_number_uq").on(t.numbering, t.year, t.number),
    // One invoice per payment; its credit notes are one per refund (refund_id).
    uniqueIndex("invoices_payment_uq")
      .on(t.paymentId)
      .where(sql`${t.type} = 'TD01'`),
    index("invoices_payment_idx").on(t.paymentId),
    check(
      "invoices_credit_note_linked",
      sql`(${t.type} = 'TD04') = (${t.refundId} is not null and ${t.correctsInvoiceId} is not null)`,
    ),
    index("invoices_issued_idx").on(t.issuedAt),
    index("invoices_date_idx").on(t.date),
    index("invoices_order_idx").on(t.orderId),
    check("invoices_number_positive", sql`${t.number} >= 1`),
  ],
);

/** What SDI said of a file it was sent (docs/e-invoices.md): RC, MC, NS. */
export const SDI_OUTCOMES = ["delivered", "not_delivered", "rejected"] as const;
export type SdiOutcome = (typeof SDI_OUTCOMES)[number];

/** An error SDI gave for a rejected file (NotificaScarto's ListaErrori). */
export type SdiError = { code: string; description: string; hint?: string };

/**
 * Each file an invoice was sent to SDI as (server/invoices/sdi-outcomes.ts): the one it was issued
 * with, and each corrected one sent again after SDI rejected it (a new file name, the same number
 * and date). The invoice's row holds its latest file; this keeps every file and what SDI said of it.
 */
export const invoiceTransmissions = pgTable(
  "invoice_transmissions",
  {
    id: id(),
    invoiceId: uuid("invoice_id")
      .notNull()
      .references(() => invoices.id),
    /** IT<seller's Partita IVA>_<progressive>.xml, as SDI's notifications name it. */
    fileName: text("file_name").notNull().unique(),
    xml: text("xml").notNull(),
    /** When the file was made; and when the transmitter took it (null: not yet). */
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
    sentAt: timestamp("sent_at", { withTimezone: true }),
    /** SDI's number of the file (IdentificativoSdI), from its first notification. */
    sdiId: text("sdi_id"),
    outcome: text("outcome", { enum: SDI_OUTCOMES }),
    /** When SDI delivered, failed to deliver or rejected the file (its notification's own time). */
    outcomeAt: timestamp("outcome_at", { withTimezone: true }),
    /** A rejected file's errors, as SDI listed them. */
    errors: jsonb("errors").$type<SdiError[]>(),
  },
  (t) => [index("invoice_transmissions_invoice_idx").on(t.invoiceId, t.createdAt)],
);

/** SDI's notifications read (docs/e-invoices.md): RC delivered, MC not delivered, NS rejected. */
export const SDI_NOTIFICATION_TYPES = ["RC", "MC", "NS"] as const;
export type SdiNotificationType = (typeof SDI_NOTIFICATION_TYPES)[number];

/**
 * Every notification read from SDI, kept whole: the row is written in the transaction that applies
 * it, and its key (SDI's file number, the notification's type and message id) is unique, so a
 * notification read twice, or by two instances at once, is applied once. `status` says what it did:
 * `applied` (the file's outcome set), `stale` (the file had an outcome it cannot move from, e.g. an
 * NS after an RC: kept, logged, nothing changed) or `unknown_file` (no file of the portal's has that name).
 */
export const sdiNotifications = pgTable(
  "sdi_notifications",
  {
    id: id(),
    type: text("type", { enum: SDI_NOTIFICATION_TYPES }).notNull(),
    sdiId: text("sdi_id").notNull(),
    messageId: text("message_id").notNull(),
    /** The notification's own file name (IT…_<progressive>_RC_001.xml). */
    fileName: text("file_name").notNull(),
    /** The name of the file it is about (NomeFile). */
    invoiceFileName: text("invoice_file_name").notNull(),
    transmissionId: uuid("transmission_id").references(() => invoiceTransmissions.id),
    status: text("status", { enum: ["applied", "stale", "unknown_file"] }).notNull(),
    /** DataOraRicezione: when SDI received the file. */
    receivedAt: timestamp("received_at", { withTimezone: true }).notNull(),
    xml: text("xml").notNull(),
    /** When the portal read it (the services' clock). */
    readAt: timestamp("read_at", { withTimezone: true }).notNull(),
  },
  (t) => [
    uniqueIndex("sdi_notifications_key_uq").on(t.sdiId, t.type, t.messageId),
    index("sdi_notifications_transmission_idx").on(t.transmissionId),
  ],
);
