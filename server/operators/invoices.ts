// Operators' commands for e-invoices: the invoices of a month (by their date, the payments' days in
// Rome), listed and written as their XML files into a folder, for the accountant or to send by
// hand, with the quarter's count of invoices carrying the virtual stamp duty; and the invoices a
// month's payments lack, issued with their payments' dates while the 12 days of an immediate
// invoice last, and refused, naming the payments, after (decision 021).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fromRomeWallClock } from "../../shared/subscription.ts";
import { LateInvoice } from "../invoices/service.ts";
import { OperatorError, recordOperation, type Operator } from "./context.ts";

/** `2026-11` → its year and month (0–11), or an OperatorError. */
function parseMonth(month: string) {
  const match = /^(\d{4})-(0[1-9]|1[0-2])$/.exec(month.trim());
  if (!match) throw new OperatorError(`"${month}" is not a month: write it as YYYY-MM`);
  return { year: Number(match[1]), index: Number(match[2]) - 1 };
}

/** The first day of a month, `index` counted from January of `year` (it may run past December), as YYYY-MM-DD. */
const firstDay = (year: number, index: number) => new Date(Date.UTC(year, index, 1)).toISOString().slice(0, 10);

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
  documentNumber: string;
  /** The document's date: its payment's day. */
  date: string;
  issuedAt: Date;
  totalCents: number;
  stampDuty: boolean;
  orderCode: string;
  paymentCode: string;
  fileName: string;
  transmittedAt: Date | null;
};

/**
 * Writes the month's invoices into `dir` (made if missing), one XML file each under its SDI name.
 * A file already there with the same content is left as it is (the command can be run again); one
 * with other content stops the command before anything is written.
 */
export async function exportInvoices(op: Operator, month: string, dir: string) {
  const { year, index } = parseMonth(month);
  const rows = await op.services.invoices.between(firstDay(year, index), firstDay(year, index + 1));
  const quarter = quarterOf(month);
  const stamped = { quarter: quarter.name, count: await op.services.invoices.stampedBetween(quarter.from, quarter.to) };
  const folder = path.resolve(dir);
  const clash = rows.find((row) => {
    const file = path.join(folder, row.fileName);
    return existsSync(file) && readFileSync(file, "utf8") !== row.xml;
  });
  if (clash) throw new OperatorError(`${path.join(folder, clash.fileName)} exists with other content: choose another --out`);
  mkdirSync(folder, { recursive: true });
  for (const row of rows) writeFileSync(path.join(folder, row.fileName), row.xml);
  await recordOperation(op.db, op, "invoices_exported", {
    details: { month, count: rows.length, numbers: rows.map((row) => row.documentNumber) },
  });
  const invoices: ExportedInvoice[] = rows.map(({ xml: _, year: __, number: ___, ...shown }) => shown);
  return { month, folder, invoices, stamped };
}

/**
 * Issues the invoices the month's payments (by their date in Rome) asked for and lack, each dated
 * its payment's day, while the 12 days of an immediate invoice last; the payments past them are
 * refused and listed (the accountant decides: a late invoice, then `late` issues them, still
 * with their payments' dates).
 */
export async function issueMissingInvoices(op: Operator, month: string, { late = false }: { late?: boolean } = {}) {
  const { from, to } = monthRange(month);
  const issued: { documentNumber: string; date: string; fileName: string; totalCents: number }[] = [];
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
  await recordOperation(op.db, op, "invoices_issued", {
    details: {
      month,
      count: issued.length,
      numbers: issued.map((i) => i.documentNumber),
      ...(late ? { late: true } : {}),
      ...(refused.length > 0 ? { refusedLate: refused.map((p) => p.paymentCode) } : {}),
    },
  });
  // Their files go to SDI now, as the portal's job runner would send them.
  await op.services.jobs.runDue();
  return { month, issued, refused, notDue };
}
