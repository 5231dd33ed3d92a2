// Operators' commands for e-invoices and their credit notes (TD04, decision 025): the documents of
// a month (by their date: the payments' days in Rome, the refunds' for credit notes), listed and
// written as their XML files into a folder, for the accountant or to send by hand, with the
// quarter's count of invoices carrying the virtual stamp duty; the invoices a month's payments
// lack and the credit notes its refunds lack, issued with their dates while the 12 days of an
// immediate invoice last, and refused, naming the payments, after (decision 021); and what SDI
// said of each document, and sending one again (decision 023).
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { eq } from "drizzle-orm";
import { formatDate } from "#shared/format.ts";
import { fromRomeWallClock, romeDay } from "#shared/rome-clock.ts";
import {
  INVOICE_STATES,
  RESEND_DAYS,
  type BuyerCorrection,
  type InvoiceState,
  type ResendResult,
} from "#server/invoices/sdi-outcomes.ts";
import { correctedInvoice, InvoicingNotConfigured, LateInvoice } from "#server/invoices/service.ts";
import { paymentRefunds, type InvoiceType } from "#server/db/schema/index.ts";
import { OperatorError, recordOperation, type Operator } from "./context.ts";
import { makePrivateDirSync, writePrivateFileSync } from "#server/lib/private-files.ts";

/** `2026-11` → its year and month (0–11), or an OperatorError. */
function parseMonth(month: string) {
  const match = /^(\d{4})-(0[1-9]|1[0-2])$/.exec(month.trim());
  if (!match) throw new OperatorError(`"${month}" is not a month: write it as YYYY-MM`);
  return { year: Number(match[1]), index: Number(match[2]) - 1 };
}

/** The first day of a month, `index` counted from January of `year` (it may run past December), as YYYY-MM-DD. */
const firstDay = (year: number, index: number) => new Date(Date.UTC(year, index, 1)).toISOString().slice(0, 10);

/** `2026-11` → its first day and the first day of the next month, as YYYY-MM-DD (invoices are listed by their date). */
function monthDays(month: string): { from: string; to: string } {
  const { year, index } = parseMonth(month);
  return { from: firstDay(year, index), to: firstDay(year, index + 1) };
}

/** `2026-11` → the first instant of that month in Rome, and of the next. */
export function monthRange(month: string): { from: Date; to: Date } {
  const { year, index } = parseMonth(month);
  return {
    from: fromRomeWallClock(new Date(Date.UTC(year, index, 1))),
    to: fromRomeWallClock(new Date(Date.UTC(year, index + 1, 1))),
  };
}

/** `2026-11` → the quarter it is in: its name, first day, and the first day after it. */
export function quarterOf(month: string): { name: string; from: string; to: string } {
  const { year, index } = parseMonth(month);
  const first = index - (index % 3);
  return { name: `${year}-Q${first / 3 + 1}`, from: firstDay(year, first), to: firstDay(year, first + 3) };
}

type ExportedInvoice = {
  /** TD01 an invoice, TD04 a credit note. */
  type: InvoiceType;
  /** The invoice a credit note corrects. */
  corrects: string | null;
  documentNumber: string;
  /** The document's date: its payment's day (a credit note's: its refund's). */
  date: string;
  issuedAt: Date;
  totalCents: number;
  stampDuty: boolean;
  orderCode: string;
  paymentCode: string;
  fileName: string;
  transmittedAt: Date | null;
};

/** How many documents of each type, and their sum: a credit note's total is money given back, never netted with the invoices'. */
function totalsOf(rows: { type: InvoiceType; totalCents: number }[]) {
  const sum = (type: InvoiceType) => {
    const ofType = rows.filter((row) => row.type === type);
    return { count: ofType.length, totalCents: ofType.reduce((cents, row) => cents + row.totalCents, 0) };
  };
  return { invoices: sum("TD01"), creditNotes: sum("TD04") };
}

