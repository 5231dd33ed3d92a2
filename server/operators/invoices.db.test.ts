// invoices:export: the month's e-invoices (by their date: their payments' days in Rome) and credit
// notes (their refunds' days) listed, each credit note with the invoice it corrects and their totals
// apart, and written as their SDI files into a folder, safe to run again, with an audit entry and
// the quarter's count of invoices with the virtual stamp duty; a month written wrong is refused.
// invoices:issue-missing: the invoices a month's payments lack and the credit notes its refunds
// lack, issued once, with their dates within the 12 days of an immediate invoice, refused after
// them unless --late. orders:refund, orders:show and orders:refunds: a refund's credit note.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { and, desc, eq } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { COMPANY_BILLING, PERSON_BILLING, SHIPMENT } from "#tests/support/checkout.ts";
import { DAY, HOUR, START } from "#tests/support/clock.ts";
import { operatorHarness } from "#tests/support/operators.ts";
import { invoices, jobs, paymentRefunds, payments, products, productTypes } from "#server/db/schema/index.ts";
import { REFUND_CHECK_INTERVAL_MS, requestRefund } from "#server/payments/refunds.ts";
import { sdiRefusals } from "#tests/support/sdi-controls.ts";
import { OperatorError } from "./context.ts";
import { exportCustomer } from "./customers.ts";
import { listRefunds, refundOrder, showOrder } from "./orders.ts";
import { exportInvoices, issueMissingInvoices, monthRange, quarterOf } from "./invoices.ts";

