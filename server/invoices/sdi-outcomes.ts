// What became of each e-invoice at SDI (docs/e-invoices.md; decision 023), for the
// operators' commands: its state, each file it was sent as with SDI's outcome, and sending it
// again — a file SDI rejected, corrected, under a new file name with the same number and date; or
// a file the transmitter never took, once its tries ran out.
//
// An invoice's state is its latest file's: `unsent` (to send: the job is trying), `send_failed`
// (the job gave up), `sent` (handed to the intermediary), then what SDI said of it: `delivered`
// (RC), `not_delivered` (MC: in the buyer's tax drawer) or `rejected` (NS, with its errors).
import { and, asc, eq, gte, inArray, lt, sql, type SQL } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import type { Config } from "#server/config.ts";
import type { Database, Queryable } from "#server/db/client.ts";
import {
  invoices,
  invoiceTransmissions,
  jobs,
  orders,
  payments,
  sdiNotifications,
  users,
  type BillingDetails,
} from "#server/db/schema/index.ts";
import { requeueJob } from "#server/jobs/runner.ts";
import type { Clock } from "#server/lib/clock.ts";
import { isEmail } from "#shared/contact-rules.ts";
import { isCodiceFiscale, isCodiceSdi, isPartitaIva, normalizeId } from "#shared/italian-ids.ts";
import { romeDay } from "#shared/rome-clock.ts";
import { creditNotesLast, documentAgain, InvoicingNotConfigured, transmitJob } from "./service.ts";

export const INVOICE_STATES = ["unsent", "send_failed", "sent", "delivered", "not_delivered", "rejected"] as const;
export type InvoiceState = (typeof INVOICE_STATES)[number];

/**
 * Days after SDI's rejection within which the corrected file goes with the same number and date
 * (Agenzia delle Entrate, Circolare 13/E of 2 July 2018: a rejected file counts as never issued).
 */
export const RESEND_DAYS = 5;

/** What the operator corrects in the order's billing details before the file is written again. */
export type BuyerCorrection = {
  /** Codice Univoco SDI (0000000: by PEC or to the tax drawer). */
  sdiCode?: string;
  pec?: string;
  /** A company's Partita IVA. */
  vat?: string;
  /** A private customer's Codice Fiscale. */
  fiscalCode?: string;
  /** A company's name (Denominazione). */
  name?: string;
};

export type ResendResult =
  | { ok: true; kind: "corrected"; fileName: string; rejectedFileName: string; corrected: (keyof BuyerCorrection)[] }
  | { ok: true; kind: "retried"; fileName: string }
  | { ok: false; reason: "nothing_to_resend"; state: InvoiceState }
  | { ok: false; reason: "too_late"; rejectedAt: Date; lastDay: string }
  | { ok: false; reason: "invalid_correction"; field: keyof BuyerCorrection; message: string }
  | { ok: false; reason: "not_invoiceable" | "being_sent" | "correction_not_rejected" };

type Refusal = Extract<ResendResult, { ok: false }>;
/** Rolls the resend's transaction back with its reason. */
class Refused extends Error {
  readonly refusal: Refusal;
  constructor(refusal: Refusal) {
    super(refusal.reason);
    this.refusal = refusal;
  }
}

/** The transmit job of an invoice: one per invoice (service.ts), so its state is the latest file's hand-over. */
const jobJoin = eq(jobs.key, sql`'invoice-transmit:' || ${invoices.id}::text`);
const current = eq(invoiceTransmissions.fileName, invoices.fileName);
/** The invoice a credit note corrects (none for an invoice). */
const correctedInvoice = alias(invoices, "corrected");
const correctedJoin = eq(correctedInvoice.id, invoices.correctsInvoiceId);
const stateSql: SQL<InvoiceState> = sql`case
  when ${invoiceTransmissions.outcome} is not null then ${invoiceTransmissions.outcome}
  when ${invoices.transmittedAt} is not null then 'sent'
  when ${jobs.status} = 'failed' then 'send_failed'
  else 'unsent' end`;

/** `2026-11-23` plus `days` on the calendar. */
const addDays = (day: string, days: number) =>
  new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

