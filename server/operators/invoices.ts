// Operators' commands for e-invoices: the invoices of a month (by their date, on Rome's calendar),
// listed and written as their XML files into a folder, for the accountant or to send by hand; and
// the invoices a month's payments lack, issued now (after production was given the seller's data,
// or after a job gave up).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fromRomeWallClock } from "../../shared/subscription.ts";
import { OperatorError, recordOperation, type Operator } from "./context.ts";

/** `2026-11` → the first instant of that month in Rome, and of the next. */
export function monthRange(month: string): { from: Date; to: Date } {
  const match = /^(\d{4})-(0[1-9]|1[0-2])$/.exec(month.trim());
  if (!match) throw new OperatorError(`"${month}" is not a month: write it as YYYY-MM`);
  const [year, index] = [Number(match[1]), Number(match[2]) - 1];
  return {
    from: fromRomeWallClock(new Date(Date.UTC(year, index, 1))),
    to: fromRomeWallClock(new Date(Date.UTC(year, index + 1, 1))),
  };
}

type ExportedInvoice = {
  documentNumber: string;
  issuedAt: Date;
  totalCents: number;
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
  const { from, to } = monthRange(month);
  const rows = await op.services.invoices.between(from, to);
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
  return { month, folder, invoices };
}

/** Issues, dated today, the invoices the month's payments (by their date in Rome) asked for and lack. */
export async function issueMissingInvoices(op: Operator, month: string) {
  const { from, to } = monthRange(month);
  const issued: { documentNumber: string; fileName: string; totalCents: number }[] = [];
  let notDue = 0;
  for (const paymentId of await op.services.invoices.missingBetween(from, to)) {
    const invoice = await op.services.invoices.issue(paymentId);
    if (invoice)
      issued.push({ documentNumber: invoice.documentNumber, fileName: invoice.fileName, totalCents: invoice.totalCents });
    else notDue += 1; // refunded, or paid for an order no longer being bought
  }
  await recordOperation(op.db, op, "invoices_issued", {
    details: { month, count: issued.length, numbers: issued.map((i) => i.documentNumber) },
  });
  // Their files go to SDI now, as the portal's job runner would send them.
  await op.services.jobs.runDue();
  return { month, issued, notDue };
}
