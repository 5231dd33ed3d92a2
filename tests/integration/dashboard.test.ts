// The dashboard loader over real services: what it shows per profession, the EDU variant of the
// promo boxes, and how many SQL statements a page costs whatever the number of products.
import { eq, inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loader as dashboardLoaderBare } from "#app/routes/dashboard.tsx";
import { insertCompletedOrder } from "#server/commerce/orders.ts";
import { ebookChapters, products, readingSessions } from "#server/db/schema/index.ts";
import { addMonths, EDU_PRODUCT_CODE } from "#shared/library-constants.ts";
import { grantEntitlement } from "#server/library/entitlements.ts";
import type { Services } from "#server/services.ts";
import { signedInCustomer, type ProfessionCode } from "#tests/support/customers.ts";
import { productsOfTypes } from "#tests/support/catalog.ts";
import { createTestDatabase, type TestDatabase } from "#tests/support/database.ts";
import { loaderArgs } from "#tests/support/router-context.ts";
import { prerenderedHtmlContext } from "#app/lib/prerender.server.tsx";
import { requestContext } from "#shared/context.ts";
import { createTestServices } from "#tests/support/services.ts";
import { behindSignIn } from "#tests/support/customer-pages.ts";

// The customer's pages run behind the customer layout's sign-in.
const dashboardLoader = behindSignIn(dashboardLoaderBare);

let database: TestDatabase;
let services: Services;
/** Statements sent since the last reset (counted by the database's Drizzle logger). */
let statements: string[] = [];

beforeAll(async () => {
  database = await createTestDatabase({ logger: { logQuery: (query) => void statements.push(query) } });
  services = await createTestServices(database);
});
afterAll(async () => {
  await services.close();
  await database.destroy();
});

function dashboard(cookie: string, query = "") {
  const args = loaderArgs(services, `/dashboard/${query}`);
  return dashboardLoader({ ...args, request: new Request(args.request.url, { headers: { cookie } }) });
}

/** Grants each product to the customer through one completed order, as an activation would. */
async function grant(userId: string, productIds: string[], { startsAt = new Date(), expiresAt = addMonths(new Date(), 6) } = {}) {
  await database.db.transaction(async (tx) => {
    const order = await insertCompletedOrder(tx, {
      userId,
      now: startsAt,
      lines: productIds.map((productId) => ({ productId, description: "Test", totalCents: 0 })),
    });
    for (const productId of productIds) {
      await grantEntitlement(
        tx,
        { userId, productId, source: "activation_code", startsAt, expiresAt, orderId: order.id },
        startsAt,
      );
    }
  });
}

const escapeHtml = (text: string) =>
  text
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&#x27;");

async function customer(profession: ProfessionCode = "student") {
  return signedInCustomer(services, database.db, profession);
}

describe("the dashboard's cost in SQL statements", () => {
  async function statementsOfOnePage(owned: number) {
    const { user, cookie } = await customer();
    const library = await productsOfTypes(database.db, ["ebook", "paper_flex", "paper_hard", "corso", "rivista"], owned);
    expect(library).toHaveLength(owned);
    await grant(
      user.id,
      library.map((p) => p.id),
    );
    await dashboard(cookie); // warms the caches of suggestions, boxes and reference lists
    statements = [];
    const data = await dashboard(cookie);
    expect(data.items).toHaveLength(owned);
    return statements.length;
  }

  it("is two at 1 and at 50 products: the session with its user, and the customer's products with their orders", async () => {
    expect(await statementsOfOnePage(1)).toBe(2);
    expect(await statementsOfOnePage(50)).toBe(2);
  });

  it("stays bounded with cold caches too", async () => {
    const { cookie } = await customer();
    services.library.dashboard.invalidate();
    statements = [];
    await dashboard(cookie);
    // The warm page's two plus suggestions, promo and contact boxes.
    expect(statements.length).toBeLessThanOrEqual(5);
  });
});

