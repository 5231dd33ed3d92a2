// E-invoices over real services and a real database: issued by the job runner for every paid
// payment whose order asked for one (a checkout's, each EDU month's), dated the payment's day in
// Rome and numbered in that day's year, in the payments' order, without gaps or duplicates however
// many are issued at once and in whatever order their jobs run; refused past the 12 days of an
// immediate invoice; accepted by the official FatturaPA schema and SDI's controls; written to the
// SDI outbox (retried when it fails), refused in production without the seller's data, and
// downloaded from the receipt by the order's owner only.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { and, asc, eq, inArray } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import ReceiptPage, { loader as receiptLoaderBare } from "#app/routes/receipt.tsx";
import { loader as invoiceLoaderBare } from "#app/routes/invoice-download.ts";
import {
  invoiceCounters,
  invoices,
  jobs,
  orders,
  payments,
  products,
  productTypes,
  subscriptions,
} from "#server/db/schema/index.ts";
import { createJobRunner } from "#server/jobs/runner.ts";
import { createLogger } from "#server/logger.ts";
import { createInvoices, InvoicingNotConfigured, LateInvoice } from "#server/invoices/service.ts";
import { outboxTransmitter } from "#server/invoices/transmitter.ts";
import type { CheckoutDetails } from "#server/commerce/checkout.ts";
import type { Services } from "#server/services.ts";
import { formatEuro } from "#shared/euro.ts";
import { EDU_PRODUCT_CODE } from "#shared/library-constants.ts";
import { romeDay } from "#shared/rome-clock.ts";
import { invoicePath } from "#shared/links.ts";
import { PURCHASE_MESSAGES as M } from "#shared/purchase-messages.ts";
import { checkoutDetails, COMPANY_BILLING, PERSON_BILLING, SHIPMENT } from "#tests/support/checkout.ts";
import { DAY, MINUTE, START } from "#tests/support/clock.ts";
import { testConfig } from "#tests/support/config.ts";
import { signedInCustomer } from "#tests/support/customers.ts";
import { behindSignIn } from "#tests/support/customer-pages.ts";
import { createTestDatabase, type TestDatabase } from "#tests/support/database.ts";
import { sdiRefusals } from "#tests/support/sdi-controls.ts";
import { decode, render } from "#tests/support/render-page.ts";
import { thrownResponse } from "#tests/support/requests.ts";
import { loaderArgs } from "#tests/support/router-context.ts";
import { createTestServices } from "#tests/support/services.ts";

const EBOOK = "EB-9788828813217";
const invoiceLoader = behindSignIn(invoiceLoaderBare);
const receiptLoader = behindSignIn(receiptLoaderBare);

let database: TestDatabase;
let services: Services;
let clock = START;
/** The SDI outbox: under `blocker` while a test makes it unwritable. */
let folder: string;
const outbox = () => path.join(folder, "sdi-outbox");

beforeAll(async () => {
  database = await createTestDatabase();
  folder = mkdtempSync(path.join(tmpdir(), "portal-invoices-"));
  services = await createTestServices(database, testConfig({ SDI_OUTBOX_DIR: outbox() }), { now: () => clock });
});
afterAll(async () => {
  await services?.close();
  await database?.destroy();
  rmSync(folder, { recursive: true, force: true });
});
beforeEach(() => {
  clock = START;
});

const customer = () => signedInCustomer(services, database.db);

/** A product bought at the checkout and paid with the sandbox's good card; the payment's row. */
async function paid(userId: string, product: string, details: Partial<CheckoutDetails>) {
  const opened = await services.checkout.open(userId, product);
  if (!opened.ok) throw new Error(`setup: ${opened.reason}`);
  const started = await services.payments.start(userId, opened.orderId, checkoutDetails(details));
  if (!started.ok) throw new Error(`setup: ${started.reason}`);
  await services.sandbox!.confirmCard(started.setupId, "4242 4242 4242 4242");
  if ((await services.payments.settleSetup(started.setupId)).state !== "paid") throw new Error("setup: not paid");
  const [payment] = await database.db.select().from(payments).where(eq(payments.orderId, opened.orderId));
  const [order] = await database.db.select().from(orders).where(eq(orders.id, opened.orderId));
  return { payment: payment!, order: order! };
}

const invoiceOf = async (paymentId: string) =>
  (await database.db.select().from(invoices).where(eq(invoices.paymentId, paymentId)))[0] ?? null;

