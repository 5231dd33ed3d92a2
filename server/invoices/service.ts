// E-invoices (docs/e-invoices.md). A payment of an order whose customer asked for an
// invoice queues `invoices.issue` in the payment's own transaction (enqueueInvoice, called by
// insertPayment), so a crash loses none. The invoice is dated the payment's day in Rome and
// numbered in that day's year (decision 021), in one transaction: the year's counter is locked
// first, so a number exists only when its invoice commits (no gaps) and concurrent invoices go
// one after the other (no duplicates); under that lock the payments made before this one whose
// invoices are still due from their jobs are issued first, so numbers follow the payments' order
// (and dates) however the jobs run. A payment invoiced twice at once ends with one invoice
// (unique payment). The same transaction queues `invoices.transmit`, which hands the file to the
// SDI transmitter until it takes it; what SDI then says of it is server/invoices/sdi-outcomes.ts's.
//
// A refund of an invoiced payment that succeeds queues `invoices.credit-note` in the transaction
// that records it (enqueueCreditNote): a credit note (TD04) for what went back, naming the
// invoice it corrects, dated the day the money went back and numbered the same way in its own
// yearly series or among the invoices (CREDIT_NOTE_SERIES, decision 025).
import { and, asc, count, eq, gte, inArray, isNull, lt, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import type { Config, InvoiceSeller } from "#server/config.ts";
import type { Database, Queryable, Transaction } from "#server/db/client.ts";
import {
  invoiceCounters,
  invoiceTransmissionSeq,
  invoices,
  jobs,
  orders,
  paymentRefunds,
  payments,
  type InvoiceNumbering,
} from "#server/db/schema/index.ts";
import { enqueueJob, type JobRunner } from "#server/jobs/runner.ts";
import type { Clock } from "#server/lib/clock.ts";
import { isOrderCode } from "#server/lib/ids.ts";
import type { Logger } from "#server/logger.ts";
import type { Metrics } from "#server/metrics.ts";
import { DAY_MS } from "#shared/subscription.ts";
import { fromRomeWallClock, romeDay } from "#shared/rome-clock.ts";
import { fatturaPaXml, stampDutyDue, type CorrectedInvoice } from "./fatturapa.ts";
import { creditNoteDataOf, invoiceDataOf, type InvoiceData } from "./invoice-data.ts";
import { markSent, transmissionOf } from "./transmissions.ts";
import type { InvoiceTransmitter } from "./transmitter.ts";

const ISSUE_QUEUE = "invoices.issue";
const CREDIT_NOTE_QUEUE = "invoices.credit-note";
const TRANSMIT_QUEUE = "invoices.transmit";

/** The job that hands an invoice's latest file to SDI: one per invoice, queued again for a file sent again. */
export const transmitJob = (invoiceId: string) => ({
  queue: TRANSMIT_QUEUE,
  key: `invoice-transmit:${invoiceId}`,
  payload: { invoiceId },
});

/** Production lacks the seller's data: no invoice is made up. */
export class InvoicingNotConfigured extends Error {
  override name = "InvoicingNotConfigured";
  constructor(missing: string[]) {
    super(`E-invoices cannot be issued: set ${missing.join(", ")} (docs/e-invoices.md)`);
  }
}

/** The payment's invoice was written by someone else meanwhile: roll back the number taken. */
class IssuedMeanwhile extends Error {}

/**
 * An immediate invoice is issued within 12 days of the payment (art. 21 c. 4 DPR 633/72), dated
 * the payment's day: after that it is a late invoice, which the accountant regularises.
 */
const IMMEDIATE_INVOICE_DAYS = 12;

/** The payment is past the days an immediate invoice allows: issuing it now is the accountant's call. */
export class LateInvoice extends Error {
  override name = "LateInvoice";
  readonly payment: { id: string; paymentCode: string; orderCode: string; date: string; deadline: string };
  constructor(payment: LateInvoice["payment"]) {
    super(`The invoice of payment ${payment.paymentCode} (${payment.date}) was due by ${payment.deadline}`);
    this.payment = payment;
  }
}

/** The last day an immediate invoice of a payment made on `day` (YYYY-MM-DD) may be issued. */
function issueDeadline(day: string): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + IMMEDIATE_INVOICE_DAYS * DAY_MS).toISOString().slice(0, 10);
}

