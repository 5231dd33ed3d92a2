// invoices:status, invoices:list --state, invoices:resend: what SDI said of each e-invoice, and
// sending one again — a rejected one corrected (the buyer's data checked as the checkout checks
// it), under a new file name with the same number and date, within SDI's 5 days; one whose
// hand-over gave up after its tries, as it was. Each with its audit entry. A credit note (TD04) the
// same way: found by its number (NC/3), shown and listed with the invoice it corrects, written
// again as a TD04 with the same number and date.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { eq } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { COMPANY_BILLING, PERSON_BILLING } from "#tests/support/checkout.ts";
import { DAY, HOUR } from "#tests/support/clock.ts";
import { fatturaPaSchemaErrors } from "#tests/support/fatturapa-schema.ts";
import { operatorHarness } from "#tests/support/operators.ts";
import { BUYER_ERRORS, deliveryReceipt, drop, rejectionNotice } from "#tests/support/sdi-notifications.ts";
import { invoices, invoiceTransmissions, orders } from "#server/db/schema/index.ts";
import { romeDay } from "#shared/rome-clock.ts";
import { sdiRefusals } from "#tests/support/sdi-controls.ts";
import { OperatorError } from "./context.ts";
import { invoiceStatus, listInvoices, resendInvoice } from "./invoices.ts";
import { refundOrder } from "./orders.ts";

const folder = mkdtempSync(path.join(tmpdir(), "portal-sdi-operators-"));
const inbox = path.join(folder, "sdi-inbox");
const outbox = path.join(folder, "sdi-outbox");
const h = operatorHarness({ env: { SDI_INBOX_DIR: inbox, SDI_OUTBOX_DIR: outbox } });
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** The text of every element of that name, in document order. */
const values = (xml: string, name: string) => [...xml.matchAll(new RegExp(`<${name}>([^<]*)</${name}>`, "g"))].map((m) => m[1]);

let sdiIds = 5100000000;
const sentInvoice = (billing = COMPANY_BILLING) => h.invoicedOrder(billing);

/** SDI's answer about a file, read by the portal's runner: NS with the buyer's two errors, or RC. */
async function sdiSays(fileName: string, type: "NS" | "RC") {
  const ids = {
    invoiceFileName: fileName,
    sdiId: String(++sdiIds),
    messageId: String(sdiIds).slice(-7),
    receivedAt: h.services.clock(),
  };
  drop(
    inbox,
    type === "NS" ? rejectionNotice({ ...ids, errors: BUYER_ERRORS }) : deliveryReceipt({ ...ids, deliveredAt: ids.receivedAt }),
  );
  await h.services.jobs.runDue();
}

describe("invoices:status and invoices:list", () => {
  it("show a rejected invoice with SDI's errors and the last day to send it again; list finds it by state and month", async () => {
    const { invoice, order } = await sentInvoice();
    await sdiSays(invoice.fileName, "NS");

    const status = await invoiceStatus(h.op, invoice.documentNumber);
    expect(status).toMatchObject({
      documentNumber: invoice.documentNumber,
      orderCode: order.orderCode,
      state: "rejected",
      lastResendDay: "2026-11-28",
      files: [{ fileName: invoice.fileName, outcome: "rejected", errors: BUYER_ERRORS, notifications: [{ type: "NS" }] }],
    });
    // By its file name too, and by its bare number.
    expect((await invoiceStatus(h.op, invoice.fileName)).documentNumber).toBe(invoice.documentNumber);
    expect((await invoiceStatus(h.op, String(invoice.number))).documentNumber).toBe(invoice.documentNumber);
    expect((await h.audited("invoice_viewed")).at(-1)!.details).toEqual({ number: invoice.documentNumber, year: 2026 });

    const rejected = await listInvoices(h.op, { state: "rejected", month: "2026-11" });
    expect(rejected.map((i) => i.fileName)).toContain(invoice.fileName);
    expect(rejected.every((i) => i.state === "rejected")).toBe(true);
    expect(await listInvoices(h.op, { state: "rejected", month: "2026-10" })).toEqual([]);
    expect((await listInvoices(h.op, { state: "sent" })).map((i) => i.fileName)).not.toContain(invoice.fileName);
    expect((await h.audited("invoices_listed")).at(-1)!.details).toEqual({
      state: "sent",
      month: null,
      count: expect.any(Number),
    });
    await expect(listInvoices(h.op, { state: "scartata" })).rejects.toThrow(/not a state: unsent, send_failed/);
  });

  it("refuse what names no invoice, and a number several years have without --year", async () => {
    await expect(invoiceStatus(h.op, "WEB/99999")).rejects.toThrow("No invoice WEB/99999");
    await expect(invoiceStatus(h.op, "fattura 17")).rejects.toBeInstanceOf(OperatorError);
    const { invoice: first } = await sentInvoice();
    h.advance(45 * DAY); // into 2027: numbers start again from 1
    const { invoice: next } = await sentInvoice();
    expect(next.number).toBe(1);
    await expect(invoiceStatus(h.op, next.documentNumber)).rejects.toThrow(/of 2026 and 2027: say which with --year/);
    expect((await invoiceStatus(h.op, next.documentNumber, 2027)).fileName).toBe(next.fileName);
    expect((await invoiceStatus(h.op, first.fileName)).year).toBe(2026);
  });
});