/** The text of every element of that name, in document order. */
const values = (xml: string, name: string) => [...xml.matchAll(new RegExp(`<${name}>([^<]*)</${name}>`, "g"))].map((m) => m[1]);
/** What SDI would refuse the invoice for, sent when the test's clock says (none: accepted). */
const refusals = (xml: string) => sdiRefusals(xml, romeDay(clock));

describe("issuing", () => {
  it("invoices a paid order whose company asked for it: through the job runner, valid, numbered, sent to SDI", async () => {
    const { user } = await customer();
    const { payment, order } = await paid(user.id, EBOOK, { billing: COMPANY_BILLING });
    // Queued with the payment, issued by the runner.
    expect(await invoiceOf(payment.id)).toBeNull();
    expect(
      (
        await database.db
          .select()
          .from(jobs)
          .where(eq(jobs.key, `invoice:${payment.id}`))
      ).length,
    ).toBe(1);
    await services.jobs.runDue();

    const invoice = (await invoiceOf(payment.id))!;
    expect(invoice).toMatchObject({
      year: 2026,
      orderId: order.id,
      userId: user.id,
      totalCents: order.totalCents,
      issuedAt: START,
    });
    expect(invoice.documentNumber).toBe(`WEB/${invoice.number}`);
    expect(invoice.fileName).toMatch(/^IT06363391001_[0-9A-Z]{5}\.xml$/);
    expect(await refusals(invoice.xml)).toEqual([]);
    expect(values(invoice.xml, "Data")).toEqual(["2026-11-23"]);
    expect(values(invoice.xml, "CodiceDestinatario")).toEqual(["M5UXCR1"]);
    expect(values(invoice.xml, "IdCodice")).toEqual(["06363391001", "06363391001", "00743110157"]);
    expect(values(invoice.xml, "Denominazione")).toEqual(["Novalex Editore S.r.l.", "Studio Legale Conti S.r.l."]);
    expect(values(invoice.xml, "Indirizzo")).toEqual(["Via Nazionale 91", "Corso Italia 10"]);
    expect(values(invoice.xml, "AliquotaIVA")).toEqual(["4.00", "4.00"]);
    expect(values(invoice.xml, "ImportoTotaleDocumento")).toEqual([(order.totalCents / 100).toFixed(2)]);
    expect(values(invoice.xml, "Causale")[0]).toContain(order.orderCode);

    // Sent: the same file in the outbox, under its SDI name.
    expect(invoice.transmittedAt).toEqual(START);
    expect(readFileSync(path.join(outbox(), invoice.fileName), "utf8")).toBe(invoice.xml);
    // Issuing again finds it.
    expect((await services.invoices.issue(payment.id))!.id).toBe(invoice.id);
  });

  it("invoices nothing when no invoice was asked for", async () => {
    const { user } = await customer();
    const { payment } = await paid(user.id, EBOOK, {});
    await services.jobs.runDue();
    expect(await invoiceOf(payment.id)).toBeNull();
    expect(
      await database.db
        .select()
        .from(jobs)
        .where(eq(jobs.key, `invoice:${payment.id}`)),
    ).toEqual([]);
    expect(await services.invoices.issue(payment.id)).toBeNull();
  });

  it("invoices a private customer by Codice Fiscale to their PEC, by the billing name at the parcel's address, a paper book's VAT paid at source as N2.2", async () => {
    const [paper] = await database.db
      .select({ sku: products.sku })
      .from(products)
      .innerJoin(productTypes, eq(productTypes.id, products.productTypeId))
      .where(and(eq(productTypes.code, "paper_flex"), eq(products.sellable, true)))
      .limit(1);
    const { user } = await customer();
    // The parcel goes to Luca Bianchi's office; the invoice is Maria Rossi's, at that address.
    const recipient = { ...SHIPMENT, firstname: "Luca", lastname: "Bianchi", address: "Corso Italia 10" };
    const { payment, order } = await paid(user.id, paper!.sku, {
      shipment: recipient,
      billing: { ...PERSON_BILLING, addressAsShipment: true, address: { ...recipient, firstname: "Maria", lastname: "Rossi" } },
    });
    await services.jobs.runDue();
    const { xml } = (await invoiceOf(payment.id))!;
    expect(await refusals(xml)).toEqual([]);
    expect(values(xml, "CodiceDestinatario")).toEqual(["0000000"]);
    expect(values(xml, "PECDestinatario")).toEqual(["maria.rossi@pec.example.it"]);
    expect(values(xml, "CodiceFiscale")).toEqual(["RSSMRA85T10A562S"]);
    expect([values(xml, "Nome"), values(xml, "Cognome"), values(xml, "Indirizzo")[1]]).toEqual([
      ["Maria"],
      ["Rossi"],
      "Corso Italia 10",
    ]);
    expect(values(xml, "Natura")).toEqual(["N2.2", "N2.2"]);
    expect(values(xml, "Imposta")).toEqual(["0.00"]);
    expect(values(xml, "ImponibileImporto")).toEqual([(order.totalCents / 100).toFixed(2)]);
  });

  it("invoices an association by its Codice Fiscale of 11 digits and its Denominazione", async () => {
    const { user } = await customer();
    const billing = { ...PERSON_BILLING, ssn: "97735020584", name: "Associazione Giuristi Romani", pec: undefined };
    const { payment } = await paid(user.id, EBOOK, { billing });
    await services.jobs.runDue();
    const { xml } = (await invoiceOf(payment.id))!;
    expect(await refusals(xml)).toEqual([]);
    expect(values(xml, "CodiceFiscale")).toEqual(["97735020584"]);
    expect(values(xml, "Denominazione")).toEqual(["Novalex Editore S.r.l.", "Associazione Giuristi Romani"]);
    expect(xml).not.toContain("<Nome>");
  });

  it("invoices each month of the EDU subscription as its own payment, with the month's dates", async () => {
    const { user } = await customer();
    const { payment: first } = await paid(user.id, EDU_PRODUCT_CODE, { billing: COMPANY_BILLING });
    await services.jobs.runDue();
    // Month 2 falls due a calendar month after the purchase: the runner charges it, then invoices it.
    clock = new Date(START.getTime() + 30 * DAY + MINUTE);
    await services.jobs.runDue();
    const [sub] = await database.db.select().from(subscriptions).where(eq(subscriptions.userId, user.id));
    const months = await database.db
      .select()
      .from(payments)
      .where(eq(payments.orderId, sub!.orderId))
      .orderBy(asc(payments.paidAt));
    expect(months.map((p) => p.id)[0]).toBe(first.id);
    expect(months).toHaveLength(2);

    const [one, two] = await Promise.all(months.map((p) => invoiceOf(p.id)));
    expect(two!.number).toBe(one!.number + 1);
    expect(two!.issuedAt).toEqual(clock);
    expect(await refusals(two!.xml)).toEqual([]);
    // Dated the day it was paid; its month ends the day before the next one starts (23 January).
    expect([two!.date, values(two!.xml, "Data")]).toEqual(["2026-12-23", ["2026-12-23"]]);
    expect(values(two!.xml, "Descrizione")[0]).toMatch(/: mese 2, dal 23\/12\/2026 al 22\/01\/2027$/);
    expect([values(two!.xml, "DataInizioPeriodo"), values(two!.xml, "DataFinePeriodo")]).toEqual([
      ["2026-12-23"],
      ["2027-01-22"],
    ]);
    expect([values(two!.xml, "AliquotaIVA")[0], values(two!.xml, "ImportoTotaleDocumento")]).toEqual(["22.00", ["4.50"]]);
    expect([values(two!.xml, "ImponibileImporto"), values(two!.xml, "Imposta")]).toEqual([["3.69"], ["0.81"]]);
  });

  it("invoices nothing for a payment that was given back before its turn came", async () => {
    const { user } = await customer();
    const { payment } = await paid(user.id, EBOOK, { billing: COMPANY_BILLING });
    await database.db.update(payments).set({ status: "refunded", refundedAt: clock }).where(eq(payments.id, payment.id));
    await services.jobs.runDue();
    expect(await invoiceOf(payment.id)).toBeNull();
  });
});