/** The instants at which a Rome calendar year starts and the next one does. */
const romeYear = (year: number) => ({
  from: fromRomeWallClock(new Date(Date.UTC(year, 0, 1))),
  to: fromRomeWallClock(new Date(Date.UTC(year + 1, 0, 1))),
});

/** Locks a numbering's counter of the year (made at 0 the first time) and answers its last number. */
async function lockYear(tx: Transaction, numbering: InvoiceNumbering, year: number): Promise<number> {
  const [counter] = await tx
    .insert(invoiceCounters)
    .values({ numbering, year, lastNumber: 0 })
    .onConflictDoUpdate({
      target: [invoiceCounters.numbering, invoiceCounters.year],
      set: { lastNumber: sql`${invoiceCounters.lastNumber}` },
    })
    .returning({ lastNumber: invoiceCounters.lastNumber });
  return counter!.lastNumber;
}

/** A document still due from its job, and the instant it is dated by (the payment, the refund's success). */
type DueDocument = { kind: "invoice" | "credit_note"; id: string; at: Date };

/**
 * The payments of the year made before `before` that still lack their invoice and whose job is
 * still to issue it (queued or running; one that gave up is left to the operator). Read from
 * the due jobs (an index, and few rows), never from the year's payments.
 */
async function dueInvoices(tx: Transaction, year: number, before: Date): Promise<DueDocument[]> {
  const rows = await tx
    .select({ id: payments.id, at: payments.paidAt })
    .from(jobs)
    .innerJoin(payments, eq(payments.id, sql`(${jobs.payload}->>'paymentId')::uuid`))
    .leftJoin(invoices, and(eq(invoices.paymentId, payments.id), eq(invoices.type, "TD01")))
    .where(
      and(
        inArray(jobs.status, ["queued", "running"]),
        eq(jobs.queue, ISSUE_QUEUE),
        isNull(invoices.id),
        gte(payments.paidAt, romeYear(year).from),
        lt(payments.paidAt, before),
      ),
    );
  return rows.map((row) => ({ kind: "invoice", ...row }));
}

/** The refunds of the year that succeeded before `before` and whose credit note is still due from its job. */
async function dueCreditNotes(tx: Transaction, year: number, before: Date): Promise<DueDocument[]> {
  const rows = await tx
    .select({ id: paymentRefunds.id, at: paymentRefunds.completedAt })
    .from(jobs)
    .innerJoin(paymentRefunds, eq(paymentRefunds.id, sql`(${jobs.payload}->>'refundId')::uuid`))
    .leftJoin(invoices, eq(invoices.refundId, paymentRefunds.id))
    .where(
      and(
        inArray(jobs.status, ["queued", "running"]),
        eq(jobs.queue, CREDIT_NOTE_QUEUE),
        isNull(invoices.id),
        gte(paymentRefunds.completedAt, romeYear(year).from),
        lt(paymentRefunds.completedAt, before),
      ),
    );
  return rows.map((row) => ({ kind: "credit_note", id: row.id, at: row.at! }));
}

/** Listings' first order: invoices, then credit notes when these have a numbering of their own (by name it would be the other way). */
export const creditNotesLast = sql`${invoices.numbering} = 'credit_notes'`;