describe("invoices:resend after SDI's rejection", () => {
  it("writes the corrected file under a new name with the same number and date, keeps the rejected one, sends it", async () => {
    const { invoice, order } = await sentInvoice();
    await sdiSays(invoice.fileName, "NS");
    h.advance(2 * DAY);

    const { result, status } = await resendInvoice(h.op, invoice.documentNumber, { sdiCode: "kr  mtx 6a", vat: "12345670017" });
    expect(result).toMatchObject({
      ok: true,
      kind: "corrected",
      rejectedFileName: invoice.fileName,
      corrected: ["sdiCode", "vat"],
    });
    const fileName = (result as { fileName: string }).fileName;
    expect(fileName).toMatch(/^IT06363391001_[0-9A-Z]{5}\.xml$/);
    expect(fileName).not.toBe(invoice.fileName);

    // The invoice now is the corrected file, with the same number and date, sent at once.
    const [now] = await h.db.select().from(invoices).where(eq(invoices.id, invoice.id));
    expect(now).toMatchObject({
      fileName,
      documentNumber: invoice.documentNumber,
      number: invoice.number,
      transmittedAt: h.services.clock(),
    });
    expect(await fatturaPaSchemaErrors(now!.xml)).toEqual([]);
    expect(values(now!.xml, "Numero")).toEqual([invoice.documentNumber]);
    expect(values(now!.xml, "Data")).toEqual(values(invoice.xml, "Data"));
    expect(values(now!.xml, "ProgressivoInvio")).toEqual([fileName.slice(14, 19)]);
    expect(values(now!.xml, "CodiceDestinatario")).toEqual(["KRMTX6A"]);
    expect(values(now!.xml, "IdCodice")).toEqual(["06363391001", "06363391001", "12345670017"]);
    expect(readFileSync(path.join(outbox, fileName), "utf8")).toBe(now!.xml);
    // The order's billing details corrected; the rejected file kept with its errors.
    const [billing] = await h.db.select({ billing: orders.billing }).from(orders).where(eq(orders.id, order.id));
    expect(billing!.billing).toMatchObject({ ...COMPANY_BILLING, sdi: "KRMTX6A", vat: "12345670017" });
    expect(status.state).toBe("sent");
    expect(status.files.map((f) => [f.fileName, f.outcome, f.errors])).toEqual([
      [invoice.fileName, "rejected", BUYER_ERRORS],
      [fileName, null, null],
    ]);
    const [audit] = await h.audited("invoice_resent");
    expect(audit!.details).toEqual({
      number: invoice.documentNumber,
      year: 2026,
      kind: "corrected",
      fileName,
      corrected: ["sdiCode", "vat"],
    });

    // SDI delivers the new file: the invoice is delivered; the rejected file stays rejected.
    await sdiSays(fileName, "RC");
    const delivered = await invoiceStatus(h.op, invoice.fileName);
    expect(delivered.state).toBe("delivered");
    expect(delivered.files.map((f) => f.outcome)).toEqual(["rejected", "delivered"]);
    // Nothing more to send.
    await expect(resendInvoice(h.op, invoice.documentNumber, {})).rejects.toThrow(/was delivered \(RC\): nothing to send again/);
  });

  it("refuses a correction the checkout would refuse, and one that does not fit the buyer, changing nothing", async () => {
    const { invoice } = await sentInvoice(PERSON_BILLING);
    await sdiSays(invoice.fileName, "NS");
    const attempts: [Parameters<typeof resendInvoice>[2], RegExp][] = [
      [{ sdiCode: "ABC" }, /--sdi-code: "ABC" is not a Codice Univoco SDI/],
      [{ fiscalCode: "RSSMRA85T10A562X" }, /--fiscal-code: "RSSMRA85T10A562X" is not a valid Codice Fiscale/],
      [{ pec: "non-una-pec" }, /--pec: "non-una-pec" is not an e-mail address/],
      [{ vat: "12345670017" }, /--vat: the invoice is made out to a private customer/],
    ];
    for (const [correction, message] of attempts) {
      await expect(resendInvoice(h.op, invoice.documentNumber, correction)).rejects.toThrow(message);
    }
    const status = await invoiceStatus(h.op, invoice.documentNumber);
    expect([status.state, status.files.length, status.fileName]).toEqual(["rejected", 1, invoice.fileName]);
    const [order] = await h.db.select({ billing: orders.billing }).from(orders).where(eq(orders.id, invoice.orderId));
    expect(order!.billing).toEqual(PERSON_BILLING);
    // Corrected right, it goes.
    const { status: sent } = await resendInvoice(h.op, invoice.documentNumber, { fiscalCode: "bnc grl 80a41 h501 j" });
    expect(sent.state).toBe("sent");
    expect(values((await h.db.select().from(invoices).where(eq(invoices.id, invoice.id)))[0]!.xml, "CodiceFiscale")).toEqual([
      "BNCGRL80A41H501J",
    ]);
  });

  it("goes through the fifth day after the rejection; after it, says what the accountant must do", async () => {
    const early = await sentInvoice();
    const late = await sentInvoice();
    await sdiSays(early.invoice.fileName, "NS");
    await sdiSays(late.invoice.fileName, "NS");
    h.advance(5 * DAY + 12 * HOUR); // 28 November, 23:00 in Rome: the fifth day
    expect((await resendInvoice(h.op, early.invoice.documentNumber, {})).status.state).toBe("sent");
    h.advance(2 * HOUR); // 29 November
    await expect(resendInvoice(h.op, late.invoice.documentNumber, {})).rejects.toThrow(
      /rejected .* on 23\/11\/2026: its corrected file could go with the same number and date through 28\/11\/2026.*the accountant issues a new invoice/,
    );
    expect((await invoiceStatus(h.op, late.invoice.documentNumber)).files).toHaveLength(1);
  });

  it("refuses an invoice SDI has not rejected", async () => {
    const { invoice } = await sentInvoice();
    await expect(resendInvoice(h.op, invoice.documentNumber, {})).rejects.toThrow(/was sent and SDI has not answered yet/);
    expect(await h.audited("invoice_resent")).not.toContainEqual(
      expect.objectContaining({ details: expect.objectContaining({ number: invoice.documentNumber }) }),
    );
  });
});