describe("numbering", () => {
  it("gives many payments invoiced at once the numbers that follow, without gaps or duplicates, each payment once", async () => {
    const bought: (typeof payments.$inferSelect)[] = [];
    for (let i = 0; i < 8; i++) {
      const { user } = await customer();
      bought.push((await paid(user.id, EBOOK, { billing: i % 2 ? COMPANY_BILLING : PERSON_BILLING })).payment);
    }
    const [before] = await database.db.select().from(invoiceCounters).where(eq(invoiceCounters.year, 2026));
    const last = before?.lastNumber ?? 0;
    // Every payment twice, all at once, beside the job runner doing the same.
    const issued = await Promise.all(
      [...bought, ...bought].map((p) => services.invoices.issue(p.id)).concat([services.jobs.runDue().then(() => null)]),
    );
    const rows = await database.db.select().from(invoices).where(eq(invoices.year, 2026)).orderBy(asc(invoices.number));
    const mine = rows.filter((row) => bought.some((p) => p.id === row.paymentId));
    expect(mine).toHaveLength(bought.length);
    expect(mine.map((row) => row.number)).toEqual(bought.map((_, i) => last + i + 1));
    expect(rows.map((row) => row.number)).toEqual(rows.map((_, i) => i + 1));
    // Both calls for a payment answered the same invoice.
    for (const p of bought) expect(new Set(issued.filter((r) => r?.paymentId === p.id).map((r) => r!.id)).size).toBe(1);
    const [after] = await database.db.select().from(invoiceCounters).where(eq(invoiceCounters.year, 2026));
    expect(after!.lastNumber).toBe(last + bought.length);
  });
});

