// Credit notes (TD04, decision 025) over real services and a real database, on the sandbox and on
// the local stand-in of Stripe's API: every refund of an invoiced payment that succeeds gets one,
// for what went back, with the VAT split as its invoice's, naming that invoice (number and date),
// dated the day the money went back; none for a refund still pending or failed, none where no
// invoice was due. Numbered gapless in their own yearly series, or among the invoices when the
// accountant chooses so, in date order across the year's end, under refunds made at once on two
// instances. Every file passes the official schema and SDI's controls.
import { and, asc, eq, inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  invoiceCounters,
  invoices,
  orderItems,
  payments,
  productTypes,
  products,
  type BillingDetails,
} from "#server/db/schema/index.ts";
import { createInvoices } from "#server/invoices/service.ts";
import { outboxTransmitter } from "#server/invoices/transmitter.ts";
import { createJobRunner } from "#server/jobs/runner.ts";
import { createLogger } from "#server/logger.ts";
import { requestRefund, type RefundCover } from "#server/payments/refunds.ts";
import { romeDay } from "#shared/rome-clock.ts";
import { COMPANY_BILLING, PERSON_BILLING } from "#tests/support/checkout.ts";
import { DAY } from "#tests/support/clock.ts";
import { testConfig } from "#tests/support/config.ts";
import { startFakeStripe, type FakeStripe } from "#tests/support/fake-stripe.ts";
import { operatorHarness } from "#tests/support/operators.ts";
import { sdiRefusals } from "#tests/support/sdi-controls.ts";

const EBOOK = "EB-9788828813217";

type Harness = ReturnType<typeof operatorHarness>;
type Document = typeof invoices.$inferSelect;

/** The text of every element of that name, in document order. */
const values = (xml: string, name: string) => [...xml.matchAll(new RegExp(`<${name}>([^<]*)</${name}>`, "g"))].map((m) => m[1]);
const cents = (text: string | undefined) => Math.round(Number(text) * 100);

/** Per VAT rate (its Natura when outside VAT), the document's taxable amount and VAT, in cents. */
function summaries(xml: string): Record<string, { taxable: number; vat: number }> {
  const out: Record<string, { taxable: number; vat: number }> = {};
  for (const [block] of xml.matchAll(/<DatiRiepilogo>[\s\S]*?<\/DatiRiepilogo>/g)) {
    const key = `${values(block, "AliquotaIVA")[0]}${values(block, "Natura")[0] ?? ""}`;
    out[key] = { taxable: cents(values(block, "ImponibileImporto")[0]), vat: cents(values(block, "Imposta")[0]) };
  }
  return out;
}
/** What a document is worth per rate, VAT included: what the customer paid, or got back, at that rate. */
const grossByRate = (xml: string) =>
  Object.fromEntries(Object.entries(summaries(xml)).map(([rate, { taxable, vat }]) => [rate, taxable + vat]));

/** What a test asks of the gateway, whichever it is. */
type Gateway = {
  hold(chargeId: string, hold: boolean): Promise<void>;
  /** The bank ends a held refund, and the portal hears of it as it does from this gateway. */
  settle(gatewayRefundId: string, outcome: "succeeded" | "failed"): Promise<void>;
};

function helpers(h: Harness) {
  const paymentOf = async (orderId: string) => (await h.db.select().from(payments).where(eq(payments.orderId, orderId)))[0]!;
  /** In number order: two documents issued in one run of the jobs share their time. */
  const documentsOf = (paymentId: string): Promise<Document[]> =>
    h.db
      .select()
      .from(invoices)
      .where(eq(invoices.paymentId, paymentId))
      .orderBy(asc(invoices.type), asc(invoices.year), asc(invoices.number));
  const invoiceOf = async (paymentId: string) => (await documentsOf(paymentId)).find((d) => d.type === "TD01");
  const creditNotesOf = async (paymentId: string) => (await documentsOf(paymentId)).filter((d) => d.type === "TD04");
  /** An order that asked for an invoice: an eBook (4 %) and a course, paid now; its invoice issued by the runner. */
  async function invoicedOrder(billing: BillingDetails = COMPANY_BILLING) {
    const [course] = await h.db
      .select({ sku: products.sku })
      .from(products)
      .innerJoin(productTypes, eq(productTypes.id, products.productTypeId))
      .where(eq(productTypes.code, "corso"))
      .orderBy(products.sku)
      .limit(1);
    const customer = await h.customer();
    const order = await h.paidOrder(customer.id, EBOOK, { billing }, { extraLines: [course!.sku] });
    await h.services.jobs.runDue();
    const payment = await paymentOf(order.id);
    return { order, payment, invoice: await invoiceOf(payment.id), course: course!.sku };
  }
  /** A refund decided and sent to the gateway at once, as `orders:refund` does; its credit note left to its job. */
  async function refund(paymentId: string, cover: RefundCover = { kind: "payment" }) {
    const decided = await h.db.transaction((tx) =>
      requestRefund(tx, { paymentId, cover, reason: "operator", requestedBy: "operator:test" }, h.services.clock()),
    );
    return (await h.services.refunds.processRefund(decided!.id))!;
  }
  /** What SDI would refuse the document for, received on the services' day. */
  const refusals = (xml: string) => sdiRefusals(xml, romeDay(h.services.clock()));
  return { paymentOf, documentsOf, invoiceOf, creditNotesOf, invoicedOrder, refund, refusals };
}

