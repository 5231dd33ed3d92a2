// /my-products/ and the receipts through their loaders, over real services: who may see what
// (spec §6), the tabs and what they leave out, the history's pages, the VAT of each line; and the
// pages those loaders' data render on the server (tabs, empty messages, page links, the receipt).
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as createCheckoutModule from "#app/routes/create-checkout.tsx";
import MyProductsPage, { loader as myProductsLoaderBare } from "#app/routes/my-products.tsx";
import ReceiptPage, { loader as receiptLoaderBare } from "#app/routes/receipt.tsx";
import { entitlements, orders, products } from "#server/db/schema/index.ts";
import type { Services } from "#server/services.ts";
import { CHECKOUT_MESSAGES } from "#shared/checkout-messages.ts";
import { formatEuro } from "#shared/euro.ts";
import { checkoutPath } from "#shared/links.ts";
import { productOfType } from "#tests/support/catalog.ts";
import { testConfig } from "#tests/support/config.ts";
import { signedInCustomer } from "#tests/support/customers.ts";
import { createTestDatabase, type TestDatabase } from "#tests/support/database.ts";
import { insertOrder } from "#tests/support/orders.ts";
import { decode, render } from "#tests/support/render-page.ts";
import { formPost, thrownResponse } from "#tests/support/requests.ts";
import { createRouterContext, loaderArgs } from "#tests/support/router-context.ts";
import { createTestServices } from "#tests/support/services.ts";
import { behindSignIn, customerPage } from "#tests/support/customer-pages.ts";

// The customer's pages run behind the customer layout's sign-in.
const myProductsLoader = behindSignIn(myProductsLoaderBare);
const receiptLoader = behindSignIn(receiptLoaderBare);
const createCheckout = customerPage(createCheckoutModule);

let database: TestDatabase;
let services: Services;
type Product = { id: string; sku: string; name: string };
let ebook: Product;
let course: Product;
let journal: Product;
let paperFlex: Product;
let paperHard: Product;

const T0 = new Date("2026-03-02T10:00:00Z");
const minutes = (n: number) => new Date(T0.getTime() + n * 60_000);
const login = (path: string) => `/login/?${new URLSearchParams({ redirect: path })}`;

beforeAll(async () => {
  database = await createTestDatabase();
  services = await createTestServices(database);
  const of = (code: string) => productOfType(database.db, code);
  [ebook, course, journal, paperFlex, paperHard] = await Promise.all([
    of("ebook"),
    of("corso"),
    of("rivista"),
    of("paper_flex"),
    of("paper_hard"),
  ]);
});
afterAll(async () => {
  await services.close();
  await database.destroy();
});

const customer = () => signedInCustomer(services, database.db);

function withCookie<A extends { request: Request }>(args: A, cookie: string | undefined): A {
  return { ...args, request: new Request(args.request.url, { headers: cookie ? { cookie } : {} }) };
}

function myProducts(cookie: string | undefined, query = "") {
  return myProductsLoader(withCookie(loaderArgs(services, `/my-products/${query}`), cookie));
}

function receipt(cookie: string | undefined, ordercode: string, paymentcode?: string) {
  const path = paymentcode ? `/ricevuta/${ordercode}/${paymentcode}/` : `/ricevuta/${ordercode}/`;
  const params = paymentcode ? { ordercode, paymentcode } : { ordercode };
  return receiptLoader(withCookie(loaderArgs(services, path, params), cookie));
}

describe("signed out", () => {
  it("sends visitors to the sign-in, which comes back to the page", async () => {
    expect((await thrownResponse(myProducts(undefined, "?tab=inattivi"))).headers.get("Location")).toBe(
      login("/my-products/?tab=inattivi"),
    );
    expect((await thrownResponse(receipt(undefined, "NX260302-AAAAAA"))).headers.get("Location")).toBe(
      login("/ricevuta/NX260302-AAAAAA/"),
    );
  });
});