/** An order of the ebook by a new customer who asked for a company's invoice, paid when `clock` says. */
async function paidAt(at: Date) {
  clock = at;
  const { user } = await customer();
  return (await paid(user.id, EBOOK, { billing: COMPANY_BILLING })).payment;
}

/** The invoices of a year in number order: their numbers and dates. */
const yearsInvoices = (year: number) =>
  database.db
    .select({ paymentId: invoices.paymentId, number: invoices.number, date: invoices.date })
    .from(invoices)
    .where(eq(invoices.year, year))
    .orderBy(asc(invoices.number));

describe("dating and numbering (decision 021)", () => {
  it("dates a payment at 23:59:59 on 31 December that year's last invoice, and one at 00:00:00 the next year's first, whatever order their jobs run in", async () => {
    // 23:59:59 and 00:00:00 in Rome (UTC+1 in winter), at the end of 2027: no other test numbers in 2027 or 2028.
    const earlierThatDay = await paidAt(new Date("2027-12-31T09:00:00Z"));
    const lastOfYear = await paidAt(new Date("2027-12-31T22:59:59Z"));
    const firstOfYear = await paidAt(new Date("2027-12-31T23:00:00Z"));
    // Their jobs run after midnight, latest first (what the job runs: the runner would also charge
    // the EDU months of other tests' customers that far ahead).
    clock = new Date("2028-01-01T00:10:00Z");
    const first = (await services.invoices.issue(firstOfYear.id))!;
    const last = (await services.invoices.issue(lastOfYear.id))!;

    expect([first.year, first.number, first.documentNumber, first.date]).toEqual([2028, 1, "WEB/1", "2028-01-01"]);
    expect(values(first.xml, "Data")).toEqual(["2028-01-01"]);
    expect([last.year, last.number, last.date, values(last.xml, "Data")]).toEqual([2027, 2, "2027-12-31", ["2027-12-31"]]);
    expect((await invoiceOf(earlierThatDay.id))!.number).toBe(1);
    const counters = await database.db
      .select()
      .from(invoiceCounters)
      .where(inArray(invoiceCounters.year, [2027, 2028]));
    expect(counters.map((c) => [c.year, c.lastNumber]).sort()).toEqual([
      [2027, 2],
      [2028, 1],
    ]);
    for (const invoice of [first, last]) expect(await refusals(invoice.xml)).toEqual([]);
  });

  it("numbers the payments of a year in their order, the earlier day first, when the later one's job runs first", async () => {
    const before = await paidAt(new Date("2026-12-29T22:59:59Z")); // 23:59:59 on the 29th in Rome
    const after = await paidAt(new Date("2026-12-29T23:00:00Z")); // 00:00:00 on the 30th
    clock = new Date("2026-12-29T23:01:00Z");
    const later = (await services.invoices.issue(after.id))!;
    const earlier = (await invoiceOf(before.id))!;
    expect([earlier.date, later.date]).toEqual(["2026-12-29", "2026-12-30"]);
    expect(later.number).toBe(earlier.number + 1);
    // Its own job finds it issued.
    await services.jobs.runDue();
    expect((await invoiceOf(before.id))!.id).toBe(earlier.id);
  });

  it("keeps numbers gapless and in the payments' order when two instances issue payments around midnight at once, each twice", async () => {
    const made: (typeof payments.$inferSelect)[] = [];
    // Six payments from 23:59:57 on 27 December to 00:00:02 on the 28th, Rome time.
    for (let i = 0; i < 6; i++) made.push(await paidAt(new Date(Date.parse("2026-12-27T22:59:57Z") + i * 1000)));
    clock = new Date("2026-12-27T23:05:00Z");
    const other = createInvoices({
      db: database.db,
      invoicing: testConfig().invoicing,
      runner: createJobRunner({ db: database.db, log: createLogger("silent"), now: () => clock }),
      transmitter: outboxTransmitter(outbox()),
      now: () => clock,
    });
    const latestFirst = [...made].reverse();
    await Promise.all([
      ...latestFirst.map((p) => services.invoices.issue(p.id)),
      ...latestFirst.map((p) => other.issue(p.id)),
      services.jobs.runDue(),
    ]);
    const issued = await Promise.all(made.map((p) => invoiceOf(p.id)));
    const numbers = issued.map((invoice) => invoice!.number);
    expect(numbers).toEqual(numbers.map((_, i) => numbers[0]! + i));
    expect(issued.map((invoice) => invoice!.date)).toEqual([
      "2026-12-27",
      "2026-12-27",
      "2026-12-27",
      "2026-12-28",
      "2026-12-28",
      "2026-12-28",
    ]);
    const year = await yearsInvoices(2026);
    expect(year.map((row) => row.number)).toEqual(year.map((_, i) => i + 1));
  });

  it("issues a payment's invoice with its date on the 12th day after it, and refuses it after that", async () => {
    const onTime = await paidAt(START);
    const late = await paidAt(START);
    clock = new Date(START.getTime() + 12 * DAY);
    const invoice = (await services.invoices.issue(onTime.id))!;
    expect([invoice.date, invoice.issuedAt]).toEqual(["2026-11-23", clock]);
    expect(await refusals(invoice.xml)).toEqual([]);

    clock = new Date(START.getTime() + 13 * DAY);
    const refusal = services.invoices.issue(late.id);
    await expect(refusal).rejects.toBeInstanceOf(LateInvoice);
    await expect(refusal).rejects.toMatchObject({
      payment: { paymentCode: late.paymentCode, date: "2026-11-23", deadline: "2026-12-05" },
    });
    // Its job stops trying (it would never be on time): the operator's command lists it.
    await services.jobs.runDue();
    expect(await invoiceOf(late.id)).toBeNull();
    const [job] = await database.db
      .select()
      .from(jobs)
      .where(eq(jobs.key, `invoice:${late.id}`));
    expect(job!.status).toBe("done");
    // The accountant decided: a late invoice, still dated its payment's day.
    expect((await services.invoices.issue(late.id, { late: true }))!.date).toBe("2026-11-23");
  });
});