function creditNoteTests(h: Harness, gateway: () => Gateway) {
  const { invoicedOrder, refund, creditNotesOf, refusals } = helpers(h);

  it("an amount: a credit note for it, the VAT split as the invoice's, naming the invoice, dated the refund's day, sent to SDI", async () => {
    const { payment, invoice } = await invoicedOrder();
    h.advance(2 * DAY);
    const made = await refund(payment.id, { kind: "amount", amountCents: 1250 });
    expect(made.state).toBe("succeeded");
    // Queued with the refund's success, issued by the runner.
    expect(await creditNotesOf(payment.id)).toEqual([]);
    await h.services.jobs.runDue();

    const [note] = await creditNotesOf(payment.id);
    expect(note).toMatchObject({
      type: "TD04",
      numbering: "credit_notes",
      refundId: made.id,
      correctsInvoiceId: invoice!.id,
      date: romeDay(h.services.clock()),
      totalCents: 1250,
      transmittedAt: h.services.clock(),
    });
    expect(note!.documentNumber).toBe(`NC/${note!.number}`);
    expect(await refusals(note!.xml)).toEqual([]);
    expect(values(note!.xml, "TipoDocumento")).toEqual(["TD04"]);
    expect(values(note!.xml, "Data")).toEqual([note!.date, invoice!.date]);
    expect(values(note!.xml, "IdDocumento")).toEqual([invoice!.documentNumber]);
    expect(values(note!.xml, "ImportoTotaleDocumento")).toEqual(["12.50"]);
    // The same buyer, the same rates as the invoice; nothing is paid by a credit note.
    expect(values(note!.xml, "IdCodice")).toEqual(values(invoice!.xml, "IdCodice"));
    expect(Object.keys(summaries(note!.xml))).toEqual(Object.keys(summaries(invoice!.xml)));
    expect(note!.xml).not.toContain("DatiPagamento");
    // The amount came from each rate in proportion to what the invoice has at it.
    const paid = grossByRate(invoice!.xml);
    const back = grossByRate(note!.xml);
    for (const rate of Object.keys(paid)) {
      expect(Math.abs(back[rate]! - Math.round((1250 * paid[rate]!) / payment.amountCents))).toBeLessThanOrEqual(1);
    }
    // Issuing again finds it.
    expect((await h.services.invoices.issueCreditNote(made.id))!.id).toBe(note!.id);
  });

  it("a line, then the rest: a credit note each, one after the other; together they give back the whole invoice, rate by rate", async () => {
    const { payment, invoice, course } = await invoicedOrder(PERSON_BILLING);
    h.advance(DAY);
    const [courseLine] = await h.db.select({ id: products.id }).from(products).where(eq(products.sku, course));
    const [item] = await h.db
      .select({ id: orderItems.id })
      .from(orderItems)
      .where(and(eq(orderItems.orderId, payment.orderId), eq(orderItems.productId, courseLine!.id)));
    await refund(payment.id, { kind: "line", orderItemId: item!.id });
    h.advance(DAY);
    await refund(payment.id);
    await h.services.jobs.runDue();

    const notes = await creditNotesOf(payment.id);
    expect(notes.map((n) => n.number)).toEqual([notes[0]!.number, notes[0]!.number + 1]);
    for (const note of notes) expect(await refusals(note.xml)).toEqual([]);
    // The line's credit note is that line, whole.
    expect(values(notes[0]!.xml, "Descrizione")).toHaveLength(1);
    expect(notes.reduce((sum, n) => sum + n.totalCents, 0)).toBe(invoice!.totalCents);
    const paid = grossByRate(invoice!.xml);
    const back = notes.map((n) => grossByRate(n.xml));
    for (const rate of Object.keys(paid)) expect(back.reduce((sum, b) => sum + (b[rate] ?? 0), 0)).toBe(paid[rate]);
  });

  it("a refund the bank holds gets its credit note when it goes through, dated that day; a failed one gets none", async () => {
    const { payment, invoice } = await invoicedOrder();
    await gateway().hold(payment.chargeId, true);
    const held = await refund(payment.id, { kind: "amount", amountCents: 500 });
    const failing = await refund(payment.id, { kind: "amount", amountCents: 300 });
    expect([held.state, failing.state]).toEqual(["pending", "pending"]);
    await h.services.jobs.runDue();
    expect(await creditNotesOf(payment.id)).toEqual([]);

    h.advance(3 * DAY);
    await gateway().settle(failing.gatewayRefundId!, "failed");
    await gateway().settle(held.gatewayRefundId!, "succeeded");
    await h.services.jobs.runDue();
    const notes = await creditNotesOf(payment.id);
    expect(notes).toEqual([
      expect.objectContaining({
        refundId: held.id,
        totalCents: 500,
        date: romeDay(h.services.clock()),
        correctsInvoiceId: invoice!.id,
      }),
    ]);
    expect(await refusals(notes[0]!.xml)).toEqual([]);
    expect(await h.services.invoices.issueCreditNote(failing.id)).toBeNull();
  });

  it("no invoice asked for: the refund gets no credit note", async () => {
    const customer = await h.customer();
    const order = await h.paidOrder(customer.id, EBOOK);
    const { paymentOf } = helpers(h);
    const payment = await paymentOf(order.id);
    await refund(payment.id);
    await h.services.jobs.runDue();
    expect(await helpers(h).documentsOf(payment.id)).toEqual([]);
  });
}

