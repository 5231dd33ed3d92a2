// How the customer got each product and until when, through the pages' loaders over real services
// and a clock the test sets (never the day the suite runs): a code of a printed book, a purchase
// with its order and receipt, a month of the EDU subscription, an operator's grant, and EDU given
// by all three one after another. 'I miei acquisti' as the server renders it, and the dashboard's
// card with its one line.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { createElement } from "react";
import { loader as dashboardLoaderBare } from "#app/routes/dashboard.tsx";
import MyProductsPage, { loader as myProductsLoaderBare } from "#app/routes/my-products.tsx";
import { ProductCard } from "#app/components/product-card.tsx";
import { renderMarkup } from "#app/components/test-markup.tsx";
import { orders } from "#server/db/schema/index.ts";
import type { ActivationCodeKind } from "#server/db/schema/index.ts";
import { grantAccess } from "#server/operators/customers.ts";
import type { Services } from "#server/services.ts";
import { EDU_PRODUCT_CODE } from "#shared/library-constants.ts";
import { periodStart } from "#shared/subscription.ts";
import { productOfType, productsOfTypes } from "#tests/support/catalog.ts";
import { buyEduWithSandboxCard, buyWithSandboxCard } from "#tests/support/checkout.ts";
import { afterStart, DAY, START } from "#tests/support/clock.ts";
import { behindSignIn } from "#tests/support/customer-pages.ts";
import { sessionCookie, signedInCustomer } from "#tests/support/customers.ts";
import { createTestDatabase, type TestDatabase } from "#tests/support/database.ts";
import { decode, render } from "#tests/support/render-page.ts";
import { testConfig } from "#tests/support/config.ts";
import { loaderArgs } from "#tests/support/router-context.ts";
import { createTestServices } from "#tests/support/services.ts";

const myProductsLoader = behindSignIn(myProductsLoaderBare);
const dashboardLoader = behindSignIn(dashboardLoaderBare);

let database: TestDatabase;
let services: Services;
let clock = START;
type Product = { id: string; sku: string; name: string };
let codeBook: Product;
let boughtBook: Product;
let course: Product;

beforeAll(async () => {
  database = await createTestDatabase();
  services = await createTestServices(database, testConfig(), { now: () => clock });
  const [first, second] = await productsOfTypes(database.db, ["ebook"], 2);
  if (!first || !second) throw new Error("setup: the seed has fewer than 2 eBooks");
  [codeBook, boughtBook] = [first, second];
  course = await productOfType(database.db, "corso");
});
afterAll(async () => {
  await services.close();
  await database.destroy();
});
beforeEach(() => {
  clock = START;
});

/** A student with a session at the clock's time. */
async function customer() {
  const { user } = await signedInCustomer(services, database.db);
  return { userId: user.id, email: user.email! };
}

function withCookie<A extends { request: Request }>(args: A, cookie: string): A {
  return { ...args, request: new Request(args.request.url, { headers: { cookie } }) };
}

/** 'I miei acquisti' at the clock's time: its data, and the text and markup of 'Come hai ottenuto i tuoi prodotti'. */
async function myProducts(userId: string) {
  const data = await myProductsLoader(
    withCookie(loaderArgs(services, "/my-products/"), await sessionCookie(services, database.db, userId)),
  );
  const html = await render(MyProductsPage, data, "/my-products/");
  const start = html.indexOf('id="accessi"');
  const section = start < 0 ? "" : html.slice(start, html.indexOf('id="storico-acquisti"'));
  return { data, html: section, text: decode(section) };
}

/** The dashboard at the clock's time: its items, and the text of a product's card. */
async function dashboard(userId: string) {
  const data = await dashboardLoader(
    withCookie(loaderArgs(services, "/dashboard/"), await sessionCookie(services, database.db, userId)),
  );
  const card = (productId: string) => {
    const item = data.items.find((i) => i.productId === productId);
    if (!item) throw new Error(`no card for ${productId}`);
    return renderMarkup(createElement(ProductCard, { item, now: data.now })).text;
  };
  return { data, card };
}