describe("sending to SDI", () => {
  it("tries again later when the outbox cannot take the file", async () => {
    const { user } = await customer();
    // The outbox's place taken by a file: the folder cannot be made.
    rmSync(outbox(), { recursive: true, force: true });
    writeFileSync(outbox(), "in the way");
    const { payment } = await paid(user.id, EBOOK, { billing: COMPANY_BILLING });
    await services.jobs.runDue();
    const invoice = (await invoiceOf(payment.id))!;
    expect(invoice.transmittedAt).toBeNull();
    const [job] = await database.db
      .select()
      .from(jobs)
      .where(eq(jobs.key, `invoice-transmit:${invoice.id}`));
    expect(job).toMatchObject({ status: "queued", attempts: 1 });

    rmSync(outbox());
    mkdirSync(outbox());
    clock = new Date(START.getTime() + 2 * MINUTE);
    await services.jobs.runDue();
    expect((await invoiceOf(payment.id))!.transmittedAt).toEqual(clock);
    expect(existsSync(path.join(outbox(), invoice.fileName))).toBe(true);
  });
});

describe("production without the seller's data", () => {
  it("refuses to invoice, naming what to set, and invents nothing", async () => {
    const config = testConfig({ NODE_ENV: "production", PAYMENTS: "sandbox", SELLER_NAME: "Editore Vero S.r.l." });
    expect(config.invoicing.seller).toBeNull();
    expect(config.invoicing.missing).toContain("SELLER_TAX_REGIME");
    const runner = createJobRunner({ db: database.db, log: createLogger("silent"), now: () => clock });
    const refusing = createInvoices({
      db: database.db,
      invoicing: config.invoicing,
      runner,
      transmitter: outboxTransmitter(outbox()),
      now: () => clock,
    });
    const { user } = await customer();
    const { payment } = await paid(user.id, EBOOK, { billing: COMPANY_BILLING });
    const refusal = refusing.issue(payment.id);
    await expect(refusal).rejects.toBeInstanceOf(InvoicingNotConfigured);
    await expect(refusal).rejects.toThrow(/SELLER_VAT, SELLER_STREET.*SELLER_TAX_REGIME/);
    expect(await invoiceOf(payment.id)).toBeNull();
  });
});