/**
 * Writes the month's invoices and credit notes into `dir` (made if missing), one XML file each under its SDI name,
 * readable by the operator only (as the folder when made here): they hold the buyers' personal data.
 * A file already there with the same content is left as it is (the command can be run again); one
 * with other content stops the command before anything is written.
 */
export async function exportInvoices(op: Operator, month: string, dir: string) {
  const { from, to } = monthDays(month);
  const rows = await op.services.invoices.between(from, to);
  const quarter = quarterOf(month);
  const stamped = { quarter: quarter.name, count: await op.services.invoices.stampedBetween(quarter.from, quarter.to) };
  const folder = path.resolve(dir);
  const clash = rows.find((row) => {
    const file = path.join(folder, row.fileName);
    return existsSync(file) && readFileSync(file, "utf8") !== row.xml;
  });
  if (clash) throw new OperatorError(`${path.join(folder, clash.fileName)} exists with other content: choose another --out`);
  makePrivateDirSync(folder);
  for (const row of rows) writePrivateFileSync(path.join(folder, row.fileName), row.xml);
  await recordOperation(op.db, op, "invoices_exported", {
    details: { month, count: rows.length, numbers: rows.map((row) => row.documentNumber) },
  });
  const invoices: ExportedInvoice[] = rows.map(({ xml: _, year: __, number: ___, ...shown }) => shown);
  return { month, folder, invoices, totals: totalsOf(invoices), stamped };
}

type IssuedDocument = { documentNumber: string; date: string; fileName: string; totalCents: number };

/**
 * Issues the invoices the month's payments (by their date in Rome) asked for and lack, each dated
 * its payment's day, then the credit notes its refunds (by the day they succeeded) lack, each
 * naming its invoice, while the 12 days of an immediate invoice last; the payments past them are
 * refused and listed, and so are the credit notes whose invoice is (the accountant decides: a late
 * invoice, then `late` issues them, still with their dates).
 */
export async function issueMissingInvoices(op: Operator, month: string, { late = false }: { late?: boolean } = {}) {
  const { from, to } = monthRange(month);
  const issued: IssuedDocument[] = [];
  const refused: LateInvoice["payment"][] = [];
  let notDue = 0;
  for (const paymentId of await op.services.invoices.missingBetween(from, to)) {
    try {
      const invoice = await op.services.invoices.issue(paymentId, { late });
      if (invoice) {
        const { documentNumber, date, fileName, totalCents } = invoice;
        issued.push({ documentNumber, date, fileName, totalCents });
      } else notDue += 1; // refunded, or paid for an order no longer being bought
    } catch (error) {
      if (!(error instanceof LateInvoice)) throw error;
      refused.push(error.payment);
    }
  }
  const creditNotes: (IssuedDocument & { corrects: string })[] = [];
  /** The refunds whose credit note waits for their payment's late invoice, with the refund's amount and day. */
  const refusedCreditNotes: (LateInvoice["payment"] & { refundedCents: number; refundedOn: string })[] = [];
  for (const refundId of await op.services.invoices.creditNotesMissingBetween(from, to)) {
    try {
      // Null only when its payment was given back whole before an invoice was due: nothing to correct.
      const note = await op.services.invoices.issueCreditNote(refundId, { late });
      if (note) {
        const { documentNumber, date, fileName, totalCents } = note;
        creditNotes.push({
          documentNumber,
          date,
          fileName,
          totalCents,
          corrects: (await correctedInvoice(op.db, note.correctsInvoiceId!)).number,
        });
      }
    } catch (error) {
      if (!(error instanceof LateInvoice)) throw error;
      refusedCreditNotes.push({ ...error.payment, ...(await refundOf(op, refundId)) });
    }
  }
  await recordOperation(op.db, op, "invoices_issued", {
    details: {
      month,
      count: issued.length,
      numbers: issued.map((i) => i.documentNumber),
      ...(creditNotes.length > 0 ? { creditNotes: creditNotes.map((c) => c.documentNumber) } : {}),
      ...(late ? { late: true } : {}),
      ...(refused.length > 0 ? { refusedLate: refused.map((p) => p.paymentCode) } : {}),
      ...(refusedCreditNotes.length > 0 ? { creditNotesRefusedLate: refusedCreditNotes.map((p) => p.paymentCode) } : {}),
    },
  });
  // Their files go to SDI now, as the portal's job runner would send them.
  await op.services.jobs.runDue();
  return { month, issued, refused, notDue, creditNotes, refusedCreditNotes };
}