const h = operatorHarness();
const EBOOK = "EB-9788828813217";
const folder = mkdtempSync(path.join(tmpdir(), "portal-invoices-export-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const invoicedOrder = (billing = COMPANY_BILLING) => h.invoicedOrder(billing);

/** The credit note of a refund, when issued. */
const creditNoteOf = async (refundId: string) =>
  (await h.db.select().from(invoices).where(eq(invoices.refundId, refundId)))[0] ?? null;

/** Gives back part of an order through orders:refund: what the command answered, the refund, and its credit note. */
async function refundPart(order: { id: string; orderCode: string }, amountCents = 500) {
  const result = await refundOrder(h.op, order.orderCode, { kind: "amount", amountCents, paymentCode: null });
  const [refund] = await h.db
    .select({ id: paymentRefunds.id })
    .from(paymentRefunds)
    .innerJoin(payments, eq(payments.id, paymentRefunds.paymentId))
    .where(eq(payments.orderId, order.id))
    .orderBy(desc(paymentRefunds.requestedAt))
    .limit(1);
  return { result, refundId: refund!.id, creditNote: await creditNoteOf(refund!.id) };
}

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
    // They name the buyers: the operator's only, in a folder the command made so.
    for (const { invoice } of november) expect(statSync(path.join(out, invoice.fileName)).mode & 0o777).toBe(0o600);
    expect(statSync(out).mode & 0o777).toBe(0o700);

    const [audit] = await h.audited("invoices_exported");
    expect(audit!.details).toEqual({ month: "2026-11", count: 2, numbers: november.map((n) => n.invoice.documentNumber) });

    // Again: the same files are left as they are; December's are December's.
    expect((await exportInvoices(h.op, "2026-11", out)).invoices).toHaveLength(2);
    expect((await exportInvoices(h.op, "2026-12", path.join(folder, "dicembre"))).invoices.map((i) => i.fileName)).toEqual([
      december.invoice.fileName,
    ]);
    expect((await exportInvoices(h.op, "2026-10", path.join(folder, "ottobre"))).invoices).toEqual([]);
  });

  it("lists an invoice under its payment's month when its job ran the next one, and counts the quarter's stamped invoices", async () => {
    // A paper book over 77,47 € (VAT paid at source: outside VAT), paid at 23:30 on 31 January 2027 in Rome.
    const [paper] = await h.db
      .select({ id: products.id, sku: products.sku })
      .from(products)
      .innerJoin(productTypes, eq(productTypes.id, products.productTypeId))
      .where(and(eq(productTypes.code, "paper_flex"), eq(products.sellable, true)))
      .limit(1);
    await h.db.update(products).set({ priceCents: 8000 }).where(eq(products.id, paper!.id));
    h.advance(Date.parse("2027-01-31T22:30:00Z") - START.getTime());
    const customer = await h.customer();
    const stamped = await h.paidOrder(customer.id, paper!.sku, { shipment: SHIPMENT, billing: COMPANY_BILLING });
    const plain = await h.paidOrder((await h.customer()).id, EBOOK, { billing: COMPANY_BILLING });
    h.advance(HOUR); // its job runs on 1 February
    await h.services.jobs.runDue();

    const january = await exportInvoices(h.op, "2027-01", path.join(folder, "gennaio-2027"));
    // Paid at the same instant: numbered in either order.
    expect(january.invoices.map((i) => [i.orderCode, i.date, i.stampDuty]).sort()).toEqual(
      [
        [stamped.orderCode, "2027-01-31", true],
        [plain.orderCode, "2027-01-31", false],
      ].sort(),
    );
    expect(january.stamped).toEqual({ quarter: "2027-Q1", count: 1 });
    const [xml] = readdirSync(path.join(folder, "gennaio-2027"))
      .map((file) => readFileSync(path.join(folder, "gennaio-2027", file), "utf8"))
      .filter((text) => text.includes(stamped.orderCode));
    expect(xml).toContain("<DatiBollo><BolloVirtuale>SI</BolloVirtuale><ImportoBollo>2.00</ImportoBollo></DatiBollo>");
    expect(xml).toContain(`<ImportoTotaleDocumento>${(stamped.totalCents / 100).toFixed(2)}</ImportoTotaleDocumento>`);
    // February has none of them; the quarter's count is the same from any of its months.
    const february = await exportInvoices(h.op, "2027-02", path.join(folder, "febbraio-2027"));
    expect(february.invoices).toEqual([]);
    expect(february.stamped).toEqual({ quarter: "2027-Q1", count: 1 });
    expect((await exportInvoices(h.op, "2027-04", path.join(folder, "aprile-2027"))).stamped).toEqual({
      quarter: "2027-Q2",
      count: 0,
    });
  });

  it("lists and writes the month's credit notes after its invoices, each naming the invoice it corrects, valid for SDI, their totals apart", async () => {
    h.advance(Date.parse("2027-03-10T10:00:00Z") - START.getTime());
    const { order, invoice } = await invoicedOrder();
    h.advance(2 * DAY);
    const { creditNote } = await refundPart(order, 500);
    expect(creditNote).toMatchObject({ type: "TD04", date: "2027-03-12", totalCents: 500 });

    const out = path.join(folder, "marzo-2027");
    const march = await exportInvoices(h.op, "2027-03", out);
    expect(march.invoices.map((i) => [i.type, i.documentNumber, i.corrects, i.date, i.totalCents])).toEqual([
      ["TD01", invoice.documentNumber, null, "2027-03-10", order.totalCents],
      ["TD04", creditNote!.documentNumber, invoice.documentNumber, "2027-03-12", 500],
    ]);
    // Money given back is not taken off the invoices' total.
    expect(march.totals).toEqual({
      invoices: { count: 1, totalCents: order.totalCents },
      creditNotes: { count: 1, totalCents: 500 },
    });
    expect(readdirSync(out).sort()).toEqual([invoice.fileName, creditNote!.fileName].sort());
    const xml = readFileSync(path.join(out, creditNote!.fileName), "utf8");
    expect(xml).toBe(creditNote!.xml);
    expect(xml).toContain("<TipoDocumento>TD04</TipoDocumento>");
    expect(xml).toContain(`<IdDocumento>${invoice.documentNumber}</IdDocumento>`);
    expect(await sdiRefusals(xml, "2027-03-12")).toEqual([]);
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
    expect([quarterOf("2026-11"), quarterOf("2027-01"), quarterOf("2027-06")]).toEqual([
      { name: "2026-Q4", from: "2026-10-01", to: "2027-01-01" },
      { name: "2027-Q1", from: "2027-01-01", to: "2027-04-01" },
      { name: "2027-Q2", from: "2027-04-01", to: "2027-07-01" },
    ]);
  });
});

