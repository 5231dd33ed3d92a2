// A credit note on the receipt: part of an invoiced order given back by an operator, the credit
// note its job issues is named (number and date) on the order's and the payment's receipts beside
// the invoice, with a link to its file; the order's owner downloads it as an XML attachment (a
// TD04 naming the invoice it corrects); anyone else, and an unknown or malformed credit note, 404.
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import ReceiptPage, { loader as receiptLoaderBare } from "#app/routes/receipt.tsx";
import { loader as creditNoteLoaderBare } from "#app/routes/credit-note-download.ts";
import { invoices, payments } from "#server/db/schema/index.ts";
import { refundOrder } from "#server/operators/orders.ts";
import { creditNotePath, receiptPath } from "#shared/links.ts";
import { PURCHASE_MESSAGES as M } from "#shared/purchase-messages.ts";
import { COMPANY_BILLING } from "#tests/support/checkout.ts";
import { DAY } from "#tests/support/clock.ts";
import { behindSignIn } from "#tests/support/customer-pages.ts";
import { operatorHarness } from "#tests/support/operators.ts";
import { decode, render } from "#tests/support/render-page.ts";
import { thrownResponse } from "#tests/support/requests.ts";
import { loaderArgs } from "#tests/support/router-context.ts";

const h = operatorHarness();
const receiptLoader = behindSignIn(receiptLoaderBare);
const creditNoteLoader = behindSignIn(creditNoteLoaderBare);

/** The text of every element of that name, in document order. */
const values = (xml: string, name: string) => [...xml.matchAll(new RegExp(`<${name}>([^<]*)</${name}>`, "g"))].map((m) => m[1]);

/** A signed-in GET of a customer route, as React Router calls its loader. */
function get(path: string, params: Record<string, string>, cookie: string) {
  const args = loaderArgs(h.services, path, params);
  return { ...args, request: new Request(args.request.url, { headers: { cookie } }) };
}

describe("a credit note on the receipt", () => {
  it("is named and linked beside the invoice, and downloads as the owner's TD04 XML; anyone else, and a bad one, 404", async () => {
    const { order, invoice } = await h.invoicedOrder(COMPANY_BILLING);
    const [payment] = await h.db.select().from(payments).where(eq(payments.orderId, order.id));
    // Ten days on (3 December in Rome) an operator gives 5 € back; the refund's job issues the credit note.
    h.advance(10 * DAY);
    await refundOrder(h.op, order.orderCode, { kind: "amount", amountCents: 500, paymentCode: null });
    await h.services.jobs.runDue();
    const [creditNote] = await h.db
      .select()
      .from(invoices)
      .where(and(eq(invoices.paymentId, payment!.id), eq(invoices.type, "TD04")));
    expect(creditNote).toMatchObject({ date: "2026-12-03", totalCents: 500 });
    expect(creditNote!.documentNumber).toBe(`NC/${creditNote!.number}`);

    const owner = await h.session(order.userId);
    const href = creditNotePath(order.orderCode, payment!.paymentCode, creditNote!.year, creditNote!.number);
    expect(href).toBe(`/ricevuta/${order.orderCode}/${payment!.paymentCode}/nota-di-credito/2026-${creditNote!.number}`);

    // Both receipts, the order's and the payment's, name it beside the invoice (which keeps its
    // own number and date) and link its file.
    for (const [path, params] of [
      [receiptPath(order.orderCode), { ordercode: order.orderCode }],
      [receiptPath(order.orderCode, payment!.paymentCode), { ordercode: order.orderCode, paymentcode: payment!.paymentCode }],
    ] as const) {
      const data = await receiptLoader(get(path, params, owner.cookie));
      expect(data.receipt.payments[0]!.invoice).toEqual({ number: invoice.documentNumber, date: "2026-11-23" });
      expect(data.receipt.payments[0]!.creditNotes).toEqual([{ number: creditNote!.documentNumber, date: "2026-12-03", href }]);
      const html = await render(ReceiptPage, data, path);
      expect(decode(html)).toContain(`Fattura elettronica n. ${invoice.documentNumber} del 23 novembre 2026`);
      expect(decode(html)).toContain(`Nota di credito n. ${creditNote!.documentNumber} del 3 dicembre 2026`);
      expect(html).toContain(`<a href="${href}" download="" class="link">${M.downloadCreditNote}</a>`);
    }

    // The owner gets the file, as the invoice is given: an attachment under its SDI name, never cached.
    const params = { ordercode: order.orderCode, paymentcode: payment!.paymentCode };
    const response = (await creditNoteLoader(
      get(href, { ...params, creditnote: `2026-${creditNote!.number}` }, owner.cookie),
    )) as Response;
    expect(response.status).toBe(200);
    expect(response.headers.get("Content-Type")).toBe("application/xml; charset=utf-8");
    expect(response.headers.get("Content-Disposition")).toBe(`attachment; filename="${creditNote!.fileName}"`);
    expect(response.headers.get("Cache-Control")).toBe("private, no-store");
    const xml = await response.text();
    expect(xml).toBe(creditNote!.xml);
    expect(xml).toContain("<TipoDocumento>TD04</TipoDocumento>");
    // It corrects the invoice: DatiFattureCollegate names its number and date.
    const linked = /<DatiFattureCollegate>([\s\S]*?)<\/DatiFattureCollegate>/.exec(xml)?.[1] ?? "";
    expect(values(linked, "IdDocumento")).toEqual([invoice.documentNumber]);
    expect(values(linked, "Data")).toEqual(["2026-11-23"]);

    // Another customer, an unknown credit note, a malformed one, another payment code: 404.
    const stranger = await h.session((await h.customer()).id);
    const notFound = async (creditnote: string, cookie: string, paymentcode = payment!.paymentCode) =>
      (await thrownResponse(creditNoteLoader(get(href, { ...params, paymentcode, creditnote }, cookie)))).status;
    expect(await notFound(`2026-${creditNote!.number}`, stranger.cookie)).toBe(404);
    expect(await notFound(`2026-${creditNote!.number + 1}`, owner.cookie)).toBe(404);
    expect(await notFound(`2025-${creditNote!.number}`, owner.cookie)).toBe(404);
    expect(await notFound("nota", owner.cookie)).toBe(404);
    expect(await notFound(`2026-${creditNote!.number}.xml`, owner.cookie)).toBe(404);
    expect(await notFound(`2026-${creditNote!.number}`, owner.cookie, order.orderCode)).toBe(404);
  });
});
