// E-invoices (README, "E-invoices (FatturaPA)"). A payment of an order whose customer asked for an
// invoice queues `invoices.issue` in the payment's own transaction (enqueueInvoice, called by
// insertPayment), so a crash loses none. The invoice is dated the payment's day in Rome and
// numbered in that day's year (decision 021), in one transaction: the year's counter is locked
// first, so a number exists only when its invoice commits (no gaps) and concurrent invoices go
// one after the other (no duplicates); under that lock the payments made before this one whose
// invoices are still due from their jobs are issued first, so numbers follow the payments' order
// (and dates) however the jobs run. A payment invoiced twice at once ends with one invoice
// (unique payment). The same transaction queues `invoices.transmit`, which hands the file to the
// SDI transmitter until it takes it; what SDI then says of it is server/invoices/sdi-outcomes.ts's.
import { and, asc, count, eq, gte, inArray, isNull, lt, sql } from "drizzle-orm";
import type { Config, InvoiceSeller } from "../config.ts";
import type { Database, Queryable, Transaction } from "../db/client.ts";
import { invoiceCounters, invoiceTransmissionSeq, invoices, jobs, orders, payments } from "../db/schema.ts";
import { enqueueJob, type JobRunner } from "../jobs/runner.ts";
import type { Clock } from "../lib/clock.ts";
import { isOrderCode } from "../lib/ids.ts";
import type { Logger } from "../logger.ts";
import { DAY_MS, fromRomeWallClock, romeDay } from "../../shared/subscription.ts";
import { fatturaPaXml, stampDutyDue } from "./fatturapa.ts";
import { invoiceDataOf, type InvoiceData } from "./invoice-data.ts";
import { markSent, transmissionOf } from "./transmissions.ts";
import type { InvoiceTransmitter } from "./transmitter.ts";

const ISSUE_QUEUE = "invoices.issue";
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
    super(`E-invoices cannot be issued: set ${missing.join(", ")} (README, "E-invoices (FatturaPA)")`);
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

/** Locks the year's counter (made at 0 the first time) and answers its last number. */
async function lockYear(tx: Transaction, year: number): Promise<number> {
  const [counter] = await tx
    .insert(invoiceCounters)
    .values({ year, lastNumber: 0 })
    .onConflictDoUpdate({ target: invoiceCounters.year, set: { lastNumber: sql`${invoiceCounters.lastNumber}` } })
    .returning({ lastNumber: invoiceCounters.lastNumber });
  return counter!.lastNumber;
}

type DuePayment = { id: string; paidAt: Date };

/**
 * The payments of the same year made before `payment` that still lack their invoice and whose
 * job is still to issue it (queued or running; one that gave up is left to the operator), in the
 * order they were made. Read under the year's lock, they get their numbers before this one. Read
 * from the due jobs (an index, and few rows), never from the year's payments.
 */
function dueBefore(tx: Transaction, payment: DuePayment, year: number): Promise<DuePayment[]> {
  return tx
    .select({ id: payments.id, paidAt: payments.paidAt })
    .from(jobs)
    .innerJoin(payments, eq(payments.id, sql`(${jobs.payload}->>'paymentId')::uuid`))
    .leftJoin(invoices, eq(invoices.paymentId, payments.id))
    .where(
      and(
        inArray(jobs.status, ["queued", "running"]),
        eq(jobs.queue, ISSUE_QUEUE),
        isNull(invoices.id),
        gte(payments.paidAt, romeYear(year).from),
        lt(payments.paidAt, payment.paidAt),
      ),
    )
    .orderBy(asc(payments.paidAt), asc(payments.id));
}

/** Queues the invoice of a payment, in the payment's transaction, when its order asked for one. */
export async function enqueueInvoice(tx: Queryable, { paymentId, orderId }: { paymentId: string; orderId: string }, at: Date) {
  const [order] = await tx.select({ hasBilling: orders.hasBilling }).from(orders).where(eq(orders.id, orderId));
  if (!order?.hasBilling) return;
  await enqueueJob(tx, { queue: ISSUE_QUEUE, key: `invoice:${paymentId}`, payload: { paymentId }, runAt: at }, at);
}

/** The next SDI file name's progressive: 5 capitals or digits (base 36), unique among the seller's files. */
export async function nextProgressive(tx: Queryable): Promise<string> {
  const next = (await tx.execute(sql`select nextval(${invoiceTransmissionSeq.seqName}) as seq`)) as unknown as {
    rows: [{ seq: string | number }];
  };
  return Number(next.rows[0].seq).toString(36).toUpperCase().padStart(5, "0");
}

/**
 * An invoice's file for SDI: its name and its XML. What `issue` writes, and what a corrected
 * invoice is written again with (server/invoices/sdi-outcomes.ts: the same number and date, a new progressive).
 */
export function invoiceFile(
  seller: InvoiceSeller,
  data: InvoiceData,
  { progressive, number, date }: { progressive: string; number: string; date: string },
) {
  return {
    fileName: `IT${seller.vat}_${progressive}.xml`,
    xml: fatturaPaXml({
      type: "TD01",
      seller,
      buyer: data.buyer,
      progressive,
      number,
      date,
      lines: data.lines,
      notes: data.notes,
    }),
  };
}