/** What a refund gave back, and the day in Rome it did. */
async function refundOf(op: Operator, refundId: string) {
  const [refund] = await op.db
    .select({ amountCents: paymentRefunds.amountCents, completedAt: paymentRefunds.completedAt })
    .from(paymentRefunds)
    .where(eq(paymentRefunds.id, refundId));
  return { refundedCents: refund!.amountCents, refundedOn: romeDay(refund!.completedAt!) };
}

// ---------------------------------------------------------------- SDI's outcomes (decision 023)

/**
 * An invoice or credit note as an operator names it: its file name, or its number (`WEB/17`, `NC/3`;
 * a bare `17` is in the invoices' series) and, when several years have it, the year.
 */
async function invoiceNamed(op: Operator, ref: string, year?: number): Promise<{ id: string }> {
  const wanted = ref.trim();
  let ids: string[];
  if (/^[A-Za-z0-9]+_[A-Za-z0-9]{1,5}\.xml$/.test(wanted)) ids = await op.services.sdiOutcomes.find({ fileName: wanted });
  else if (/^([A-Z0-9]{1,8}\/)?\d{1,9}$/.test(wanted)) ids = await op.services.sdiOutcomes.find({ number: wanted, year });
  else
    throw new OperatorError(
      `"${ref}" is neither an invoice's or credit note's number (WEB/17, NC/3) nor an SDI file name (IT…_00001.xml)`,
    );
  if (ids.length === 0) throw new OperatorError(`No invoice ${wanted}${year ? ` of ${year}` : ""}`);
  if (ids.length > 1) {
    const years = (await Promise.all(ids.map((id) => op.services.sdiOutcomes.status(id)))).map((s) => s!.year);
    throw new OperatorError(`${wanted} is the number of invoices of ${years.join(" and ")}: say which with --year`);
  }
  return { id: ids[0]! };
}

/** What to correct for SDI's errors the operator can mend, by code ("Rappresentazione tabellare", its error list). */
export const CORRECTION_HINTS: Readonly<Record<string, string>> = {
  "00311": "the buyer's SDI code (not valid): --sdi-code, or --sdi-code 0000000 --pec <address>",
  "00312": "the buyer's SDI code (not active): --sdi-code, or --sdi-code 0000000 --pec <address>",
  "00305": "the buyer's Partita IVA (not valid): --vat",
  "00306": "the buyer's Codice Fiscale (not valid): --fiscal-code",
  "00324": "the buyer's Partita IVA and Codice Fiscale disagree: --vat or --fiscal-code",
  "00300": "the sender's Partita IVA: the seller's settings (SELLER_VAT), then invoices:resend",
  "00301": "the seller's Partita IVA: the seller's settings (SELLER_VAT), then invoices:resend",
};

/** `invoices:status`: an invoice's state, each file it was sent as with SDI's outcome and errors, and its hand-over. */
export async function invoiceStatus(op: Operator, ref: string, year?: number) {
  const { id } = await invoiceNamed(op, ref, year);
  const status = (await op.services.sdiOutcomes.status(id))!;
  await recordOperation(op.db, op, "invoice_viewed", { details: { number: status.documentNumber, year: status.year } });
  return status;
}