/** The billing details with the operator's corrections, or what is wrong with one (the checkout's own checks). */
function corrected(
  billing: BillingDetails,
  c: BuyerCorrection,
): { ok: true; billing: BillingDetails } | Extract<Refusal, { reason: "invalid_correction" }> {
  const invalid = (field: keyof BuyerCorrection, message: string) => ({
    ok: false as const,
    reason: "invalid_correction" as const,
    field,
    message,
  });
  const next = { ...billing };
  if (c.sdiCode !== undefined) {
    const code = normalizeId(c.sdiCode);
    if (!isCodiceSdi(code)) return invalid("sdiCode", `"${c.sdiCode}" is not a Codice Univoco SDI (7 letters or digits)`);
    next.sdi = code;
  }
  if (c.pec !== undefined) {
    const pec = c.pec.trim();
    if (!isEmail(pec)) return invalid("pec", `"${c.pec}" is not an e-mail address`);
    next.pec = pec;
  }
  if (c.vat !== undefined) {
    if (!billing.isCompany)
      return invalid("vat", "the invoice is made out to a private customer (Codice Fiscale), not a company");
    const vat = normalizeId(c.vat);
    if (!isPartitaIva(vat)) return invalid("vat", `"${c.vat}" is not a valid Partita IVA`);
    next.vat = vat;
  }
  if (c.name !== undefined) {
    if (!billing.isCompany) return invalid("name", "only a company's name (Denominazione) can be corrected");
    const name = c.name.trim();
    if (name.length < 1 || name.length > 80) return invalid("name", "a company's name has 1 to 80 characters");
    next.name = name;
  }
  if (c.fiscalCode !== undefined) {
    if (billing.isCompany)
      return invalid("fiscalCode", "the invoice is made out to a company (Partita IVA), not a private customer");
    const code = normalizeId(c.fiscalCode);
    if (!isCodiceFiscale(code)) return invalid("fiscalCode", `"${c.fiscalCode}" is not a valid Codice Fiscale`);
    next.ssn = code;
  }
  return { ok: true, billing: next };
}

export type SdiOutcomesOptions = { db: Database; invoicing: Config["invoicing"]; now: Clock };