/** A payment of an order that asked for an invoice, whose invoice job gave up (production lacked the seller's data, say). */
async function paymentWithoutInvoice() {
  const customer = await h.customer();
  const order = await h.paidOrder(customer.id, EBOOK, { billing: COMPANY_BILLING });
  const [payment] = await h.db.select().from(payments).where(eq(payments.orderId, order.id));
  await h.db
    .update(jobs)
    .set({ status: "failed" })
    .where(eq(jobs.key, `invoice:${payment!.id}`));
  await h.services.jobs.runDue();
  expect(await h.db.select().from(invoices).where(eq(invoices.paymentId, payment!.id))).toEqual([]);
  return { order, payment: payment! };
}

describe("invoices:issue-missing", () => {
  it("issues, dated their payments' day, the invoices whose jobs gave up, once however often it runs", async () => {
    const { order, payment } = await paymentWithoutInvoice();
    h.advance(12 * DAY); // the last day an immediate invoice allows
    const result = await issueMissingInvoices(h.op, "2026-11");
    const [invoice] = await h.db.select().from(invoices).where(eq(invoices.paymentId, payment.id));
    expect(result.issued).toEqual([
      { documentNumber: invoice!.documentNumber, date: "2026-11-23", fileName: invoice!.fileName, totalCents: order.totalCents },
    ]);
    expect(result.refused).toEqual([]);
    expect([invoice!.date, invoice!.issuedAt]).toEqual(["2026-11-23", new Date(START.getTime() + 12 * DAY)]);
    expect(invoice!.xml).toContain("<Data>2026-11-23</Data>");
    // Sent to SDI by the command's own run of the jobs.
    expect(invoice!.transmittedAt).not.toBeNull();
    const [audit] = await h.audited("invoices_issued");
    expect(audit!.details).toEqual({ month: "2026-11", count: 1, numbers: [invoice!.documentNumber] });

    expect((await issueMissingInvoices(h.op, "2026-11")).issued).toEqual([]);
    expect(await h.db.select().from(invoices).where(eq(invoices.paymentId, payment.id))).toHaveLength(1);
  });

  it("refuses, naming them, the payments past the 12 days, and issues them with their dates only when told they are late", async () => {
    const { payment, order } = await paymentWithoutInvoice();
    h.advance(13 * DAY);
    const refused = await issueMissingInvoices(h.op, "2026-11");
    expect(refused.issued).toEqual([]);
    expect(refused.refused).toContainEqual({
      id: payment.id,
      paymentCode: payment.paymentCode,
      orderCode: order.orderCode,
      date: "2026-11-23",
      deadline: "2026-12-05",
    });
    expect(await h.db.select().from(invoices).where(eq(invoices.paymentId, payment.id))).toEqual([]);
    const [audit] = (await h.audited("invoices_issued")).slice(-1);
    expect(audit!.details).toMatchObject({ count: 0, refusedLate: expect.arrayContaining([payment.paymentCode]) });

    const late = await issueMissingInvoices(h.op, "2026-11", { late: true });
    const [invoice] = await h.db.select().from(invoices).where(eq(invoices.paymentId, payment.id));
    expect(late.issued).toContainEqual(expect.objectContaining({ documentNumber: invoice!.documentNumber, date: "2026-11-23" }));
    expect(late.refused).toEqual([]);
  });
});