/** `invoices:list`: the invoices in a state, of a month when given (by their date in Rome). */
export async function listInvoices(op: Operator, { state, month }: { state?: string; month?: string }) {
  if (state !== undefined && !(INVOICE_STATES as readonly string[]).includes(state)) {
    throw new OperatorError(`"${state}" is not a state: ${INVOICE_STATES.join(", ")}`);
  }
  const range = month === undefined ? {} : monthDays(month);
  const rows = await op.services.sdiOutcomes.list({ state: state as InvoiceState | undefined, ...range });
  await recordOperation(op.db, op, "invoices_listed", {
    details: { state: state ?? null, month: month ?? null, count: rows.length },
  });
  return rows;
}

/**
 * `invoices:resend`: a rejected invoice sent again, its buyer's data corrected as given (the
 * checkout's checks), under a new file name with the same number and date; or a file whose
 * hand-over gave up, sent again as it is. Then handed over at once, as the job runner would.
 */
export async function resendInvoice(op: Operator, ref: string, { year, ...correction }: BuyerCorrection & { year?: number }) {
  const { id } = await invoiceNamed(op, ref, year);
  const before = (await op.services.sdiOutcomes.status(id))!;
  const number = before.documentNumber;
  let result;
  try {
    result = await op.services.sdiOutcomes.resend(id, correction);
  } catch (error) {
    if (error instanceof InvoicingNotConfigured) throw new OperatorError(error.message);
    throw error;
  }
  if (!result.ok) throw new OperatorError(refusalMessage(number, before, result));
  await recordOperation(op.db, op, "invoice_resent", {
    userId: null,
    // Which of the buyer's details were corrected, never their values.
    details: {
      number,
      year: before.year,
      kind: result.kind,
      fileName: result.fileName,
      corrected: result.kind === "corrected" ? result.corrected : [],
    },
  });
  await op.services.jobs.runDue();
  return { result, status: (await op.services.sdiOutcomes.status(id))! };
}

function refusalMessage(number: string, status: SdiStatus, refusal: Extract<ResendResult, { ok: false }>): string {
  switch (refusal.reason) {
    case "nothing_to_resend":
      if (refusal.state === "unsent") {
        const next = status.job?.runAt ? `, next ${formatDate(status.job.runAt)}` : "";
        return `${number} is still being handed over (try ${status.job?.attempts ?? 0} of 8${next}): nothing to send again yet`;
      }
      if (refusal.state === "delivered") return `${number} was delivered (RC): nothing to send again`;
      if (refusal.state === "not_delivered") {
        return `${number} could not be delivered (MC) and is in the buyer's tax drawer: that counts as issued, nothing to send again`;
      }
      return `${number} was sent and SDI has not answered yet: nothing to send again`;
    case "too_late":
      return (
        `SDI rejected ${number} on ${formatDate(refusal.rejectedAt)}: its corrected file could go with the same number and date ` +
        `through ${formatDate(new Date(`${refusal.lastDay}T12:00:00Z`))} (${RESEND_DAYS} days). Now the accountant issues a new ` +
        `${status.type === "TD04" ? "credit note for the refund" : "invoice for the payment"} with a new number and date, referring to the rejected ${number} (Circolare 13/E of 2 July 2018: ` +
        `a rejected file counts as never issued), and checks the VAT of the period it belonged to; the portal keeps ${number} as rejected.`
      );
    case "invalid_correction":
      return `${CORRECTION_OPTION[refusal.field]}: ${refusal.message}. Nothing was changed.`;
    case "not_invoiceable":
      return `${number}'s payment was refunded (or its order is no longer paid): no invoice is due; the rejected file counts as never issued.`;
    case "being_sent":
      return `${number} is being handed over right now: try again in a minute.`;
    case "correction_not_rejected":
      return `${number}'s file never reached SDI: it is sent again as it is, without corrections (they are for a file SDI rejected).`;
  }
}

/** The command line's option of each correction. */
export const CORRECTION_OPTION: Readonly<Record<keyof BuyerCorrection, string>> = {
  sdiCode: "--sdi-code",
  pec: "--pec",
  vat: "--vat",
  fiscalCode: "--fiscal-code",
  name: "--name",
};

type SdiStatus = NonNullable<Awaited<ReturnType<Operator["services"]["sdiOutcomes"]["status"]>>>;
