// E-invoices (README, "E-invoices (FatturaPA)"). A payment of an order whose customer asked for an
// invoice queues `invoices.issue` in the payment's own transaction (enqueueInvoice, called by
// insertPayment), so a crash loses none. The job numbers and writes the invoice in one
// transaction: the year's counter goes up by one upsert there, so a number exists only when its
// invoice commits (no gaps), the counter's row lock puts concurrent invoices one after the other
// (no duplicates), and a payment invoiced twice at once ends with one invoice (unique payment):
// the loser rolls back, its number with it. The same transaction queues `invoices.transmit`,
// which hands the file to the SDI transmitter until it takes it.
import { and, asc, eq, gte, isNull, lt, sql } from "drizzle-orm";
import type { Config, InvoiceSeller } from "../config.ts";
import type { Database, Queryable } from "../db/client.ts";
import { invoiceCounters, invoiceTransmissionSeq, invoices, orders, payments } from "../db/schema.ts";
import { enqueueJob, type JobRunner } from "../jobs/runner.ts";
import type { Clock } from "../lib/clock.ts";
import { isOrderCode } from "../lib/ids.ts";
import { romeDay } from "../../shared/subscription.ts";
import { fatturaPaXml } from "./fatturapa.ts";
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
    xml: fatturaPaXml({ seller, buyer: data.buyer, progressive, number, date, lines: data.lines, notes: data.notes }),
  };
}

export type InvoicesOptions = {
  db: Database;
  invoicing: Config["invoicing"];
  runner: JobRunner;
  transmitter: InvoiceTransmitter;
  now: Clock;
};

export function createInvoices({ db, invoicing, runner, transmitter, now }: InvoicesOptions) {
  const byPayment = async (paymentId: string) => {
    const [row] = await db.select().from(invoices).where(eq(invoices.paymentId, paymentId));
    return row ?? null;
  };

  /** The invoice of a payment: written now if it has none, null if it calls for none. Safe to repeat and to race. */
  async function issue(paymentId: string) {
    const existing = await byPayment(paymentId);
    if (existing) return existing;
    const data = await invoiceDataOf(db, paymentId);
    if (!data) return null;
    const seller = invoicing.seller;
    if (!seller) throw new InvoicingNotConfigured(invoicing.missing);
    const year = Number(romeDay(now()).slice(0, 4));
    try {
      return await db.transaction(async (tx) => {
        const [counter] = await tx
          .insert(invoiceCounters)
          .values({ year, lastNumber: 1 })
          .onConflictDoUpdate({ target: invoiceCounters.year, set: { lastNumber: sql`${invoiceCounters.lastNumber} + 1` } })
          .returning({ number: invoiceCounters.lastNumber });
        const number = counter!.number;
        // Dated once the counter is held, so that later numbers never carry earlier dates.
        const at = now();
        const date = romeDay(at);
        if (!date.startsWith(`${year}-`)) throw new Error("The year turned while the invoice was being numbered: try again");
        const documentNumber = `${invoicing.series}/${number}`;
        const { fileName, xml } = invoiceFile(seller, data, {
          progressive: await nextProgressive(tx),
          number: documentNumber,
          date,
        });
        const [row] = await tx
          .insert(invoices)
          .values({
            year,
            number,
            documentNumber,
            paymentId,
            orderId: data.orderId,
            userId: data.userId,
            issuedAt: at,
            totalCents: data.lines.reduce((sum, line) => sum + line.grossCents, 0),
            fileName,
            xml,
            createdAt: at,
          })
          .onConflictDoNothing({ target: invoices.paymentId })
          .returning();
        if (!row) throw new IssuedMeanwhile();
        await enqueueJob(tx, { ...transmitJob(row.id), runAt: at }, at);
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
    await issue(paymentId);
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
    /** The invoices issued from `from` (included) to `to` (excluded), in number order. */
    between(from: Date, to: Date) {
      return db
        .select({
          year: invoices.year,
          number: invoices.number,
          documentNumber: invoices.documentNumber,
          issuedAt: invoices.issuedAt,
          totalCents: invoices.totalCents,
          fileName: invoices.fileName,
          xml: invoices.xml,
          transmittedAt: invoices.transmittedAt,
          orderCode: orders.orderCode,
          paymentCode: payments.paymentCode,
        })
        .from(invoices)
        .innerJoin(orders, eq(orders.id, invoices.orderId))
        .innerJoin(payments, eq(payments.id, invoices.paymentId))
        .where(and(gte(invoices.issuedAt, from), lt(invoices.issuedAt, to)))
        .orderBy(asc(invoices.year), asc(invoices.number));
    },
  };
}