/** A refund of an invoiced payment whose credit note job gave up (production lacked the seller's data, say). */
async function refundWithoutCreditNote(order: { id: string }, amountCents = 300) {
  const [payment] = await h.db.select().from(payments).where(eq(payments.orderId, order.id));
  const refund = await h.db.transaction((tx) =>
    requestRefund(
      tx,
      { paymentId: payment!.id, cover: { kind: "amount", amountCents }, reason: "operator", requestedBy: "operator:test" },
      h.services.clock(),
    ),
  );
  expect((await h.services.refunds.processRefund(refund!.id))!.state).toBe("succeeded");
  await h.db
    .update(jobs)
    .set({ status: "failed" })
    .where(eq(jobs.key, `credit-note:${refund!.id}`));
  await h.services.jobs.runDue();
  expect(await creditNoteOf(refund!.id)).toBeNull();
  return refund!;
}

describe("invoices:issue-missing and credit notes", () => {
  it("issues, dated their refunds' day and naming their invoices, the credit notes whose jobs gave up, once", async () => {
    const { order, invoice } = await invoicedOrder();
    h.advance(DAY);
    const refund = await refundWithoutCreditNote(order, 300);

    const result = await issueMissingInvoices(h.op, "2026-11");
    const note = (await creditNoteOf(refund.id))!;
    expect(note).toMatchObject({ type: "TD04", date: "2026-11-24", totalCents: 300, correctsInvoiceId: invoice.id });
    expect(result.creditNotes).toEqual([
      {
        documentNumber: note.documentNumber,
        corrects: invoice.documentNumber,
        date: "2026-11-24",
        fileName: note.fileName,
        totalCents: 300,
      },
    ]);
    expect(result.refusedCreditNotes).toEqual([]);
    // Sent to SDI by the command's own run of the jobs.
    expect((await creditNoteOf(refund.id))!.transmittedAt).toEqual(h.services.clock());
    expect((await h.audited("invoices_issued")).at(-1)!.details).toMatchObject({ creditNotes: [note.documentNumber] });

    expect((await issueMissingInvoices(h.op, "2026-11")).creditNotes).toEqual([]);
    expect(await h.db.select().from(invoices).where(eq(invoices.refundId, refund.id))).toHaveLength(1);
  });

  it("refuses the credit note whose invoice is past its 12 days, naming it, and issues both with their dates only when told they are late", async () => {
    const { payment, order } = await paymentWithoutInvoice();
    h.advance(13 * DAY); // 6 December: the invoice was due by 5 December
    const { result: refunded, refundId } = await refundPart(order, 400);
    // The credit note's job could not issue the invoice first: nothing issued.
    expect(refunded.refunds).toEqual([expect.objectContaining({ state: "succeeded", invoice: null, creditNote: null })]);
    expect(await creditNoteOf(refundId)).toBeNull();

    const refused = await issueMissingInvoices(h.op, "2026-12");
    expect(refused.creditNotes).toEqual([]);
    expect(refused.refusedCreditNotes).toEqual([
      {
        id: payment.id,
        paymentCode: payment.paymentCode,
        orderCode: order.orderCode,
        date: "2026-11-23",
        deadline: "2026-12-05",
        refundedCents: 400,
        refundedOn: "2026-12-06",
      },
    ]);
    expect((await h.audited("invoices_issued")).at(-1)!.details).toMatchObject({
      creditNotesRefusedLate: [payment.paymentCode],
    });
    expect(await h.db.select().from(invoices).where(eq(invoices.paymentId, payment.id))).toEqual([]);

    const late = await issueMissingInvoices(h.op, "2026-12", { late: true });
    const [invoice] = await h.db
      .select()
      .from(invoices)
      .where(and(eq(invoices.paymentId, payment.id), eq(invoices.type, "TD01")));
    const note = (await creditNoteOf(refundId))!;
    expect(invoice!.date).toBe("2026-11-23");
    expect(late.creditNotes).toEqual([
      expect.objectContaining({ documentNumber: note.documentNumber, corrects: invoice!.documentNumber, date: "2026-12-06" }),
    ]);
    expect(late.refusedCreditNotes).toEqual([]);
  });
});

