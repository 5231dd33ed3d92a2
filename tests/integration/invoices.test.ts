// E-invoices over real services and a real database: issued by the job runner for every paid
// payment whose order asked for one (a checkout's, each EDU month's), numbered per year without
// gaps or duplicates however many are issued at once, valid against the official FatturaPA schema,
// written to the SDI outbox (retried when it fails), refused in production without the seller's
// data, and downloaded from the receipt by the order's owner only.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { and, asc, eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import ReceiptPage, { loader as receiptLoaderBare } from "../../app/routes/receipt";
import { loader as invoiceLoaderBare } from "../../app/routes/invoice-download";
import {
  invoiceCounters,
  invoices,
  jobs,
  orders,
  payments,
  products,
  productTypes,
  subscriptions,
} from "../../server/db/schema.ts";
import { createJobRunner } from "../../server/jobs/runner.ts";
import { createLogger } from "../../server/logger.ts";
import { createInvoices, InvoicingNotConfigured } from "../../server/invoices/service.ts";
import { outboxTransmitter } from "../../server/invoices/transmitter.ts";
import type { CheckoutDetails } from "../../server/commerce/checkout.ts";
import type { Services } from "../../server/services.ts";
import { EDU_PRODUCT_CODE } from "../../shared/library-constants.ts";
import { invoicePath } from "../../shared/links.ts";
import { PURCHASE_MESSAGES as M } from "../../shared/purchase-messages.ts";
import { checkoutDetails, COMPANY_BILLING, PERSON_BILLING, SHIPMENT } from "../support/checkout.ts";
import { DAY, MINUTE, START } from "../support/clock.ts";
import { testConfig } from "../support/config.ts";
import { signedInCustomer } from "../support/customers.ts";
import { behindSignIn } from "../support/customer-pages.ts";
import { createTestDatabase, type TestDatabase } from "../support/database.ts";
import { fatturaPaSchemaErrors } from "../support/fatturapa-schema.ts";
import { decode, render } from "../support/render-page.ts";
import { thrownResponse } from "../support/requests.ts";
import { loaderArgs } from "../support/router-context.ts";
import { createTestServices } from "../support/services.ts";

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
    expect(await fatturaPaSchemaErrors(invoice.xml)).toEqual([]);
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

  it("invoices a private customer by Codice Fiscale to their PEC, a paper book's VAT paid at source as N2.2", async () => {
    const [paper] = await database.db
      .select({ sku: products.sku })
      .from(products)
      .innerJoin(productTypes, eq(productTypes.id, products.productTypeId))
      .where(and(eq(productTypes.code, "paper_flex"), eq(products.sellable, true)))
      .limit(1);
    const { user } = await customer();
    const { payment, order } = await paid(user.id, paper!.sku, {
      shipment: SHIPMENT,
      billing: { ...PERSON_BILLING, addressAsShipment: true },
    });
    await services.jobs.runDue();
    const { xml } = (await invoiceOf(payment.id))!;
    expect(await fatturaPaSchemaErrors(xml)).toEqual([]);
    expect(values(xml, "CodiceDestinatario")).toEqual(["0000000"]);
    expect(values(xml, "PECDestinatario")).toEqual(["maria.rossi@pec.example.it"]);
    expect(values(xml, "CodiceFiscale")).toEqual(["RSSMRA85T10A562S"]);
    expect([values(xml, "Nome"), values(xml, "Cognome"), values(xml, "Indirizzo")[1]]).toEqual([
      ["Maria"],
      ["Rossi"],
      "Via Roma 1",
    ]);
    expect(values(xml, "Natura")).toEqual(["N2.2", "N2.2"]);
    expect(values(xml, "Imposta")).toEqual(["0.00"]);
    expect(values(xml, "ImponibileImporto")).toEqual([(order.totalCents / 100).toFixed(2)]);
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
    expect(await fatturaPaSchemaErrors(two!.xml)).toEqual([]);
    expect(values(two!.xml, "Descrizione")[0]).toMatch(/: mese 2, dal 23\/12\/2026 al 23\/01\/2027$/);
    expect([values(two!.xml, "DataInizioPeriodo"), values(two!.xml, "DataFinePeriodo")]).toEqual([
      ["2026-12-23"],
      ["2027-01-23"],
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

  it("starts again from 1 in a new year (Rome's: the first minutes of 1 January are the new year's)", async () => {
    const { user } = await customer();
    clock = new Date("2026-12-31T23:30:00Z");
    const { payment } = await paid(user.id, EBOOK, { billing: COMPANY_BILLING });
    await services.jobs.runDue();
    const invoice = (await invoiceOf(payment.id))!;
    expect([invoice.year, invoice.number, invoice.documentNumber]).toEqual([2027, 1, "WEB/1"]);
    expect(values(invoice.xml, "Data")).toEqual(["2027-01-01"]);
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