describe("the customer's download", () => {
  const download = (cookie: string, ordercode: string, paymentcode: string) =>
    invoiceLoader({
      ...loaderArgs(services, invoicePath(ordercode, paymentcode), { ordercode, paymentcode }),
      request: new Request(new URL(invoicePath(ordercode, paymentcode), "http://localhost:3000"), { headers: { cookie } }),
    });

  it("gives the order's owner the invoice as an XML attachment, linked from the receipt; anyone else 404", async () => {
    const owner = await customer();
    const { payment, order } = await paid(owner.user.id, EBOOK, { billing: COMPANY_BILLING });
    await services.jobs.runDue();
    const invoice = (await invoiceOf(payment.id))!;

    const response = (await download(owner.cookie, order.orderCode, payment.paymentCode)) as Response;
    expect(response.status).toBe(200);
    expect(response.headers.get("Content-Type")).toBe("application/xml; charset=utf-8");
    expect(response.headers.get("Content-Disposition")).toBe(`attachment; filename="${invoice.fileName}"`);
    expect(await response.text()).toBe(invoice.xml);

    const stranger = await customer();
    expect((await thrownResponse(download(stranger.cookie, order.orderCode, payment.paymentCode))).status).toBe(404);

    // The receipt links it, for its payment.
    const path = `/ricevuta/${order.orderCode}/${payment.paymentCode}/`;
    const data = await receiptLoader({
      ...loaderArgs(services, path, { ordercode: order.orderCode, paymentcode: payment.paymentCode }),
      request: new Request(new URL(path, "http://localhost:3000"), { headers: { cookie: owner.cookie } }),
    });
    expect(data.receipt.payment!.invoiceHref).toBe(invoicePath(order.orderCode, payment.paymentCode));
    const html = await render(ReceiptPage, data, path);
    expect(decode(html)).toContain(M.downloadInvoice);
    expect(html).toContain(`href="${invoicePath(order.orderCode, payment.paymentCode)}"`);
    // It names the invoice, number and date; a company is not sent to the consumers' area.
    expect(data.receipt.payment!.invoice).toEqual({ number: invoice.documentNumber, date: "2026-11-23" });
    expect(decode(html)).toContain(`Fattura elettronica n. ${invoice.documentNumber} del 23 novembre 2026`);
    expect(decode(html)).not.toContain(M.invoiceOriginalInTaxArea);
  });

  it("tells a private buyer the original is in their area of the Agenzia delle Entrate's site, and states the seller's register entry", async () => {
    const owner = await customer();
    const { payment, order } = await paid(owner.user.id, EBOOK, { billing: PERSON_BILLING });
    await services.jobs.runDue();
    const invoice = (await invoiceOf(payment.id))!;
    const path = `/ricevuta/${order.orderCode}/`;
    const data = await receiptLoader({
      ...loaderArgs(services, path, { ordercode: order.orderCode }),
      request: new Request(new URL(path, "http://localhost:3000"), { headers: { cookie: owner.cookie } }),
    });
    const html = decode(await render(ReceiptPage, data, path));
    expect(html).toContain(`Fattura elettronica n. ${invoice.documentNumber} del 23 novembre 2026`);
    expect(html).toContain(M.invoiceOriginalInTaxArea);
    expect(html).not.toContain("REA ");

    // An S.r.l. configured with its register entry, capital and sole shareholder says so.
    const rea = {
      office: "RM",
      number: "1234567",
      shareCapitalCents: 1_000_000,
      soleShareholder: "SU" as const,
      inLiquidation: false,
    };
    const company = { ...data, receipt: { ...data.receipt, seller: { ...data.receipt.seller, rea } } };
    expect(decode(await render(ReceiptPage, company, path))).toContain(
      `REA RM-1234567 · Capitale sociale ${formatEuro(1_000_000)} · Socio unico`,
    );
  });

  it("answers 404 for a payment with no invoice, and shows no link on its receipt", async () => {
    const { user, cookie } = await customer();
    const { payment, order } = await paid(user.id, EBOOK, {});
    await services.jobs.runDue();
    expect((await thrownResponse(download(cookie, order.orderCode, payment.paymentCode))).status).toBe(404);
    const receipt = await services.purchases.receipt(user.id, order.orderCode);
    expect(receipt!.payments[0]!.invoiceHref).toBeNull();
  });
});