describe("customer:export", () => {
  it("lists the e-invoices and credit notes made out to the customer", async () => {
    const customer = await h.customer();
    const order = await h.paidOrder(customer.id, EBOOK, { billing: PERSON_BILLING });
    await h.services.jobs.runDue();
    h.advance(DAY);
    const { creditNote } = await refundPart(order, 300);
    const [invoice] = await h.db
      .select()
      .from(invoices)
      .where(and(eq(invoices.userId, customer.id), eq(invoices.type, "TD01")));
    expect((await exportCustomer(h.op, customer.email)).invoices).toEqual([
      {
        type: "TD01",
        documentNumber: invoice!.documentNumber,
        issuedAt: START,
        totalCents: order.totalCents,
        orderCode: order.orderCode,
        fileName: invoice!.fileName,
      },
      {
        type: "TD04",
        documentNumber: creditNote!.documentNumber,
        issuedAt: new Date(START.getTime() + DAY),
        totalCents: 300,
        orderCode: order.orderCode,
        fileName: creditNote!.fileName,
      },
    ]);
  });
});

describe("orders:refund, orders:show and orders:refunds", () => {
  it("issue the credit note of an invoiced payment's refund that succeeded at once, and show it", async () => {
    const { order, invoice } = await invoicedOrder();
    h.advance(2 * DAY);
    const { result, refundId, creditNote } = await refundPart(order, 500);
    expect(creditNote).toMatchObject({ type: "TD04", date: "2026-11-25", correctsInvoiceId: invoice.id });
    expect(result.refunds).toEqual([
      expect.objectContaining({
        state: "succeeded",
        invoice: invoice.documentNumber,
        creditNote: { documentNumber: creditNote!.documentNumber, date: "2026-11-25" },
      }),
    ]);
    const shown = await showOrder(h.op, order.orderCode);
    expect(shown.refunds).toEqual([
      expect.objectContaining({ id: refundId, creditNote: creditNote!.documentNumber, creditNoteDate: "2026-11-25" }),
    ]);
    expect(await listRefunds(h.op, "succeeded")).toContainEqual(
      expect.objectContaining({ id: refundId, creditNote: creditNote!.documentNumber }),
    );

    // No invoice, no credit note.
    const plain = await h.paidOrder((await h.customer()).id, EBOOK);
    expect((await refundOrder(h.op, plain.orderCode)).refunds).toEqual([
      expect.objectContaining({ state: "succeeded", invoice: null, creditNote: null }),
    ]);
  });

  it("say a pending refund's credit note follows; orders:show shows it once the money has gone back", async () => {
    const { order, invoice } = await invoicedOrder();
    const [payment] = await h.db.select().from(payments).where(eq(payments.orderId, order.id));
    expect(await h.services.sandbox!.holdRefunds(payment!.chargeId, true)).toBe(true);
    h.advance(DAY);
    const { result, refundId } = await refundPart(order, 700);
    expect(result.refunds).toEqual([
      expect.objectContaining({ state: "pending", invoice: invoice.documentNumber, creditNote: null }),
    ]);
    expect((await showOrder(h.op, order.orderCode)).refunds).toEqual([
      expect.objectContaining({ id: refundId, creditNote: null }),
    ]);

    // The bank completes it the next day; the sweep reads it and its credit note is issued, dated that day.
    h.advance(DAY);
    expect(await h.services.sandbox!.settleRefund(result.refunds[0]!.gatewayRefundId!, "succeeded")).toBe(true);
    h.advance(REFUND_CHECK_INTERVAL_MS);
    await h.services.jobs.runDue();
    const note = (await creditNoteOf(refundId))!;
    expect((await showOrder(h.op, order.orderCode)).refunds).toEqual([
      expect.objectContaining({ state: "succeeded", creditNote: note.documentNumber, creditNoteDate: note.date }),
    ]);
  });
});