export function createSdiOutcomes({ db, invoicing, now }: SdiOutcomesOptions) {
  const stateOf = async (tx: Queryable, invoiceId: string) => {
    const [row] = await tx
      .select({ state: stateSql, rejectedAt: invoiceTransmissions.outcomeAt })
      .from(invoices)
      .leftJoin(invoiceTransmissions, current)
      .leftJoin(jobs, jobJoin)
      .where(eq(invoices.id, invoiceId));
    return row!;
  };

  return {
    /**
     * The invoices an operator means: by file name (any file an invoice was sent as), or by number
     * (`WEB/17`, or `17` in the portal's series) of any year unless `year` is given. Ids, oldest first.
     */
    async find(ref: { fileName: string } | { number: string; year?: number }): Promise<string[]> {
      if ("fileName" in ref) {
        const rows = await db
          .selectDistinct({ id: invoices.id })
          .from(invoices)
          .leftJoin(invoiceTransmissions, eq(invoiceTransmissions.invoiceId, invoices.id))
          .where(sql`${invoices.fileName} = ${ref.fileName} or ${invoiceTransmissions.fileName} = ${ref.fileName}`);
        return rows.map((row) => row.id);
      }
      const documentNumber = ref.number.includes("/") ? ref.number : `${invoicing.series}/${ref.number}`;
      const rows = await db
        .select({ id: invoices.id })
        .from(invoices)
        .where(and(eq(invoices.documentNumber, documentNumber), ref.year === undefined ? undefined : eq(invoices.year, ref.year)))
        .orderBy(asc(invoices.year));
      return rows.map((row) => row.id);
    },

    /** An invoice's state, the hand-over's job, and every file it was sent as with SDI's notifications. */
    async status(invoiceId: string) {
      const [invoice] = await db
        .select({
          id: invoices.id,
          type: invoices.type,
          corrects: correctedInvoice.documentNumber,
          year: invoices.year,
          documentNumber: invoices.documentNumber,
          issuedAt: invoices.issuedAt,
          totalCents: invoices.totalCents,
          fileName: invoices.fileName,
          transmittedAt: invoices.transmittedAt,
          orderCode: orders.orderCode,
          paymentCode: payments.paymentCode,
          email: users.email,
          state: stateSql,
          job: { status: jobs.status, attempts: jobs.attempts, runAt: jobs.runAt, lastError: jobs.lastError },
        })
        .from(invoices)
        .innerJoin(orders, eq(orders.id, invoices.orderId))
        .innerJoin(payments, eq(payments.id, invoices.paymentId))
        .innerJoin(users, eq(users.id, invoices.userId))
        .leftJoin(correctedInvoice, correctedJoin)
        .leftJoin(invoiceTransmissions, current)
        .leftJoin(jobs, jobJoin)
        .where(eq(invoices.id, invoiceId));
      if (!invoice) return null;
      const files = await db
        .select()
        .from(invoiceTransmissions)
        .where(eq(invoiceTransmissions.invoiceId, invoiceId))
        .orderBy(asc(invoiceTransmissions.createdAt), asc(invoiceTransmissions.fileName));
      const notifications =
        files.length === 0
          ? []
          : await db
              .select({
                transmissionId: sdiNotifications.transmissionId,
                type: sdiNotifications.type,
                fileName: sdiNotifications.fileName,
                status: sdiNotifications.status,
                readAt: sdiNotifications.readAt,
              })
              .from(sdiNotifications)
              .where(
                inArray(
                  sdiNotifications.transmissionId,
                  files.map((f) => f.id),
                ),
              )
              .orderBy(asc(sdiNotifications.readAt), asc(sdiNotifications.fileName));
      const latest = files.find((f) => f.fileName === invoice.fileName);
      return {
        ...invoice,
        /** A rejected invoice: the last day its corrected file may go with the same number and date. */
        lastResendDay: invoice.state === "rejected" && latest?.outcomeAt ? addDays(romeDay(latest.outcomeAt), RESEND_DAYS) : null,
        files: files.map(({ xml: _, invoiceId: __, ...file }) => ({
          ...file,
          notifications: notifications.filter((n) => n.transmissionId === file.id).map(({ transmissionId: _, ...n }) => n),
        })),
      };
    },

    /** The invoices in a state (all when none is given), dated from `from` (included) to `to` (excluded, YYYY-MM-DD), in number order. */
    list({ state, from, to }: { state?: InvoiceState; from?: string; to?: string }) {
      return db
        .select({
          type: invoices.type,
          corrects: correctedInvoice.documentNumber,
          documentNumber: invoices.documentNumber,
          date: invoices.date,
          totalCents: invoices.totalCents,
          fileName: invoices.fileName,
          orderCode: orders.orderCode,
          state: stateSql,
          sentAt: invoices.transmittedAt,
          outcomeAt: invoiceTransmissions.outcomeAt,
          errors: invoiceTransmissions.errors,
        })
        .from(invoices)
        .innerJoin(orders, eq(orders.id, invoices.orderId))
        .leftJoin(correctedInvoice, correctedJoin)
        .leftJoin(invoiceTransmissions, current)
        .leftJoin(jobs, jobJoin)
        .where(
          and(
            state ? sql`${stateSql} = ${state}` : undefined,
            from ? gte(invoices.date, from) : undefined,
            to ? lt(invoices.date, to) : undefined,
          ),
        )
        .orderBy(creditNotesLast, asc(invoices.year), asc(invoices.number));
    },

    /**
     * Sends an invoice again. Rejected by SDI (NS): within RESEND_DAYS of the rejection, the
     * order's billing details corrected as given, a new file written from them by the same function
     * that issued it, under a new file name and progressive, with the same number and date; the
     * rejected file stays among the invoice's files. Never taken by the transmitter (its job gave
     * up): the same file, its tries counted anew. Either way the transmit job sends it; a rejected
     * file's errors that were the seller's are mended in the configuration first.
     */
    async resend(invoiceId: string, correction: BuyerCorrection = {}): Promise<ResendResult> {
      const fields = (Object.keys(correction) as (keyof BuyerCorrection)[]).filter((k) => correction[k] !== undefined);
      try {
        return await db.transaction(async (tx): Promise<ResendResult> => {
          const at = now();
          const [invoice] = await tx
            .select({
              id: invoices.id,
              paymentId: invoices.paymentId,
              refundId: invoices.refundId,
              correctsInvoiceId: invoices.correctsInvoiceId,
              orderId: invoices.orderId,
              documentNumber: invoices.documentNumber,
              date: invoices.date,
              fileName: invoices.fileName,
            })
            .from(invoices)
            .where(eq(invoices.id, invoiceId))
            .for("update");
          if (!invoice) throw new Error(`No invoice ${invoiceId}`);
          const { state, rejectedAt } = await stateOf(tx, invoiceId);
          const requeue = async () => {
            if ((await requeueJob(tx, { ...transmitJob(invoiceId), runAt: at }, at)) === "running") {
              throw new Refused({ ok: false, reason: "being_sent" });
            }
          };

          if (state === "send_failed") {
            if (fields.length > 0) return { ok: false, reason: "correction_not_rejected" };
            await requeue();
            return { ok: true, kind: "retried", fileName: invoice.fileName };
          }
          if (state !== "rejected") return { ok: false, reason: "nothing_to_resend", state };
          const lastDay = addDays(romeDay(rejectedAt!), RESEND_DAYS);
          if (romeDay(at) > lastDay) return { ok: false, reason: "too_late", rejectedAt: rejectedAt!, lastDay };

          if (fields.length > 0) {
            const [order] = await tx.select({ billing: orders.billing }).from(orders).where(eq(orders.id, invoice.orderId));
            if (!order?.billing) return { ok: false, reason: "not_invoiceable" };
            const fixed = corrected(order.billing, correction);
            if (!fixed.ok) return fixed;
            await tx.update(orders).set({ billing: fixed.billing, updatedAt: at }).where(eq(orders.id, invoice.orderId));
          }
          if (!invoicing.seller) throw new InvoicingNotConfigured(invoicing.missing);
          const file = await documentAgain(tx, invoicing.seller, invoice);
          // Refunded since: no invoice is due any more (its accountant cancels the rejected one).
          if (!file) throw new Refused({ ok: false, reason: "not_invoiceable" });
          await tx.insert(invoiceTransmissions).values({ invoiceId, fileName: file.fileName, xml: file.xml, createdAt: at });
          await tx
            .update(invoices)
            .set({ fileName: file.fileName, xml: file.xml, transmittedAt: null })
            .where(eq(invoices.id, invoiceId));
          await requeue();
          return { ok: true, kind: "corrected", fileName: file.fileName, rejectedFileName: invoice.fileName, corrected: fields };
        });
      } catch (error) {
        if (error instanceof Refused) return error.refusal;
        throw error;
      }
    },
  };
}