export type InvoicesOptions = {
  db: Database;
  invoicing: Config["invoicing"];
  runner: JobRunner;
  transmitter: InvoiceTransmitter;
  now: Clock;
  log?: Logger;
};

export function createInvoices({ db, invoicing, runner, transmitter, now, log }: InvoicesOptions) {
  const byPayment = async (paymentId: string) => {
    const [row] = await db.select().from(invoices).where(eq(invoices.paymentId, paymentId));
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
    return { payment, year: Number(date.slice(0, 4)) };
  }

  /**
   * Writes the invoice of a payment with the number after `last`; null when it calls for none.
   * Dated the payment's day: the number is taken in that day's year (a payment at 23:59 on 31
   * December is that year's last invoice, whenever its job runs).
   */
  async function writeInvoice(tx: Transaction, payment: DuePayment, last: number) {
    const seller = invoicing.seller!;
    const data = await invoiceDataOf(tx, payment.id);
    if (!data) return null;
    const date = romeDay(payment.paidAt);
    const number = last + 1;
    const documentNumber = `${invoicing.series}/${number}`;
    const at = now();
    const { fileName, xml } = invoiceFile(seller, data, { progressive: await nextProgressive(tx), number: documentNumber, date });
    const [row] = await tx
      .insert(invoices)
      .values({
        year: Number(date.slice(0, 4)),
        number,
        documentNumber,
        paymentId: payment.id,
        orderId: data.orderId,
        userId: data.userId,
        date,
        issuedAt: at,
        totalCents: data.lines.reduce((sum, line) => sum + line.grossCents, 0),
        stampDuty: stampDutyDue(seller, data.lines),
        fileName,
        xml,
        createdAt: at,
      })
      .onConflictDoNothing({ target: invoices.paymentId })
      .returning();
    if (!row) throw new IssuedMeanwhile();
    await enqueueJob(tx, { ...transmitJob(row.id), runAt: at }, at);
    return row;
  }

  /**
   * The invoice of a payment: written now if it has none, null if it calls for none. Safe to
   * repeat and to race. Refused (LateInvoice) past the 12 days of an immediate invoice, unless
   * `late`: the operator issues it so once the accountant has decided.
   */
  async function issue(paymentId: string, { late = false }: { late?: boolean } = {}) {
    const existing = await byPayment(paymentId);
    if (existing) return existing;
    const dated = await dateOf(paymentId, late);
    if (!dated) return null;
    if (!invoicing.seller) throw new InvoicingNotConfigured(invoicing.missing);
    const { payment, year } = dated;
    try {
      return await db.transaction(async (tx) => {
        let last = await lockYear(tx, year);
        // Under the lock: issued meanwhile by a payment after it, which numbered it first.
        const [done] = await tx.select({ id: invoices.id }).from(invoices).where(eq(invoices.paymentId, paymentId));
        if (done) throw new IssuedMeanwhile();
        for (const earlier of await dueBefore(tx, payment, year)) {
          if (romeDay(now()) > issueDeadline(romeDay(earlier.paidAt))) continue; // its own job refuses it
          if (await writeInvoice(tx, earlier, last)) last += 1;
        }
        const row = await writeInvoice(tx, payment, last);
        if (row) last += 1;
        await tx.update(invoiceCounters).set({ lastNumber: last }).where(eq(invoiceCounters.year, year));
        return row;
      });
    } catch (error) {
      if (error instanceof IssuedMeanwhile) return byPayment(paymentId);
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
    await db.transaction((tx) => markSent(tx, invoiceId, row.fileName, now()));
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
  runner.handle(TRANSMIT_QUEUE, ({ invoiceId }: { invoiceId: string }) => transmit(invoiceId));

  return {
    issue,
    transmit,
    /** The customer's invoice of one of their payments, as a file; null when not theirs or none. */
    async download(userId: string, orderCode: string, paymentCode: string) {
      if (!isOrderCode(orderCode) || !isOrderCode(paymentCode)) return null;
      const [row] = await db
        .select({ fileName: invoices.fileName, xml: invoices.xml })
        .from(invoices)
        .innerJoin(payments, eq(payments.id, invoices.paymentId))
        .innerJoin(orders, eq(orders.id, invoices.orderId))
        .where(and(eq(orders.orderCode, orderCode), eq(payments.paymentCode, paymentCode), eq(orders.userId, userId)));
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
        .leftJoin(invoices, eq(invoices.paymentId, payments.id))
        .where(and(eq(orders.hasBilling, true), gte(payments.paidAt, from), lt(payments.paidAt, to), isNull(invoices.id)))
        .orderBy(asc(payments.paidAt), asc(payments.id));
      return rows.map((row) => row.id);
    },
    /** The invoices dated from `from` (included) to `to` (excluded), days as YYYY-MM-DD, in number order. */
    between(from: string, to: string) {
      return db
        .select({
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
        .where(and(gte(invoices.date, from), lt(invoices.date, to)))
        .orderBy(asc(invoices.year), asc(invoices.number));
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