describe("/my-products/", () => {
  it("shows paid orders under 'Attivi' and the others under 'Inattivi', without paper-only items or open orders", async () => {
    const { user, cookie } = await customer();
    const paid = await insertOrder(database.db, {
      userId: user.id,
      at: minutes(0),
      lines: [{ productId: ebook.id }, { productId: paperFlex.id }],
    });
    const cancelled = await insertOrder(database.db, {
      userId: user.id,
      at: minutes(1),
      status: "cancelled",
      lines: [{ productId: course.id }],
    });
    await insertOrder(database.db, { userId: user.id, at: minutes(2), status: "new", lines: [{ productId: journal.id }] });
    await insertOrder(database.db, {
      userId: user.id,
      at: minutes(3),
      status: "waitforpayment",
      lines: [{ productId: journal.id }],
    });
    await insertOrder(database.db, { userId: user.id, at: minutes(4), lines: [{ productId: paperHard.id }] });

    const active = await myProducts(cookie);
    expect(active.tab).toBe("attivi");
    expect(active.counts).toEqual({ attivi: 1, inattivi: 1 });
    expect(active.cards.map((c) => [c.name, c.orderCode, c.statusLabel, c.buyAgainAction])).toEqual([
      [ebook.name, paid.orderCode, "Attivo", null],
    ]);
    const inactive = await myProducts(cookie, "?tab=inattivi");
    expect(inactive.tab).toBe("inattivi");
    expect(inactive.cards.map((c) => [c.name, c.orderCode, c.statusLabel, c.buyAgainAction])).toEqual([
      [course.name, cancelled.orderCode, "Annullato", checkoutPath(course.sku)],
    ]);

    const html = await render(MyProductsPage, active, "/my-products/");
    expect(html).toContain("<title>I miei acquisti · Novalex Editore</title>");
    expect(html).toMatch(/<a aria-current="page"[^>]*href="\/my-products\/#i-miei-prodotti"[^>]*>Attivi/);
    expect(html).toMatch(/<a [^>]*href="\/my-products\/\?tab=inattivi#i-miei-prodotti"[^>]*>Inattivi/);
    expect(html).toContain(`href="/ricevuta/${paid.orderCode}/"`);
    expect(html).toContain(`href="/ricevuta/${paid.orderCode}/${paid.payments[0]!.code}/"`);
    // The payment list toggles without JavaScript.
    expect(html).toMatch(/<details[^>]*><summary[^>]*>Pagamenti<span class="sr-only"> di [^<]+<\/span> \(1\)<\/summary>/);
    const text = decode(html);
    expect(text).toContain(ebook.name);
    expect(text).toContain(`Numero d'ordine: ${paid.orderCode}`);
    expect(text).toContain("Carta di Credito Visa •••• che termina con 4242");
    // No card for them (the history below names every paid order's products, paper included).
    const cards = decode(html.slice(html.indexOf('id="i-miei-prodotti"'), html.indexOf('id="storico-acquisti"')));
    expect(cards).toContain(ebook.name);
    for (const hidden of [paperFlex.name, paperHard.name, journal.name, course.name]) expect(cards).not.toContain(hidden);
    const history = decode(html.slice(html.indexOf('id="storico-acquisti"')));
    expect(history).toContain(`${paperHard.name} · Libro cartonato`);
    for (const notPaid of [journal.name, course.name]) expect(history).not.toContain(notPaid);

    const inactiveHtml = await render(MyProductsPage, inactive, "/my-products/?tab=inattivi");
    expect(inactiveHtml).toMatch(/<a aria-current="page"[^>]*>Inattivi/);
    // 'Acquista di nuovo' posts to the address that opens the order (a GET of it changes nothing).
    expect(inactiveHtml).toContain(
      `<form action="${checkoutPath(course.sku)}" method="post"><button type="submit" class="button-primary">Acquista di nuovo<span class="sr-only">`,
    );
    expect(inactiveHtml).not.toContain(`href="${checkoutPath(course.sku)}"`);
  });

  it("says when a tab is empty, with a link to the book catalogue", async () => {
    const { cookie } = await customer();
    const catalogue = testConfig().links.mainSite;
    for (const [query, message] of [
      ["", "Non hai prodotti attivi"],
      ["?tab=inattivi", "Non hai prodotti inattivi"],
    ] as const) {
      const html = await render(MyProductsPage, await myProducts(cookie, query), `/my-products/${query}`);
      expect(decode(html)).toContain(message);
      expect(html).toContain(`href="${catalogue}"`);
    }
  });

  it("pages 'Storico acquisti' 5 at a time, newest first, with links to the other pages", async () => {
    const { user, cookie } = await customer();
    const codes: string[] = [];
    for (const n of [2, 5, 0, 3, 1, 4]) {
      codes[n] = (
        await insertOrder(database.db, { userId: user.id, at: minutes(n), lines: [{ productId: journal.id }] })
      ).payments[0]!.code;
    }
    const first = await myProducts(cookie);
    expect(first.history.entries.map((e) => e.code)).toEqual([codes[5], codes[4], codes[3], codes[2], codes[1]]);
    expect(first.history.hasNext).toBe(true);
    const firstHtml = await render(MyProductsPage, first, "/my-products/");
    expect(firstHtml).toMatch(/<a [^>]*href="\/my-products\/\?pagina=2#storico-acquisti"[^>]*>Pagina successiva<\/a>/);
    expect(decode(firstHtml)).not.toContain("Pagina precedente");

    const second = await myProducts(cookie, "?pagina=2");
    expect(second.history).toMatchObject({ page: 2, hasNext: false });
    expect(second.history.entries.map((e) => e.code)).toEqual([codes[0]]);
    const secondHtml = await render(MyProductsPage, second, "/my-products/?pagina=2");
    expect(secondHtml).toMatch(/<a [^>]*href="\/my-products\/#storico-acquisti"[^>]*>Pagina precedente<\/a>/);
    expect(decode(secondHtml)).not.toContain("Pagina successiva");
    const entry = decode(secondHtml);
    // The entry names the product's title, with its type.
    expect(entry).toContain(`Prodotti ${journal.name} · Rivista`);
    expect(entry).toContain("02/03/2026");
    expect(entry).toContain(formatEuro(second.history.entries[0]!.amountCents));
  });

  it("'Acquista di nuovo' opens the checkout with one POST; a GET of its address creates nothing", async () => {
    const { user, cookie } = await customer();
    await insertOrder(database.db, { userId: user.id, at: minutes(0), status: "cancelled", lines: [{ productId: course.id }] });
    const [card] = (await myProducts(cookie, "?tab=inattivi")).cards;
    const action = card!.buyAgainAction!;
    expect(action).toBe(checkoutPath(course.sku));
    const productcode = course.sku;
    const openOrders = () =>
      database.db
        .select({ id: orders.id })
        .from(orders)
        .where(and(eq(orders.userId, user.id), eq(orders.status, "new")));

    // A plain GET of the address (a link in a mail) shows the product and changes nothing.
    const page = await createCheckout.loader(withCookie(loaderArgs(services, action, { productcode }), cookie));
    expect(page).toMatchObject({ error: null, product: { name: course.name } });
    expect(await openOrders()).toEqual([]);

    // The card's form: one POST, straight to the new order's checkout.
    const post = () =>
      createCheckout.action({
        request: formPost(action, {}, cookie),
        params: { productcode },
        context: createRouterContext(services),
        url: new URL(action, "http://localhost:3000"),
        pattern: "",
      } as never);
    const opened = await thrownResponse(post());
    expect(opened.status).toBe(302);
    const [order] = await openOrders();
    expect(opened.headers.get("Location")).toBe(`/checkout/${order!.id}/`);
    // Posted again (a double click, the back button): the same order.
    expect((await thrownResponse(post())).headers.get("Location")).toBe(`/checkout/${order!.id}/`);
    expect(await openOrders()).toHaveLength(1);

    // Signed out, the post opens nothing and asks for the sign-in first.
    const signedOut = await thrownResponse(
      createCheckout.action({
        request: formPost(action, {}),
        params: { productcode },
        context: createRouterContext(services),
        url: new URL(action, "http://localhost:3000"),
        pattern: "",
      } as never),
    );
    expect(signedOut.headers.get("Location")).toMatch(/^\/login\/\?redirect=/);
  });

  it("'Acquista di nuovo' of EDU while EDU is active is refused by the server, with the reason", async () => {
    const { user, cookie } = await customer();
    const [edu] = await database.db.select({ id: products.id }).from(products).where(eq(products.code, "abbonamentoedu"));
    await insertOrder(database.db, {
      userId: user.id,
      at: minutes(0),
      status: "expired",
      lines: [{ productId: edu!.id, totalCents: 2700, monthlyPriceCents: 450 }],
    });
    const DAY = 24 * 3600_000;
    await database.db.insert(entitlements).values({
      userId: user.id,
      productId: edu!.id,
      source: "activation_code",
      startsAt: new Date(Date.now() - DAY),
      expiresAt: new Date(Date.now() + 90 * DAY),
    });
    const [card] = (await myProducts(cookie, "?tab=inattivi")).cards;
    expect(card!.buyAgainAction).toBe(checkoutPath("abbonamentoedu"));
    const refused = (await createCheckout.action({
      request: formPost(card!.buyAgainAction!, {}, cookie),
      params: { productcode: "abbonamentoedu" },
      context: createRouterContext(services),
      url: new URL(card!.buyAgainAction!, "http://localhost:3000"),
      pattern: "",
    } as never)) as { init: { status: number }; data: { error: string } };
    expect(refused.init.status).toBe(404);
    expect(refused.data.error).toBe(CHECKOUT_MESSAGES.eduAlreadyActive);
    const opened = await database.db
      .select({ id: orders.id })
      .from(orders)
      .where(and(eq(orders.userId, user.id), eq(orders.status, "new")));
    expect(opened).toEqual([]);
  });

  it("shows nobody else's purchases", async () => {
    const owner = await customer();
    const other = await customer();
    await insertOrder(database.db, { userId: owner.user.id, at: minutes(0), lines: [{ productId: ebook.id }] });
    await insertOrder(database.db, {
      userId: owner.user.id,
      at: minutes(1),
      status: "expired",
      lines: [{ productId: course.id }],
    });
    const data = await myProducts(other.cookie);
    expect(data.counts).toEqual({ attivi: 0, inattivi: 0 });
    expect(data.history.entries).toEqual([]);
  });
});

