// invoices:export: the month's e-invoices (by their date in Rome) listed and written as their SDI
// files into a folder, safe to run again, with an audit entry; a month written wrong is refused.
// invoices:issue-missing: the invoices a month's payments lack, issued now, once.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { eq } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { COMPANY_BILLING, PERSON_BILLING } from "../../tests/support/checkout.ts";
import { DAY, START } from "../../tests/support/clock.ts";
import { operatorHarness } from "../../tests/support/operators.ts";
import { invoices, jobs, payments } from "../db/schema.ts";
import { OperatorError } from "./context.ts";
import { exportCustomer } from "./customers.ts";
import { refundOrder } from "./orders.ts";
import { exportInvoices, issueMissingInvoices, monthRange } from "./invoices.ts";

const h = operatorHarness();
const EBOOK = "EB-9788828813217";
const folder = mkdtempSync(path.join(tmpdir(), "portal-invoices-export-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const invoicedOrder = (billing = COMPANY_BILLING) => h.invoicedOrder(billing);

describe("invoices:export", () => {
  it("lists and writes the month's invoices, and only those, as their SDI files", async () => {
    const november = [await invoicedOrder(), await invoicedOrder(PERSON_BILLING)];
    h.advance(10 * DAY); // 3 December
    const december = await invoicedOrder();

    const out = path.join(folder, "novembre");
    const result = await exportInvoices(h.op, "2026-11", out);
    expect(result.invoices.map((i) => i.documentNumber)).toEqual(november.map((n) => n.invoice.documentNumber));
    expect(result.invoices[0]).toMatchObject({
      orderCode: november[0]!.order.orderCode,
      totalCents: november[0]!.order.totalCents,
      issuedAt: START,
      transmittedAt: START,
    });
    expect(readdirSync(out).sort()).toEqual(november.map((n) => n.invoice.fileName).sort());
    for (const { invoice } of november) expect(readFileSync(path.join(out, invoice.fileName), "utf8")).toBe(invoice.xml);

    const [audit] = await h.audited("invoices_exported");
    expect(audit!.details).toEqual({ month: "2026-11", count: 2, numbers: november.map((n) => n.invoice.documentNumber) });

    // Again: the same files are left as they are; December's are December's.
    expect((await exportInvoices(h.op, "2026-11", out)).invoices).toHaveLength(2);
    expect((await exportInvoices(h.op, "2026-12", path.join(folder, "dicembre"))).invoices.map((i) => i.fileName)).toEqual([
      december.invoice.fileName,
    ]);
    expect((await exportInvoices(h.op, "2026-10", path.join(folder, "ottobre"))).invoices).toEqual([]);
  });

  it("stops, writing nothing, when a file of the same name holds something else", async () => {
    const { invoice } = await invoicedOrder();
    const out = mkdtempSync(path.join(folder, "altro-"));
    writeFileSync(path.join(out, invoice.fileName), "<altro/>");
    await expect(exportInvoices(h.op, "2026-11", out)).rejects.toThrow(/exists with other content/);
    expect(readdirSync(out)).toEqual([invoice.fileName]);
  });

  it("takes the month as YYYY-MM, on Rome's calendar", async () => {
    await expect(exportInvoices(h.op, "11/2026", folder)).rejects.toBeInstanceOf(OperatorError);
    await expect(exportInvoices(h.op, "2026-13", folder)).rejects.toThrow(/YYYY-MM/);
    // November in Rome: from 31 October 23:00 UTC to 30 November 23:00 UTC (winter time).
    expect(monthRange("2026-11")).toEqual({ from: new Date("2026-10-31T23:00:00Z"), to: new Date("2026-11-30T23:00:00Z") });
  });
});

describe("invoices:issue-missing", () => {
  it("issues, dated today, the invoices whose jobs gave up, once however often it runs", async () => {
    const customer = await h.customer();
    const order = await h.paidOrder(customer.id, EBOOK, { billing: COMPANY_BILLING });
    const [payment] = await h.db.select().from(payments).where(eq(payments.orderId, order.id));
    // The job gave up (production lacked the seller's data, say).
    await h.db
      .update(jobs)
      .set({ status: "failed" })
      .where(eq(jobs.key, `invoice:${payment!.id}`));
    await h.services.jobs.runDue();
    expect(await h.db.select().from(invoices).where(eq(invoices.paymentId, payment!.id))).toEqual([]);

    h.advance(2 * DAY);
    const result = await issueMissingInvoices(h.op, "2026-11");
    const [invoice] = await h.db.select().from(invoices).where(eq(invoices.paymentId, payment!.id));
    expect(result.issued).toEqual([
      { documentNumber: invoice!.documentNumber, fileName: invoice!.fileName, totalCents: order.totalCents },
    ]);
    expect(invoice!.issuedAt).toEqual(new Date(START.getTime() + 2 * DAY));
    // Sent to SDI by the command's own run of the jobs.
    expect(invoice!.transmittedAt).not.toBeNull();
    const [audit] = await h.audited("invoices_issued");
    expect(audit!.details).toEqual({ month: "2026-11", count: 1, numbers: [invoice!.documentNumber] });

    expect((await issueMissingInvoices(h.op, "2026-11")).issued).toEqual([]);
    expect(await h.db.select().from(invoices).where(eq(invoices.paymentId, payment!.id))).toHaveLength(1);
  });
});

describe("customer:export", () => {
  it("lists the e-invoices made out to the customer", async () => {
    const customer = await h.customer();
    const order = await h.paidOrder(customer.id, EBOOK, { billing: PERSON_BILLING });
    await h.services.jobs.runDue();
    const [invoice] = await h.db.select().from(invoices).where(eq(invoices.userId, customer.id));
    expect((await exportCustomer(h.op, customer.email)).invoices).toEqual([
      {
        documentNumber: invoice!.documentNumber,
        issuedAt: START,
        totalCents: order.totalCents,
        orderCode: order.orderCode,
        fileName: invoice!.fileName,
      },
    ]);
  });
});

describe("orders:refund", () => {
  it("names the e-invoices of the payments it gives back, which want a credit note", async () => {
    const customer = await h.customer();
    const order = await h.paidOrder(customer.id, EBOOK, { billing: COMPANY_BILLING });
    await h.services.jobs.runDue();
    const [invoice] = await h.db.select().from(invoices).where(eq(invoices.orderId, order.id));
    expect((await refundOrder(h.op, order.orderCode)).invoicesToCredit).toEqual([invoice!.documentNumber]);

    const plain = await h.paidOrder((await h.customer()).id, EBOOK);
    expect((await refundOrder(h.op, plain.orderCode)).invoicesToCredit).toEqual([]);
  });
});