/** Queues the invoice of a payment, in the payment's transaction, when its order asked for one. */
export async function enqueueInvoice(tx: Queryable, { paymentId, orderId }: { paymentId: string; orderId: string }, at: Date) {
  const [order] = await tx.select({ hasBilling: orders.hasBilling }).from(orders).where(eq(orders.id, orderId));
  if (!order?.hasBilling) return;
  await enqueueJob(tx, { queue: ISSUE_QUEUE, key: `invoice:${paymentId}`, payload: { paymentId }, runAt: at }, at);
}

/** The next SDI file name's progressive: 5 capitals or digits (base 36), unique among the seller's files. */
async function nextProgressive(tx: Queryable): Promise<string> {
  const next = (await tx.execute(sql`select nextval(${invoiceTransmissionSeq.seqName}) as seq`)) as unknown as {
    rows: [{ seq: string | number }];
  };
  return Number(next.rows[0].seq).toString(36).toUpperCase().padStart(5, "0");
}

/** Queues the credit note of a refund that succeeded, in the transaction that records it, when its order asked for invoices. */
export async function enqueueCreditNote(tx: Queryable, refund: { id: string; paymentId: string }, at: Date) {
  const [order] = await tx
    .select({ hasBilling: orders.hasBilling })
    .from(payments)
    .innerJoin(orders, eq(orders.id, payments.orderId))
    .where(eq(payments.id, refund.paymentId));
  if (!order?.hasBilling) return;
  await enqueueJob(
    tx,
    { queue: CREDIT_NOTE_QUEUE, key: `credit-note:${refund.id}`, payload: { refundId: refund.id }, runAt: at },
    at,
  );
}

/**
 * A document's file for SDI: its name and its XML; a credit note when it names the invoice it
 * `corrects`. What `issue` and `issueCreditNote` write, and what a corrected document is written
 * again with (server/invoices/sdi-outcomes.ts: the same number and date, a new progressive).
 */
function invoiceFile(
  seller: InvoiceSeller,
  data: InvoiceData,
  { progressive, number, date, corrects }: { progressive: string; number: string; date: string; corrects?: CorrectedInvoice },
) {
  const document = { seller, buyer: data.buyer, progressive, number, date, lines: data.lines, notes: data.notes };
  return {
    fileName: `IT${seller.vat}_${progressive}.xml`,
    xml: fatturaPaXml(corrects ? { ...document, type: "TD04", corrects } : { ...document, type: "TD01" }),
  };
}

/** The invoice a credit note corrects, as its DatiFattureCollegate names it. */
export async function correctedInvoice(tx: Queryable, invoiceId: string): Promise<CorrectedInvoice> {
  const [invoice] = await tx
    .select({ number: invoices.documentNumber, date: invoices.date })
    .from(invoices)
    .where(eq(invoices.id, invoiceId));
  return invoice!;
}

/**
 * A document written again as it is now due (its buyer's details corrected): an invoice from its
 * payment, a credit note from its refund; null when it is due no more (the payment was refunded).
 */
export async function documentAgain(
  tx: Queryable,
  seller: InvoiceSeller,
  document: {
    paymentId: string;
    refundId: string | null;
    correctsInvoiceId: string | null;
    documentNumber: string;
    date: string;
  },
) {
  const data = document.refundId ? await creditNoteDataOf(tx, document.refundId) : await invoiceDataOf(tx, document.paymentId);
  if (!data) return null;
  const corrects = document.correctsInvoiceId ? await correctedInvoice(tx, document.correctsInvoiceId) : undefined;
  return invoiceFile(seller, data, {
    progressive: await nextProgressive(tx),
    number: document.documentNumber,
    date: document.date,
    corrects,
  });
}

export type InvoicesOptions = {
  db: Database;
  invoicing: Config["invoicing"];
  runner: JobRunner;
  transmitter: InvoiceTransmitter;
  now: Clock;
  log?: Logger;
  /** Where the documents issued and the files handed to SDI are counted, once committed (server/metrics.ts). */
  metrics?: Metrics;
};