/** An invoiced order given back in part the next day: its invoice, and the credit note issued for it. */
async function creditedInvoice() {
  const { invoice, order } = await sentInvoice();
  h.advance(DAY);
  const { refunds } = await refundOrder(h.op, order.orderCode, { kind: "amount", amountCents: 500, paymentCode: null });
  // The portal's job runner sends it to SDI.
  await h.services.jobs.runDue();
  const [note] = await h.db.select().from(invoices).where(eq(invoices.documentNumber, refunds[0]!.creditNote!.documentNumber));
  return { invoice, order, note: note! };
}

describe("a credit note at SDI", () => {
  it("is found by its number and its file's name, shown and listed as a TD04 with the invoice it corrects", async () => {
    const { invoice, note } = await creditedInvoice();
    expect(note.documentNumber).toMatch(/^NC\/\d+$/);
    const status = await invoiceStatus(h.op, note.documentNumber);
    expect(status).toMatchObject({ type: "TD04", corrects: invoice.documentNumber, state: "sent", fileName: note.fileName });
    expect((await invoiceStatus(h.op, note.fileName)).documentNumber).toBe(note.documentNumber);
    expect((await invoiceStatus(h.op, invoice.documentNumber)).type).toBe("TD01");
    // A bare number is the invoices' series, never the credit notes'.
    const bare = await invoiceStatus(h.op, String(note.number)).catch((error: Error) => error.message);
    expect(typeof bare === "string" ? bare : bare.documentNumber).not.toBe(note.documentNumber);

    const listed = await listInvoices(h.op, { month: "2026-11" });
    expect(listed).toContainEqual(
      expect.objectContaining({ type: "TD04", documentNumber: note.documentNumber, corrects: invoice.documentNumber }),
    );
    expect(listed).toContainEqual(
      expect.objectContaining({ type: "TD01", documentNumber: invoice.documentNumber, corrects: null }),
    );
    // The invoices first, then the credit notes of their own numbering.
    const types = listed.map((row) => row.type);
    expect(types.indexOf("TD04")).toBeGreaterThan(types.lastIndexOf("TD01"));
  });

  it("rejected by SDI, is written again as a TD04 with the same number and date, the buyer corrected, and sent", async () => {
    const { invoice, note } = await creditedInvoice();
    await sdiSays(note.fileName, "NS");
    expect((await invoiceStatus(h.op, note.documentNumber)).state).toBe("rejected");
    h.advance(DAY);

    const { result, status } = await resendInvoice(h.op, note.documentNumber, { sdiCode: "KRMTX6A" });
    expect(result).toMatchObject({ ok: true, kind: "corrected", rejectedFileName: note.fileName, corrected: ["sdiCode"] });
    const fileName = (result as { fileName: string }).fileName;
    expect(fileName).not.toBe(note.fileName);
    const [now] = await h.db.select().from(invoices).where(eq(invoices.id, note.id));
    expect(now).toMatchObject({ type: "TD04", fileName, documentNumber: note.documentNumber, date: note.date });
    expect(values(now!.xml, "TipoDocumento")).toEqual(["TD04"]);
    expect(values(now!.xml, "Numero")).toEqual([note.documentNumber]);
    expect(values(now!.xml, "Data")).toEqual(values(note.xml, "Data"));
    expect(values(now!.xml, "IdDocumento")).toEqual([invoice.documentNumber]);
    expect(values(now!.xml, "CodiceDestinatario")).toEqual(["KRMTX6A"]);
    expect(await sdiRefusals(now!.xml, romeDay(h.services.clock()))).toEqual([]);
    expect(readFileSync(path.join(outbox, fileName), "utf8")).toBe(now!.xml);
    expect(status).toMatchObject({ type: "TD04", state: "sent", corrects: invoice.documentNumber });
    expect(status.files.map((f) => [f.fileName, f.outcome])).toEqual([
      [note.fileName, "rejected"],
      [fileName, null],
    ]);
  });
});