describe("/ricevuta/", () => {
  it("shows the owner the seller, the lines with their VAT and the total, ready to print", async () => {
    const { user, cookie } = await customer();
    const order = await insertOrder(database.db, {
      userId: user.id,
      at: minutes(0),
      lines: [
        { productId: ebook.id, totalCents: 3200 },
        { productId: paperFlex.id, totalCents: 4500 },
      ],
      payments: [{ paidAt: minutes(1), cardBrand: "visa", cardLast4: "4242" }],
    });
    const { receipt: data } = await receipt(cookie, order.orderCode);
    expect(data.orderCode).toBe(order.orderCode);
    expect(new Map(data.lines.map((l) => [l.description, [l.vatRateBps, l.vatCents]]))).toEqual(
      new Map([
        [ebook.name, [400, 123]],
        [paperFlex.name, [null, 0]],
      ]),
    );
    expect(data.totalCents).toBe(7700);

    const html = await render(ReceiptPage, { receipt: data }, `/ricevuta/${order.orderCode}/`);
    const text = decode(html);
    expect(html).toMatch(/<h1[^>]*>Ricevuta<\/h1>/);
    for (const shown of [
      "Novalex Editore S.r.l.",
      "P. IVA 06363391001",
      `Numero d'ordine ${order.orderCode}`,
      "Data dell'ordine 02/03/2026",
      `${formatEuro(123)} (4 %)`,
      "IVA assolta dall'editore (art. 74 DPR 633/72)",
      `Totale ${formatEuro(7700)}`,
      `di cui IVA ${formatEuro(123)}`,
      "Carta di Credito Visa •••• che termina con 4242",
      "Torna ai miei acquisti",
      "Stampa:",
    ]) {
      expect(text).toContain(shown);
    }
    expect(html).toContain('href="/my-products/"');
  });

  it("gives each line as a table row from md up and on paper, as a block of labelled values below", async () => {
    const { user, cookie } = await customer();
    const order = await insertOrder(database.db, {
      userId: user.id,
      at: minutes(0),
      lines: [{ productId: ebook.id, totalCents: 3200 }],
      discountCents: 320,
      couponCode: "BENVENUTO10",
    });
    const { receipt: data } = await receipt(cookie, order.orderCode);
    const html = await render(ReceiptPage, { receipt: data }, `/ricevuta/${order.orderCode}/`);
    // One table, shown from md up and when printed; the blocks only below md, never on paper.
    expect(html).toMatch(
      /<table aria-label="Righe dell&#x27;ordine" class="[^"]*\bhidden\b[^"]*\bmd:table\b[^"]*\bprint:table\b/,
    );
    expect(html).toMatch(/<ul aria-label="Righe dell&#x27;ordine" class="[^"]*\bmd:hidden\b[^"]*\bprint:hidden\b/);
    // Nothing that scrolls sideways any more.
    expect(html).not.toContain("overflow-x-auto");
    expect(html).not.toContain("min-w-");
    const blocks = decode(html.slice(html.indexOf('<ul aria-label="Righe'), html.indexOf("<table")));
    for (const value of [
      "Quantità 1",
      `Prezzo ${formatEuro(3200)}`,
      `Importo ${formatEuro(3200)}`,
      `Sconto −${formatEuro(320)}`,
      `IVA inclusa ${formatEuro(111)} (4 %) su ${formatEuro(2880)}`,
    ]) {
      expect(blocks).toContain(value);
    }
    expect(html).toMatch(/<th scope="col"[^>]*>IVA inclusa<\/th>/);
    expect(html).toMatch(/<th scope="row"[^>]*><span[^>]*>[^<]+<\/span><span[^>]*>eBook<\/span><\/th>/);
  });

  it("lets the e-mail and the PEC wrap only before an '@' or a dot, never inside a word", async () => {
    const { user, cookie } = await customer();
    const email = "maria.cristina.rossi-bernardini@studio-legale-associato.example.it";
    const pec = "amministrazione.studio@pec.studio-legale-associato.example.it";
    const address = {
      firstname: "Maria",
      lastname: "Rossi",
      address: "Via Roma 1",
      postcode: "00184",
      city: "Roma",
      province: "RM",
      country: "IT" as const,
    };
    const order = await insertOrder(database.db, {
      userId: user.id,
      at: minutes(0),
      lines: [{ productId: ebook.id }],
      customer: { firstname: "Maria Cristina", lastname: "Rossi Bernardini", email },
      billing: {
        isCompany: true,
        name: "Studio Legale Rossi",
        vat: "06363391001",
        sdi: "ABC1234",
        pec,
        addressAsShipment: false,
        address,
      },
    });
    const { receipt: data } = await receipt(cookie, order.orderCode);
    const html = await render(ReceiptPage, { receipt: data }, `/ricevuta/${order.orderCode}/`);
    expect(html).not.toContain("break-all");
    expect(html).toContain(
      '<span class="wrap-anywhere">maria<wbr/>.cristina<wbr/>.rossi-bernardini<wbr/>@studio-legale-associato<wbr/>.example.it</span>',
    );
    expect(html).toContain('PEC <span class="wrap-anywhere">amministrazione<wbr/>.studio<wbr/>@pec');
    // The text is the address as it was: <wbr> adds nothing.
    const text = decode(html);
    expect(text).toContain(email);
    expect(text).toContain(`PEC ${pec}`);
  });

  it("shows one payment's receipt to the owner of its order", async () => {
    const { user, cookie } = await customer();
    const order = await insertOrder(database.db, {
      userId: user.id,
      at: minutes(0),
      lines: [{ productId: course.id, totalCents: 4900 }],
      payments: [{ paidAt: minutes(0), cardBrand: "mastercard", cardLast4: "4444" }],
    });
    const code = order.payments[0]!.code;
    const { receipt: data } = await receipt(cookie, order.orderCode, code);
    expect(data.payment).toMatchObject({ code, amountCents: 4900, vatCents: 884, cardLast4: "4444" });
    const text = decode(await render(ReceiptPage, { receipt: data }, `/ricevuta/${order.orderCode}/${code}/`));
    expect(text).toContain("Ricevuta di pagamento");
    expect(text).toContain(`Codice pagamento ${code}`);
    expect(text).toContain(`Importo pagato ${formatEuro(4900)}`);
    expect(text).toContain("Mastercard •••• che termina con 4444");
  });

  it("sends anyone else, and any unknown order or payment, to the home page", async () => {
    const owner = await customer();
    const stranger = await customer();
    const order = await insertOrder(database.db, { userId: owner.user.id, at: minutes(0), lines: [{ productId: ebook.id }] });
    const ownOther = await insertOrder(database.db, { userId: owner.user.id, at: minutes(1), lines: [{ productId: course.id }] });
    const strangers = await insertOrder(database.db, {
      userId: stranger.user.id,
      at: minutes(2),
      lines: [{ productId: journal.id }],
    });
    const toHome = async (promise: Promise<unknown>) => {
      const response = await thrownResponse(promise);
      expect(response.status).toBe(302);
      expect(response.headers.get("Location")).toBe("/");
    };
    await toHome(receipt(stranger.cookie, order.orderCode));
    await toHome(receipt(stranger.cookie, order.orderCode, order.payments[0]!.code));
    // Their own order, with a payment of another order (theirs or someone else's).
    await toHome(receipt(owner.cookie, order.orderCode, ownOther.payments[0]!.code));
    await toHome(receipt(owner.cookie, order.orderCode, strangers.payments[0]!.code));
    await toHome(receipt(owner.cookie, "NX000000-000000"));
    await toHome(receipt(owner.cookie, order.orderCode, "PX000000-000000"));
    // The owner does see it.
    expect((await receipt(owner.cookie, order.orderCode)).receipt.orderCode).toBe(order.orderCode);
  });
});