export function createInvoices({ db, invoicing, runner, transmitter, now, log, metrics }: InvoicesOptions) {
  const invoiceNumbering = { numbering: "invoices", series: invoicing.series } as const;
  /** Credit notes' numbering: a series of their own, or the invoices' when CREDIT_NOTE_SERIES is INVOICE_SERIES. */
  const creditNoteNumbering: { numbering: InvoiceNumbering; series: string } =
    invoicing.creditNoteSeries === invoicing.series
      ? invoiceNumbering
      : { numbering: "credit_notes", series: invoicing.creditNoteSeries };

  const invoiceOf = async (paymentId: string) => {
    const [row] = await db
      .select()
      .from(invoices)
      .where(and(eq(invoices.paymentId, paymentId), eq(invoices.type, "TD01")));
    return row ?? null;
  };
  const creditNoteOf = async (refundId: string) => {
    const [row] = await db.select().from(invoices).where(eq(invoices.refundId, refundId));
    return row ?? null;
  };

  /** The payment's day in Rome and its deadline, refused with LateInvoice when past it (unless `late`). */
  async function dateOf(paymentId: string, late: boolean) {
    const [payment] = await db
      .select({ id: payments.id, paidAt: payments.paidAt, paymentCode: payments.paymentCode, orderCode: orders.orderCode })
      .from(payments)
      .innerJoin(orders, eq(orders.id, payments.orderId))
      .where(eq(payments.id, paymentId));
    if (!payment) return null;
    const date = romeDay(payment.paidAt);
    const deadline = issueDeadline(date);
    if (!late && romeDay(now()) > deadline) {
      const { id, paymentCode, orderCode } = payment;
      throw new LateInvoice({ id, paymentCode, orderCode, date, deadline });
    }
    return payment;
  }

  /**
   * Writes a document numbered after `last` in its numbering, dated `date` (its number is taken
   * in that day's year), with the job that sends it to SDI. Throws IssuedMeanwhile when its
   * payment already has its invoice, or its refund its credit note.
   */
  async function writeDocument(
    tx: Transaction,
    { series, numbering }: { series: string; numbering: InvoiceNumbering },
    data: InvoiceData & { refundId?: string },
    { date, last, corrects }: { date: string; last: number; corrects?: CorrectedInvoice & { id: string } },
  ) {
    const seller = invoicing.seller!;
    const number = last + 1;
    const documentNumber = `${series}/${number}`;
    const at = now();
    const progressive = await nextProgressive(tx);
    const { fileName, xml } = invoiceFile(seller, data, { progressive, number: documentNumber, date, corrects });
    const insert = tx.insert(invoices).values({
      type: corrects ? "TD04" : "TD01",
      numbering,
      year: Number(date.slice(0, 4)),
      number,
      documentNumber,
      paymentId: data.paymentId,
      refundId: data.refundId ?? null,
      correctsInvoiceId: corrects?.id ?? null,
      orderId: data.orderId,
      userId: data.userId,
      date,
      issuedAt: at,
      totalCents: data.lines.reduce((sum, line) => sum + line.grossCents, 0),
      stampDuty: stampDutyDue(seller, data.lines),
      fileName,
      xml,
      createdAt: at,
    });
    const [row] = await (
      corrects
        ? insert.onConflictDoNothing({ target: invoices.refundId })
        : insert.onConflictDoNothing({ target: invoices.paymentId, where: sql`type = 'TD01'` })
    ).returning();
    if (!row) throw new IssuedMeanwhile();
    await enqueueJob(tx, { ...transmitJob(row.id), runAt: at }, at);
    return row;
  }

  /**
   * Writes the invoice of a payment; null when it calls for none. Dated the payment's day: a
   * payment at 23:59 on 31 December is that year's last invoice, whenever its job runs.
   */
  async function writeInvoice(tx: Transaction, payment: { id: string; paidAt: Date }, last: number) {
    const data = await invoiceDataOf(tx, payment.id);
    if (!data) return null;
    return writeDocument(tx, invoiceNumbering, data, { date: romeDay(payment.paidAt), last });
  }

  /**
   * Writes the credit note of a refund, naming its payment's invoice; null when it calls for
   * none, or when that invoice is not issued yet (the credit note's own job issues it first).
   * Dated the day the money went back.
   */
  async function writeCreditNote(tx: Transaction, refundId: string, last: number) {
    const data = await creditNoteDataOf(tx, refundId);
    if (!data) return null;
    const [invoice] = await tx
      .select({ id: invoices.id, number: invoices.documentNumber, date: invoices.date })
      .from(invoices)
      .where(and(eq(invoices.paymentId, data.paymentId), eq(invoices.type, "TD01")));
    if (!invoice) return null;
    return writeDocument(tx, creditNoteNumbering, data, { date: romeDay(data.completedAt), last, corrects: invoice });
  }

  /**
   * Numbers a document (`write`, given the last number taken) in its numbering's year, in one
   * transaction under the year's counter, after the documents of that numbering still due from
   * their jobs that are dated before it (`at`): numbers follow the dates however the jobs run.
   */
  async function numbered<T extends { type: string }>(
    numbering: InvoiceNumbering,
    at: Date,
    write: (tx: Transaction, last: number) => Promise<T | null>,
  ): Promise<T | null> {
    const year = Number(romeDay(at).slice(0, 4));
    /** The documents this transaction wrote, counted once it has committed. */
    let written = { invoice: 0, credit_note: 0 };
    const row = await db.transaction(async (tx) => {
      written = { invoice: 0, credit_note: 0 }; // a transaction tried again starts over
      let last = await lockYear(tx, numbering, year);
      const due = [
        ...(numbering === invoiceNumbering.numbering ? await dueInvoices(tx, year, at) : []),
        ...(numbering === creditNoteNumbering.numbering ? await dueCreditNotes(tx, year, at) : []),
      ].sort((a, b) => a.at.getTime() - b.at.getTime() || (a.id < b.id ? -1 : 1));
      for (const earlier of due) {
        const document =
          earlier.kind === "credit_note"
            ? await writeCreditNote(tx, earlier.id, last)
            : // One past its 12 days is left to its own job, which refuses it.
              romeDay(now()) <= issueDeadline(romeDay(earlier.at)) &&
              (await writeInvoice(tx, { id: earlier.id, paidAt: earlier.at }, last));
        if (document) {
          last += 1;
          written[earlier.kind] += 1;
        }
      }
      const row = await write(tx, last);
      if (row) {
        last += 1;
        written[row.type === "TD04" ? "credit_note" : "invoice"] += 1;
      }
      await tx
        .update(invoiceCounters)
        .set({ lastNumber: last })
        .where(and(eq(invoiceCounters.numbering, numbering), eq(invoiceCounters.year, year)));
      return row;
    });
    for (const [type, n] of Object.entries(written)) if (n > 0) metrics?.invoices.issued.inc({ type }, n);
    return row;
  }

  /**
   * The invoice of a payment: written now if it has none, null if it calls for none. Safe to
   * repeat and to race. Refused (LateInvoice) past the 12 days of an immediate invoice, unless
   * `late`: the operator issues it so once the accountant has decided.
   */
  async function issue(paymentId: string, { late = false }: { late?: boolean } = {}) {
    const existing = await invoiceOf(paymentId);
    if (existing) return existing;
    const payment = await dateOf(paymentId, late);
    if (!payment) return null;
    if (!invoicing.seller) throw new InvoicingNotConfigured(invoicing.missing);
    try {
      return await numbered(invoiceNumbering.numbering, payment.paidAt, (tx, last) => writeInvoice(tx, payment, last));
    } catch (error) {
      if (error instanceof IssuedMeanwhile) return invoiceOf(paymentId);
      throw error;
    }
  }

  /**
   * The credit note of a refund: written now if it has none, null if it calls for none (the
   * refund has not succeeded, or its payment has no invoice: its order asked for none, or it was
   * refunded whole before its invoice was due). Its payment's invoice is issued first when its
   * job has not yet run (LateInvoice, as `issue`, when that invoice is past its 12 days). Safe to
   * repeat and to race.
   */
  async function issueCreditNote(refundId: string, { late = false }: { late?: boolean } = {}) {
    const existing = await creditNoteOf(refundId);
    if (existing) return existing;
    const [refund] = await db
      .select({ paymentId: paymentRefunds.paymentId, state: paymentRefunds.state, completedAt: paymentRefunds.completedAt })
      .from(paymentRefunds)
      .where(eq(paymentRefunds.id, refundId));
    if (refund?.state !== "succeeded" || !refund.completedAt) return null;
    if (!invoicing.seller) throw new InvoicingNotConfigured(invoicing.missing);
    if (!(await issue(refund.paymentId, { late }))) return null;
    try {
      return await numbered(creditNoteNumbering.numbering, refund.completedAt, (tx, last) => writeCreditNote(tx, refundId, last));
    } catch (error) {
      if (error instanceof IssuedMeanwhile) return creditNoteOf(refundId);
      throw error;
    }
  }

  /**
   * Hands an invoice's latest file to the transmitter, once it takes it (the job retries a
   * failure), and records it among the invoice's files (server/invoices/transmissions.ts).
   */
  async function transmit(invoiceId: string) {
    const [row] = await db
      .select({ fileName: invoices.fileName, xml: invoices.xml, transmittedAt: invoices.transmittedAt })
      .from(invoices)
      .where(eq(invoices.id, invoiceId));
    if (!row || row.transmittedAt) return;
    await transmissionOf(db, row.fileName);
    await transmitter.send({ fileName: row.fileName, xml: row.xml });
    if (await db.transaction((tx) => markSent(tx, invoiceId, row.fileName, now()))) metrics?.invoices.transmitted.inc();
  }

  runner.handle(ISSUE_QUEUE, async ({ paymentId }: { paymentId: string }) => {
    try {
      await issue(paymentId);
    } catch (error) {
      // Trying again will not make it on time: the operator's `invoices:issue-missing` lists it.
      if (!(error instanceof LateInvoice)) throw error;
      log?.error(
        { paymentId, deadline: error.payment.deadline },
        "e-invoice not issued: past the 12 days of an immediate invoice",
      );
    }
  });
  runner.handle(CREDIT_NOTE_QUEUE, async ({ refundId }: { refundId: string }) => {
    try {
      await issueCreditNote(refundId);
    } catch (error) {
      if (!(error instanceof LateInvoice)) throw error;
      // `invoices:issue-missing --late` issues the invoice, then the credit note.
      log?.error(
        { refundId, paymentCode: error.payment.paymentCode, deadline: error.payment.deadline },
        "credit note not issued: the invoice it corrects is past the 12 days of an immediate invoice",
      );
    }
  });
  runner.handle(TRANSMIT_QUEUE, ({ invoiceId }: { invoiceId: string }) => transmit(invoiceId));

  return {
    issue,
    issueCreditNote,
    transmit,
    /**
     * The customer's invoice of one of their payments, or with `creditNote` (its year and number,
     * `2026-3`) one of that payment's credit notes, as a file; null when not theirs or none.
     */
    async download(userId: string, orderCode: string, paymentCode: string, creditNote?: string) {
      if (!isOrderCode(orderCode) || !isOrderCode(paymentCode)) return null;
      let which = eq(invoices.type, "TD01");
      if (creditNote !== undefined) {
        const named = /^(\d{4})-(\d{1,9})$/.exec(creditNote);
        if (!named) return null;
        which = and(eq(invoices.type, "TD04"), eq(invoices.year, Number(named[1])), eq(invoices.number, Number(named[2])))!;
      }
      const [row] = await db
        .select({ fileName: invoices.fileName, xml: invoices.xml })
        .from(invoices)
        .innerJoin(payments, eq(payments.id, invoices.paymentId))
        .innerJoin(orders, eq(orders.id, invoices.orderId))
        .where(and(which, eq(orders.orderCode, orderCode), eq(payments.paymentCode, paymentCode), eq(orders.userId, userId)));
      return row ?? null;
    },
    /**
     * The payments made from `from` (included) to `to` (excluded) whose orders asked for an
     * invoice and which have none (their job gave up, or production lacked the seller's data).
     */
    async missingBetween(from: Date, to: Date): Promise<string[]> {
      const rows = await db
        .select({ id: payments.id })
        .from(payments)
        .innerJoin(orders, eq(orders.id, payments.orderId))
        .leftJoin(invoices, and(eq(invoices.paymentId, payments.id), eq(invoices.type, "TD01")))
        .where(and(eq(orders.hasBilling, true), gte(payments.paidAt, from), lt(payments.paidAt, to), isNull(invoices.id)))
        .orderBy(asc(payments.paidAt), asc(payments.id));
      return rows.map((row) => row.id);
    },
    /**
     * The refunds that succeeded from `from` (included) to `to` (excluded) of payments whose
     * orders asked for invoices and which have no credit note (its job gave up, or the invoice it
     * corrects was late).
     */
    async creditNotesMissingBetween(from: Date, to: Date): Promise<string[]> {
      const rows = await db
        .select({ id: paymentRefunds.id })
        .from(paymentRefunds)
        .innerJoin(payments, eq(payments.id, paymentRefunds.paymentId))
        .innerJoin(orders, eq(orders.id, payments.orderId))
        .leftJoin(invoices, eq(invoices.refundId, paymentRefunds.id))
        .where(
          and(
            eq(orders.hasBilling, true),
            eq(paymentRefunds.state, "succeeded"),
            gte(paymentRefunds.completedAt, from),
            lt(paymentRefunds.completedAt, to),
            isNull(invoices.id),
          ),
        )
        .orderBy(asc(paymentRefunds.completedAt), asc(paymentRefunds.id));
      return rows.map((row) => row.id);
    },
    /**
     * The invoices and credit notes dated from `from` (included) to `to` (excluded), days as
     * YYYY-MM-DD, in number order (invoices first when credit notes have their own numbering).
     */
    between(from: string, to: string) {
      const corrected = alias(invoices, "corrected");
      return db
        .select({
          type: invoices.type,
          /** The invoice a credit note corrects. */
          corrects: corrected.documentNumber,
          year: invoices.year,
          number: invoices.number,
          documentNumber: invoices.documentNumber,
          date: invoices.date,
          issuedAt: invoices.issuedAt,
          totalCents: invoices.totalCents,
          stampDuty: invoices.stampDuty,
          fileName: invoices.fileName,
          xml: invoices.xml,
          transmittedAt: invoices.transmittedAt,
          orderCode: orders.orderCode,
          paymentCode: payments.paymentCode,
        })
        .from(invoices)
        .innerJoin(orders, eq(orders.id, invoices.orderId))
        .innerJoin(payments, eq(payments.id, invoices.paymentId))
        .leftJoin(corrected, eq(corrected.id, invoices.correctsInvoiceId))
        .where(and(gte(invoices.date, from), lt(invoices.date, to)))
        .orderBy(creditNotesLast, asc(invoices.year), asc(invoices.number));
    },
    /** How many invoices dated from `from` (included) to `to` (excluded) carry the virtual stamp duty. */
    async stampedBetween(from: string, to: string): Promise<number> {
      const [row] = await db
        .select({ n: count() })
        .from(invoices)
        .where(and(eq(invoices.stampDuty, true), gte(invoices.date, from), lt(invoices.date, to)));
      return row?.n ?? 0;
    },
  };
}