describe("on the sandbox gateway", () => {
  const h = operatorHarness();
  const { invoicedOrder, refund, invoiceOf, creditNotesOf, documentsOf, refusals } = helpers(h);
  creditNoteTests(h, () => ({
    async hold(chargeId, hold) {
      await h.services.sandbox!.holdRefunds(chargeId, hold);
    },
    async settle(refundId, outcome) {
      // The sandbox sends no notification: the sweep reads the refund again at its next check.
      expect(await h.services.sandbox!.settleRefund(refundId, outcome)).toBe(true);
      h.advance(30 * 60_000);
    },
  }));

  it("a refund made before the invoice's job ran: the invoice first, then the credit note naming it", async () => {
    const customer = await h.customer();
    const order = await h.paidOrder(customer.id, EBOOK, { billing: COMPANY_BILLING });
    const payment = await helpers(h).paymentOf(order.id);
    const made = await refund(payment.id, { kind: "amount", amountCents: 100 });
    const note = (await h.services.invoices.issueCreditNote(made.id))!;
    const invoice = (await invoiceOf(payment.id))!;
    expect([invoice.totalCents, note.totalCents, note.correctsInvoiceId]).toEqual([order.totalCents, 100, invoice.id]);
    expect(values(note.xml, "IdDocumento")).toEqual([invoice.documentNumber]);
    await h.services.jobs.runDue();
    expect(await documentsOf(payment.id)).toHaveLength(2);
  });

  it("a payment given back whole before its invoice's job ran: neither invoice nor credit note", async () => {
    const customer = await h.customer();
    const order = await h.paidOrder(customer.id, EBOOK, { billing: COMPANY_BILLING });
    const payment = await helpers(h).paymentOf(order.id);
    await refund(payment.id);
    await h.services.jobs.runDue();
    expect(await documentsOf(payment.id)).toEqual([]);
  });

  it("keeps credit note numbers gapless, one per refund, when two instances issue the refunds made at once", async () => {
    const orders = [];
    for (let i = 0; i < 4; i++) orders.push(await invoicedOrder(i % 2 ? COMPANY_BILLING : PERSON_BILLING));
    h.advance(DAY);
    // Two refunds of each payment at once, beside the runner and a second instance.
    const made = await Promise.all(
      orders.flatMap(({ payment }) => [200, 300].map((amountCents) => refund(payment.id, { kind: "amount", amountCents }))),
    );
    const other = createInvoices({
      db: h.db,
      invoicing: testConfig().invoicing,
      runner: createJobRunner({ db: h.db, log: createLogger("silent"), now: h.services.clock }),
      transmitter: outboxTransmitter(testConfig().invoicing.outboxDir),
      now: h.services.clock,
    });
    await Promise.all([
      ...made.map((r) => h.services.invoices.issueCreditNote(r.id)),
      ...[...made].reverse().map((r) => other.issueCreditNote(r.id)),
      h.services.jobs.runDue(),
    ]);
    const notes = await h.db
      .select()
      .from(invoices)
      .where(
        inArray(
          invoices.refundId,
          made.map((r) => r.id),
        ),
      );
    expect(notes).toHaveLength(made.length);
    const numbers = notes.map((n) => n.number).sort((a, b) => a - b);
    expect(numbers).toEqual(numbers.map((_, i) => numbers[0]! + i));
    const year = await h.db
      .select({ number: invoices.number })
      .from(invoices)
      .where(and(eq(invoices.numbering, "credit_notes"), eq(invoices.year, 2026)))
      .orderBy(asc(invoices.number));
    expect(year.map((row) => row.number)).toEqual(year.map((_, i) => i + 1));
    for (const note of notes) expect(await refusals(note.xml)).toEqual([]);
    // Each payment's two credit notes give back what its two refunds did.
    for (const { payment } of orders) {
      expect((await creditNotesOf(payment.id)).map((n) => n.totalCents).sort()).toEqual([200, 300]);
    }
  });

  it("dates a refund at 23:59:59 on 31 December that year's last credit note, and one at 00:00:00 the next year's first, whatever order their jobs run in", async () => {
    // Paid and invoiced on 20 December 2027; no other test numbers credit notes in 2027 or 2028.
    h.advance(Date.parse("2027-12-20T09:00:00Z") - h.services.clock().getTime());
    const bought = [await invoicedOrder(), await invoicedOrder()];
    const at = (iso: string) => h.advance(Date.parse(iso) - h.services.clock().getTime());
    at("2027-12-31T09:00:00Z");
    const earlierThatDay = await refund(bought[0]!.payment.id, { kind: "amount", amountCents: 100 });
    at("2027-12-31T22:59:59Z"); // 23:59:59 in Rome
    const lastOfYear = await refund(bought[0]!.payment.id, { kind: "amount", amountCents: 200 });
    at("2027-12-31T23:00:00Z"); // 00:00:00 on 1 January
    const firstOfYear = await refund(bought[1]!.payment.id, { kind: "amount", amountCents: 300 });
    // Their jobs run after midnight, latest first.
    at("2028-01-01T00:10:00Z");
    const first = (await h.services.invoices.issueCreditNote(firstOfYear.id))!;
    const last = (await h.services.invoices.issueCreditNote(lastOfYear.id))!;
    const earlier = (await creditNotesOf(bought[0]!.payment.id)).find((n) => n.refundId === earlierThatDay.id)!;
    expect([first.year, first.number, first.documentNumber, first.date]).toEqual([2028, 1, "NC/1", "2028-01-01"]);
    expect([earlier.number, earlier.date, last.year, last.number, last.date]).toEqual([1, "2027-12-31", 2027, 2, "2027-12-31"]);
    expect(values(last.xml, "Data")[0]).toBe("2027-12-31");
    const counters = await h.db
      .select()
      .from(invoiceCounters)
      .where(and(eq(invoiceCounters.numbering, "credit_notes"), inArray(invoiceCounters.year, [2027, 2028])));
    expect(counters.map((c) => [c.year, c.lastNumber]).sort()).toEqual([
      [2027, 2],
      [2028, 1],
    ]);
    for (const note of [first, last, earlier]) expect(await refusals(note.xml)).toEqual([]);
  });
});