describe("the dashboard per profession", () => {
  it("hides journals from students and courses from professors", async () => {
    const student = await dashboard((await customer("student")).cookie);
    expect(student.suggestions.journals).toBeNull();
    expect(student.suggestions.courses?.count).toBeGreaterThan(0);
    expect(student.promo.topRight?.areaCode).toBe("dashboard_studenti_top_right");

    const professor = await dashboard((await customer("professor")).cookie);
    expect(professor.suggestions.courses).toBeNull();
    expect(professor.suggestions.journals?.count).toBeGreaterThan(0);
    expect(professor.promo.topRight?.areaCode).toBe("dashboard_docenti_top_right");

    const other = await dashboard((await customer("other")).cookie);
    expect(other.suggestions.courses?.count).toBeGreaterThan(0);
    expect(other.suggestions.journals?.count).toBeGreaterThan(0);
    expect(other.promo.topRight?.areaCode).toBe("dashboard_professionisti_top_right");
    expect(other.promo.numbered.map((box) => box.areaCode)).toEqual([
      "dashboard_professionisti_1",
      "dashboard_professionisti_2",
      "dashboard_professionisti_3",
      "dashboard_professionisti_4",
    ]);
  });

  it("suggests at most 20 of each, books for the profession's audience", async () => {
    const { user } = await customer("student");
    const { suggestions } = await services.library.dashboard.page(user);
    for (const list of [suggestions.books, suggestions.courses ?? []]) {
      expect(list.length).toBeLessThanOrEqual(20);
    }
    const flags = await database.db
      .select({ id: products.id, forStudents: products.forStudents })
      .from(products)
      .where(
        inArray(
          products.id,
          suggestions.books.map((b) => b.productId),
        ),
      );
    expect(flags.length).toBeGreaterThan(0);
    expect(flags.every((f) => f.forStudents)).toBe(true);
  });

  it("renders the suggestions once per profession: the document carries their HTML once, a navigation's data holds it", async () => {
    const first = await customer("professor");
    const second = await customer("professor");
    const { suggestions } = await services.library.dashboard.page(first.user);

    const documentArgs = loaderArgs(services, "/dashboard/");
    const inDocument = await dashboardLoader({
      ...documentArgs,
      request: new Request(documentArgs.request.url, { headers: { cookie: first.cookie } }),
    });
    const journals = inDocument.suggestions.journals!;
    expect(journals.count).toBe(suggestions.journals!.length);
    expect(journals.prerendered.html).toBeNull();
    const documentPart = documentArgs.context.get(prerenderedHtmlContext)?.get(journals.prerendered.id);
    const documentHtml = documentPart?.html;
    // Its bytes, encoded once for every document that holds it.
    expect(documentPart?.bytes.toString()).toBe(documentHtml);
    for (const journal of suggestions.journals!) expect(documentHtml).toContain(escapeHtml(journal.name));

    const dataArgs = loaderArgs(services, "/dashboard/");
    dataArgs.context.set(requestContext, { ...dataArgs.context.get(requestContext), document: false });
    const inData = await dashboardLoader({
      ...dataArgs,
      request: new Request(dataArgs.request.url, { headers: { cookie: second.cookie } }),
    });
    expect(inData.suggestions.journals?.prerendered).toEqual({ id: journals.prerendered.id, html: documentHtml });
    expect(dataArgs.context.get(prerenderedHtmlContext)).toBeNull();
  });

  it("renders each promo box and the contact boxes once: two customers' pages share the same HTML", async () => {
    const { promo, contactBoxes } = await services.library.dashboard.page((await customer("other")).user);
    const pages = [];
    for (const { cookie } of [await customer("other"), await customer("other")]) {
      const args = loaderArgs(services, "/dashboard/");
      const data = await dashboardLoader({ ...args, request: new Request(args.request.url, { headers: { cookie } }) });
      pages.push({ data, html: args.context.get(prerenderedHtmlContext)! });
    }
    const [first, second] = pages as [(typeof pages)[number], (typeof pages)[number]];
    expect(second.data.promo).toEqual(first.data.promo);
    expect(second.data.contactBoxes).toEqual(first.data.contactBoxes);

    const boxes = [first.data.promo.topRight!, ...first.data.promo.numbered];
    expect(boxes.map((box) => box.areaCode)).toEqual([promo.topRight!.areaCode, ...promo.numbered.map((box) => box.areaCode)]);
    for (const [i, box] of boxes.entries()) {
      expect(box.prerendered.html).toBeNull();
      const html = first.html.get(box.prerendered.id)!.html;
      // The heading names the region by an id of the area's own: the boxes share a page.
      expect(html).toContain(`<section aria-labelledby="promo-${box.areaCode}"`);
      expect(html).toContain(escapeHtml([promo.topRight!, ...promo.numbered][i]!.title));
    }
    const contactHtml = first.html.get(first.data.contactBoxes!.id)!.html;
    expect(contactHtml.match(/<li /g)).toHaveLength(contactBoxes.length);
    for (const box of contactBoxes) expect(contactHtml).toContain(escapeHtml(box.title));
  });

  it("shows the left promo box only to customers with active orders", async () => {
    const { user, cookie } = await customer("student");
    expect((await dashboard(cookie)).promo.left).toBeNull();
    const [book] = await productsOfTypes(database.db, ["ebook"], 1);
    await grant(user.id, [book!.id]);
    expect((await dashboard(cookie)).promo.left?.areaCode).toBe("dashboard_studenti_left");
  });

  it("shows it to a customer with a paid order and no product too", async () => {
    const { user, cookie } = await customer("student");
    const [book] = await productsOfTypes(database.db, ["ebook"], 1);
    await database.db.transaction((tx) =>
      insertCompletedOrder(tx, {
        userId: user.id,
        now: new Date(),
        lines: [{ productId: book!.id, description: "Test", totalCents: 0 }],
      }),
    );
    const data = await dashboard(cookie);
    expect(data.items).toEqual([]);
    expect(data.promo.left?.areaCode).toBe("dashboard_studenti_left");
  });

  it("switches the top-right and left boxes to their edu variant while EDU is active", async () => {
    const { user, cookie } = await customer("student");
    const [edu] = await database.db.select({ id: products.id }).from(products).where(eq(products.code, EDU_PRODUCT_CODE));
    await grant(user.id, [edu!.id]);
    const data = await dashboard(cookie);
    expect(data.eduActive).toBe(true);
    expect(data.promo.topRight?.areaCode).toBe("dashboard_studenti_top_right_edu");
    expect(data.promo.left?.areaCode).toBe("dashboard_studenti_left_edu");
    // The subscription is not a product card.
    expect(data.items).toHaveLength(0);
  });

  it("does not switch to edu once EDU has expired", async () => {
    const { user, cookie } = await customer("professor");
    const [edu] = await database.db.select({ id: products.id }).from(products).where(eq(products.code, EDU_PRODUCT_CODE));
    const past = new Date(Date.now() - 10 * 24 * 3600_000);
    await grant(user.id, [edu!.id], { startsAt: addMonths(past, -6), expiresAt: past });
    const data = await dashboard(cookie);
    expect(data.eduActive).toBe(false);
    expect(data.promo.topRight?.areaCode).toBe("dashboard_docenti_top_right");
  });
});