async function activateCode(userId: string, productId: string, kind: ActivationCodeKind) {
  const { codes } = await services.library.activation.createBatch({ productId, kind, label: "Prova", count: 1 });
  const result = await services.library.activation.activate({ userId, ip: "203.0.113.80", code: codes[0]! });
  if (!result.ok) throw new Error(`setup: the code was ${result.reason}`);
}

const operator = () => ({ db: database.db, services, actor: "operator:test" });

describe("how each product was obtained, and until when", () => {
  it("a code of a printed book: the day it was entered, and the 6 months it gives; the dashboard's card says how too", async () => {
    const { userId } = await customer();
    clock = afterStart(2 * DAY); // 25 November 2026, 11:00 in Rome
    await activateCode(userId, codeBook.id, "ebook");

    const { data, text } = await myProducts(userId);
    expect(data.access).toHaveLength(1);
    expect(data.access[0]).toMatchObject({
      productId: codeBook.id,
      current: { source: "activation_code", at: clock, startsAt: clock },
      next: [],
      ended: null,
    });
    expect(text).toContain(
      `${codeBook.name} Attivato con il codice del libro il 25 novembre 2026 Accesso fino al 25 maggio 2027`,
    );

    const { data: board, card } = await dashboard(userId);
    expect(board.items.find((i) => i.productId === codeBook.id)!.obtained).toEqual({ source: "activation_code", at: clock });
    // One line of how; until when stays the spec's own line, not said twice.
    expect(card(codeBook.id)).toContain("Attivato con il codice del libro il 25 novembre 2026 Accedi fino al 25/05/2027");
    expect(card(codeBook.id)).not.toContain("Accesso fino");
  });

  it("a purchase: its order, linked to the order's receipt, and access without end", async () => {
    const { userId } = await customer();
    const { orderId } = await buyWithSandboxCard(services, userId, boughtBook.sku);
    const [order] = await database.db.select().from(orders).where(eq(orders.id, orderId));
    const code = order!.orderCode;

    const { data, html, text } = await myProducts(userId);
    expect(data.access[0]!.current).toMatchObject({ source: "purchase", orderCode: code, expiresAt: null });
    expect(text).toContain(
      `${boughtBook.name} Acquistato con l'ordine ${code} (ricevuta) il 23 novembre 2026 Accesso senza scadenza`,
    );
    expect(html).toContain(
      `<a class="link" href="/ricevuta/${code}/" data-discover="true">${code}<span class="sr-only"> (ricevuta)</span></a>`,
    );
    // The link leads to a receipt the customer has.
    expect(await services.purchases.receipt(userId, code)).not.toBeNull();

    expect((await dashboard(userId)).card(boughtBook.id)).toContain("Acquistato il 23 novembre 2026");
  });

  it("a month of the EDU subscription: its instalment, and access to the month's end", async () => {
    const { userId } = await customer();
    await buyEduWithSandboxCard(services, userId);
    const first = await myProducts(userId);
    expect(first.data.access[0]!.current).toMatchObject({ source: "subscription", instalment: 1 });
    expect(first.text).toContain("Incluso nell'abbonamento EDU (rata 1 di 6) Accesso fino al 23 dicembre 2026");

    // The second month, charged on its day.
    clock = periodStart(START, 2);
    await services.jobs.runDue();
    const second = await myProducts(userId);
    expect(second.data.access[0]!.current).toMatchObject({ source: "subscription", instalment: 2 });
    expect(second.text).toContain("Incluso nell'abbonamento EDU (rata 2 di 6) Accesso fino al 23 gennaio 2027");
    expect(second.text).not.toContain("rata 1 di 6");
    // EDU has no card on the dashboard (it shows as the EDU promo), so nothing to say there.
    expect((await dashboard(userId)).data.items).toEqual([]);
  });

  it("an operator's grant: given by customer service, for the months granted", async () => {
    const { userId, email } = await customer();
    clock = afterStart(5 * DAY);
    await grantAccess(operator(), email, course.sku, 3);

    const { data, text } = await myProducts(userId);
    expect(data.access[0]!.current).toMatchObject({ source: "operator", orderCode: null });
    expect(text).toContain(`${course.name} Concesso dal servizio clienti il 28 novembre 2026 Accesso fino al 28 febbraio 2027`);
    expect((await dashboard(userId)).card(course.id)).toContain("Concesso dal servizio clienti il 28 novembre 2026");
  });

  it("EDU from the subscription, then a code's months, then an operator's: what gives access now and what comes next", async () => {
    const { userId, email } = await customer();
    await buyEduWithSandboxCard(services, userId);
    clock = afterStart(10 * DAY);
    await activateCode(userId, codeBook.id, "ebook_edu");
    clock = afterStart(12 * DAY);
    await grantAccess(operator(), email, EDU_PRODUCT_CODE, 2);

    const now = await myProducts(userId);
    const edu = now.data.access.find((p) => p.productId !== codeBook.id)!;
    expect(edu.current).toMatchObject({ source: "subscription", instalment: 1 });
    expect(edu.next.map((g) => g.source)).toEqual(["activation_code", "operator"]);
    expect(now.text).toContain(
      "Incluso nell'abbonamento EDU (rata 1 di 6) Accesso fino al 23 dicembre 2026 " +
        "Poi, dal 23 dicembre 2026 al 23 giugno 2027: attivato con il codice del libro il 3 dicembre 2026 " +
        "Poi, dal 23 giugno 2027 al 23 agosto 2027: concesso dal servizio clienti il 5 dicembre 2026",
    );
    // The book of the eBook+EDU code is there too, from the same code.
    expect(now.text).toContain(
      `${codeBook.name} Attivato con il codice del libro il 3 dicembre 2026 Accesso fino al 3 giugno 2027`,
    );

    // Once the paid month is over, the code's months give access (no charge: they replaced it).
    clock = new Date(periodStart(START, 2).getTime() + DAY);
    await services.jobs.runDue();
    const later = await myProducts(userId);
    expect(later.text).toContain(
      "Attivato con il codice del libro il 3 dicembre 2026 Accesso fino al 23 giugno 2027 " +
        "Poi, dal 23 giugno 2027 al 23 agosto 2027: concesso dal servizio clienti il 5 dicembre 2026",
    );
    expect(later.text).not.toContain("rata 1 di 6");
  });

  it("when access is over: how it was obtained and the day it ended; the card keeps its line", async () => {
    const { userId } = await customer();
    await activateCode(userId, codeBook.id, "ebook");
    clock = afterStart(200 * DAY);

    const { data, text } = await myProducts(userId);
    expect(data.access[0]).toMatchObject({ current: null, next: [], ended: { source: "activation_code" } });
    expect(text).toContain(
      `${codeBook.name} Attivato con il codice del libro il 23 novembre 2026 Accesso scaduto il 23 maggio 2027`,
    );
    expect(text).not.toContain("Accesso fino");

    const { card } = await dashboard(userId);
    expect(card(codeBook.id)).toContain("Attivato con il codice del libro il 23 novembre 2026");
    expect(card(codeBook.id)).toContain("Accesso scaduto");
  });

  it("shows each customer only their own grants, and no section to a customer without any", async () => {
    const owner = await customer();
    await activateCode(owner.userId, codeBook.id, "ebook");
    const other = await customer();
    const { data, html } = await myProducts(other.userId);
    expect(data.access).toEqual([]);
    expect(html).toBe("");
    expect((await myProducts(owner.userId)).data.access).toHaveLength(1);
  });
});