describe("on Stripe (a local stand-in of its API)", () => {
  let stripe: FakeStripe;
  beforeAll(async () => {
    stripe = await startFakeStripe();
  });
  afterAll(async () => {
    await stripe?.close();
  });
  const h = operatorHarness({ stripe: () => stripe });
  creditNoteTests(h, () => ({
    async hold(chargeId, hold) {
      stripe.holdRefunds(chargeId, hold);
    },
    async settle(refundId, outcome) {
      // Stripe says so at once: refund.updated, or refund.failed, to the webhook.
      const event = stripe.settleRefund(refundId, outcome);
      expect(await h.services.stripeWebhooks!.handle(Buffer.from(event.payload), event.signature)).toEqual({
        status: 200,
        body: "ok",
      });
    },
  }));
});

describe("credit notes numbered among the invoices (CREDIT_NOTE_SERIES = INVOICE_SERIES)", () => {
  const h = operatorHarness({ env: { CREDIT_NOTE_SERIES: "WEB" } });
  const { invoicedOrder, refund, creditNotesOf, refusals } = helpers(h);

  it("takes the next invoice number, in the invoices' counter, and names its invoice", async () => {
    const { payment, invoice } = await invoicedOrder();
    h.advance(DAY);
    await refund(payment.id, { kind: "amount", amountCents: 700 });
    await h.services.jobs.runDue();
    const [note] = await creditNotesOf(payment.id);
    expect(note).toMatchObject({
      numbering: "invoices",
      year: invoice!.year,
      number: invoice!.number + 1,
      documentNumber: `WEB/${invoice!.number + 1}`,
    });
    expect(values(note!.xml, "IdDocumento")).toEqual([invoice!.documentNumber]);
    expect(await refusals(note!.xml)).toEqual([]);
    // The next invoice follows the credit note.
    const next = await invoicedOrder();
    expect(next.invoice!.number).toBe(note!.number + 1);
    const [counter] = await h.db
      .select()
      .from(invoiceCounters)
      .where(and(eq(invoiceCounters.numbering, "invoices"), eq(invoiceCounters.year, invoice!.year)));
    expect(counter!.lastNumber).toBe(next.invoice!.number);
  });
});