describe("the customer's products", () => {
  it("lists each product once with its longest grant, its expiry and its reading status", async () => {
    const { user, cookie } = await customer("other");
    const [ebook, course, journal, oldBook] = [
      ...(await productsOfTypes(database.db, ["ebook"], 1)),
      ...(await productsOfTypes(database.db, ["corso"], 1)),
      ...(await productsOfTypes(database.db, ["rivista"], 1)),
      ...(await productsOfTypes(database.db, ["paper_flex"], 1)),
    ];
    const soon = addMonths(new Date(), 1);
    const later = addMonths(new Date(), 6);
    await grant(user.id, [ebook!.id], { expiresAt: soon });
    await grant(user.id, [ebook!.id, course!.id, journal!.id], { expiresAt: later });
    const yesterday = new Date(Date.now() - 24 * 3600_000);
    await grant(user.id, [oldBook!.id], { startsAt: addMonths(yesterday, -6), expiresAt: yesterday });

    const [chapter] = await database.db.select().from(ebookChapters).where(eq(ebookChapters.productId, ebook!.id)).limit(1);
    await database.db
      .insert(readingSessions)
      .values({ userId: user.id, productId: ebook!.id, currentChapterId: chapter?.id ?? null });

    const data = await dashboard(cookie);
    expect(data.items.map((i) => i.productId).sort()).toEqual([ebook!.id, course!.id, journal!.id, oldBook!.id].sort());
    const byId = new Map(data.items.map((i) => [i.productId, i]));
    expect(byId.get(ebook!.id)!.expiresAt?.getTime()).toBe(later.getTime());
    expect(byId.get(ebook!.id)!.reading?.status).toBe(chapter?.title ?? "Contenuti aggiuntivi");
    expect(byId.get(oldBook!.id)!.expired).toBe(true);
    expect(byId.get(course!.id)!.externalUrl).toMatch(/\/course\/view\.php\?id=\d+$/);
    expect(byId.get(journal!.id)!.reading).toBeNull();
    // The book being read comes first and is the one to continue.
    expect(data.items[0]!.productId).toBe(ebook!.id);
    expect(data.lastProduct?.productId).toBe(ebook!.id);
  });

  it("says which chapter a book just opened is at: the first, which the reader shows", async () => {
    const { user, cookie } = await customer();
    const [book] = await productsOfTypes(database.db, ["ebook"], 1);
    await grant(user.id, [book!.id]);
    expect(await services.library.reading.open({ userId: user.id, productId: book!.id })).toMatchObject({ ok: true });
    const [first] = await database.db
      .select({ title: ebookChapters.title })
      .from(ebookChapters)
      .where(eq(ebookChapters.productId, book!.id))
      .orderBy(ebookChapters.position)
      .limit(1);
    const data = await dashboard(cookie);
    expect(data.items[0]!.reading?.status).toBe(first!.title);
    expect(data.lastProduct?.reading?.status).toBe(first!.title);
  });

  it("says 'Contenuti aggiuntivi' of a book whose access is over, whatever chapter was read", async () => {
    const { user, cookie } = await customer();
    const [book] = await productsOfTypes(database.db, ["ebook"], 1);
    const yesterday = new Date(Date.now() - 24 * 3600_000);
    await grant(user.id, [book!.id], { startsAt: addMonths(yesterday, -6), expiresAt: yesterday });
    const [second] = await database.db
      .select({ id: ebookChapters.id })
      .from(ebookChapters)
      .where(eq(ebookChapters.productId, book!.id))
      .orderBy(ebookChapters.position)
      .offset(1)
      .limit(1);
    await database.db.insert(readingSessions).values({
      userId: user.id,
      productId: book!.id,
      currentChapterId: second!.id,
      startedAt: addMonths(yesterday, -2),
      lastReadAt: addMonths(yesterday, -1),
    });
    expect((await dashboard(cookie)).items[0]!.reading?.status).toBe("Contenuti aggiuntivi");
  });

  it("continues with the last product: one just activated, before one read earlier", async () => {
    const { user, cookie } = await customer();
    const [read, fresh] = await productsOfTypes(database.db, ["ebook"], 2);
    const lastWeek = new Date(Date.now() - 7 * 24 * 3600_000);
    await grant(user.id, [read!.id], { startsAt: lastWeek });
    await database.db
      .insert(readingSessions)
      .values({ userId: user.id, productId: read!.id, startedAt: lastWeek, lastReadAt: new Date(lastWeek.getTime() + 3600_000) });
    expect((await dashboard(cookie)).lastProduct?.productId).toBe(read!.id);

    await grant(user.id, [fresh!.id], { startsAt: new Date(lastWeek.getTime() + 2 * 3600_000) });
    const data = await dashboard(cookie);
    expect(data.lastProduct?.productId).toBe(fresh!.id);
    expect(data.lastProduct?.reading).toBeNull();
  });

  it("continues with the only product, never opened, right after its activation", async () => {
    const { user, cookie } = await customer();
    const [book] = await productsOfTypes(database.db, ["ebook"], 1);
    await grant(user.id, [book!.id]);
    expect((await dashboard(cookie)).lastProduct?.productId).toBe(book!.id);
  });

  it("does not show another customer's products", async () => {
    const owner = await customer();
    const other = await customer();
    const [book] = await productsOfTypes(database.db, ["ebook"], 1);
    await grant(owner.user.id, [book!.id]);
    expect((await dashboard(other.cookie)).items).toHaveLength(0);
  });
});