describe("invoices:resend after the hand-over gave up", () => {
  it("sends the same file again, its tries counted anew", async () => {
    // The outbox's place taken by a file: the intermediary's folder cannot be written.
    rmSync(outbox, { recursive: true, force: true });
    writeFileSync(outbox, "in the way");
    const { invoice } = await sentInvoice();
    for (let tries = 1; tries < 8; tries++) {
      h.advance(2 * HOUR);
      await h.services.jobs.runDue();
    }
    const failed = await invoiceStatus(h.op, invoice.documentNumber);
    expect(failed).toMatchObject({ state: "send_failed", transmittedAt: null, job: { status: "failed", attempts: 8 } });
    expect((await listInvoices(h.op, { state: "send_failed" })).map((i) => i.fileName)).toEqual([invoice.fileName]);
    // Nothing was rejected: nothing to correct.
    await expect(resendInvoice(h.op, invoice.documentNumber, { sdiCode: "KRMTX6A" })).rejects.toThrow(/never reached SDI/);

    rmSync(outbox);
    mkdirSync(outbox);
    h.advance(HOUR);
    const { result, status } = await resendInvoice(h.op, invoice.documentNumber, {});
    expect(result).toEqual({ ok: true, kind: "retried", fileName: invoice.fileName });
    expect(status).toMatchObject({ state: "sent", fileName: invoice.fileName, transmittedAt: h.services.clock() });
    expect(existsSync(path.join(outbox, invoice.fileName))).toBe(true);
    const [file] = await h.db.select().from(invoiceTransmissions).where(eq(invoiceTransmissions.invoiceId, invoice.id));
    expect(file).toMatchObject({ fileName: invoice.fileName, sentAt: h.services.clock() });
  });
});
