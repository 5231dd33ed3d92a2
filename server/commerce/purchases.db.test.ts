// The purchases service over a real database: the two tabs of /my-products/ and what they leave
// out, the purchase history's pages, and the receipts with their VAT, each seen only by its owner.
import { randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { productOfType, productsOfTypes } from "#tests/support/catalog.ts";
import { createTestDatabase, type TestDatabase } from "#tests/support/database.ts";
import { insertOrder } from "#tests/support/orders.ts";
import { testConfig } from "#tests/support/config.ts";
import { createAccountsService } from "#server/accounts/service.ts";
import { products } from "#server/db/schema/index.ts";
import { insertCompletedOrder } from "./orders.ts";
import { createPurchases, type Purchases } from "./purchases.ts";
import { PURCHASE_HISTORY_PAGE_SIZE } from "#shared/commerce-constants.ts";
import { checkoutPath } from "#shared/links.ts";
import { isPartitaIva } from "#shared/italian-ids.ts";

let database: TestDatabase;
let purchases: Purchases;
const seller = testConfig().seller;

const T0 = new Date("2026-03-02T10:00:00Z");
const minutes = (n: number) => new Date(T0.getTime() + n * 60_000);

type Product = { id: string; sku: string; name: string };
let ebook: Product;
let course: Product;
let journal: Product;
let paperFlex: Product;
let paperHard: Product;
let edu: Product & { code: string | null };

beforeAll(async () => {
  database = await createTestDatabase();
  purchases = createPurchases({ db: database.db, seller });
  const of = (code: string) => productOfType(database.db, code);
  [ebook, course, journal, paperFlex, paperHard] = await Promise.all([
    of("ebook"),
    of("corso"),
    of("rivista"),
    of("paper_flex"),
    of("paper_hard"),
  ]);
  const [row] = await database.db
    .select({ id: products.id, sku: products.sku, name: products.name, code: products.code })
    .from(products)
    .where(eq(products.code, "abbonamentoedu"));
  edu = row!;
});
afterAll(() => database.destroy());

async function newCustomer() {
  const result = await createAccountsService(database.db).register({
    firstname: "Giulia",
    lastname: "Verdi",
    email: `acquirente.${randomBytes(4).toString("hex")}@example.it`,
    password: "Segreta1!",
  });
  if (!result.ok) throw new Error("setup: registration failed");
  return result.user.id;
}

describe("my products", () => {
  it("puts paid orders under 'Attivi' and the others under 'Inattivi', each with its badge", async () => {
    const userId = await newCustomer();
    const paid = await insertOrder(database.db, { userId, at: minutes(0), lines: [{ productId: ebook.id }] });
    const cancelled = await insertOrder(database.db, {
      userId,
      at: minutes(1),
      status: "cancelled",
      lines: [{ productId: course.id }],
    });
    const expired = await insertOrder(database.db, {
      userId,
      at: minutes(2),
      status: "expired",
      lines: [{ productId: journal.id }],
    });
    const interrupted = await insertOrder(database.db, {
      userId,
      at: minutes(3),
      status: "interrupted",
      lines: [{ productId: edu.id, totalCents: 2700, monthlyPriceCents: 450 }],
      payments: [{ paidAt: minutes(3), amountCents: 450 }],
    });

    const { active, inactive } = await purchases.myProducts(userId);
    expect(active.map((c) => [c.name, c.orderCode, c.statusLabel])).toEqual([[ebook.name, paid.orderCode, "Attivo"]]);
    // Newest order first.
    expect(inactive.map((c) => [c.name, c.orderCode, c.statusLabel])).toEqual([
      [edu.name, interrupted.orderCode, "Interrotto"],
      [journal.name, expired.orderCode, "Scaduto"],
      [course.name, cancelled.orderCode, "Annullato"],
    ]);

    const card = active[0]!;
    expect(card).toMatchObject({
      typeCode: "ebook",
      typeName: "eBook",
      sku: ebook.sku,
      buyAgainAction: null,
      receiptHref: `/ricevuta/${paid.orderCode}/`,
    });
    expect(card.cover).toBe(ebook.sku.toLowerCase());
    expect(card.isbn).toMatch(/^97[89]/);
    expect(card.payments).toEqual([
      {
        code: paid.payments[0]!.code,
        paidAt: minutes(0),
        methodCode: "card_checkout",
        method: "Carta di Credito",
        cardBrand: "visa",
        cardLast4: "4242",
        amountCents: paid.totalCents,
        status: "payed",
        refunds: [],
        receiptHref: `/ricevuta/${paid.orderCode}/${paid.payments[0]!.code}/`,
      },
    ]);
    // Not paid: 'Acquista di nuovo' posts to the product's create-checkout address, besides 'Ricevuta'.
    expect(inactive.map((c) => c.buyAgainAction)).toEqual([
      checkoutPath("abbonamentoedu"),
      checkoutPath(journal.sku),
      checkoutPath(course.sku),
    ]);
    expect(inactive[0]!.payments.map((p) => p.amountCents)).toEqual([450]);
    expect(inactive[2]!.payments).toEqual([]);
  });

  it("leaves out paper-only items and orders still at the checkout", async () => {
    const userId = await newCustomer();
    const mixed = await insertOrder(database.db, {
      userId,
      at: minutes(0),
      lines: [{ productId: paperFlex.id }, { productId: ebook.id }, { productId: paperHard.id }],
    });
    await insertOrder(database.db, { userId, at: minutes(1), status: "new", lines: [{ productId: course.id }] });
    await insertOrder(database.db, { userId, at: minutes(2), status: "waitforpayment", lines: [{ productId: journal.id }] });
    await insertOrder(database.db, { userId, at: minutes(3), status: "cancelled", lines: [{ productId: paperHard.id }] });
    // An older line without the type snapshot is judged by its product's type.
    await insertOrder(database.db, { userId, at: minutes(4), lines: [{ productId: paperFlex.id, productTypeCode: null }] });

    const { active, inactive } = await purchases.myProducts(userId);
    expect(active.map((c) => [c.name, c.orderCode])).toEqual([[ebook.name, mixed.orderCode]]);
    expect(inactive).toEqual([]);
  });

  it("lists the free orders of activations, and judges their lines by their products' types", async () => {
    const userId = await newCustomer();
    const order = await database.db.transaction((tx) =>
      insertCompletedOrder(tx, {
        userId,
        now: minutes(0),
        lines: [
          { productId: course.id, description: "Attivazione", totalCents: 0 },
          { productId: paperFlex.id, description: "Attivazione", totalCents: 0 },
        ],
      }),
    );
    const { active } = await purchases.myProducts(userId);
    expect(active.map((c) => [c.name, c.typeName, c.orderCode, c.payments.length])).toEqual([
      [course.name, "Corso", order.orderCode, 0],
    ]);
  });

  it("offers 'Acquista di nuovo' only for products still on sale", async () => {
    const userId = await newCustomer();
    const [onSale, withdrawn] = await productsOfTypes(database.db, ["rivista"], 2);
    await database.db.update(products).set({ sellable: false }).where(eq(products.id, withdrawn!.id));
    try {
      await insertOrder(database.db, { userId, at: minutes(0), status: "expired", lines: [{ productId: onSale!.id }] });
      await insertOrder(database.db, { userId, at: minutes(1), status: "expired", lines: [{ productId: withdrawn!.id }] });
      const { inactive } = await purchases.myProducts(userId);
      expect(inactive.map((c) => [c.name, c.buyAgainAction !== null])).toEqual([
        [withdrawn!.name, false],
        [onSale!.name, true],
      ]);
    } finally {
      await database.db.update(products).set({ sellable: true }).where(eq(products.id, withdrawn!.id));
    }
  });

  it("shows nobody else's orders", async () => {
    const owner = await newCustomer();
    const other = await newCustomer();
    await insertOrder(database.db, { userId: owner, at: minutes(0), lines: [{ productId: ebook.id }] });
    await insertOrder(database.db, { userId: owner, at: minutes(1), status: "cancelled", lines: [{ productId: course.id }] });
    expect(await purchases.myProducts(other)).toEqual({ active: [], inactive: [] });
  });
});

describe("purchase history", () => {
  it("pages the customer's payments 5 at a time, newest first", async () => {
    const userId = await newCustomer();
    const codes: string[] = [];
    // Six payments, inserted out of date order.
    for (const n of [3, 0, 5, 1, 4, 2]) {
      const order = await insertOrder(database.db, { userId, at: minutes(n), lines: [{ productId: ebook.id }] });
      codes[n] = order.payments[0]!.code;
    }
    const newestFirst = [...codes].reverse();

    const first = await purchases.history(userId, 1);
    expect(PURCHASE_HISTORY_PAGE_SIZE).toBe(5);
    expect(first.page).toBe(1);
    expect(first.entries.map((e) => e.code)).toEqual(newestFirst.slice(0, 5));
    expect(first.hasNext).toBe(true);
    const second = await purchases.history(userId, 2);
    expect(second.entries.map((e) => e.code)).toEqual(newestFirst.slice(5));
    expect(second.hasNext).toBe(false);
    expect((await purchases.history(userId, 3)).entries).toEqual([]);
    // A page that is not a whole number from 1 is the first.
    for (const page of [0, -2, 1.5, Number.NaN]) {
      expect((await purchases.history(userId, page)).entries.map((e) => e.code)).toEqual(newestFirst.slice(0, 5));
    }
  });

  it("splits payments of the same instant into pages without repeating or losing one", async () => {
    const userId = await newCustomer();
    const codes = new Set<string>();
    for (let i = 0; i < 7; i++) {
      const order = await insertOrder(database.db, { userId, at: minutes(0), lines: [{ productId: journal.id }] });
      codes.add(order.payments[0]!.code);
    }
    const first = await purchases.history(userId, 1);
    const second = await purchases.history(userId, 2);
    expect(first.entries).toHaveLength(5);
    expect(second.entries).toHaveLength(2);
    expect(new Set([...first.entries, ...second.entries].map((e) => e.code))).toEqual(codes);
  });

  it("tells each payment's products (title and type), order number, method with brand and last 4, date and amount", async () => {
    const userId = await newCustomer();
    const card = await insertOrder(database.db, {
      userId,
      at: minutes(10),
      lines: [{ productId: course.id }, { productId: ebook.id }, { productId: ebook.id, quantity: 2 }],
      payments: [{ paidAt: minutes(11), cardBrand: "mastercard", cardLast4: "4444" }],
    });
    const transfer = await insertOrder(database.db, {
      userId,
      at: minutes(5),
      lines: [{ productId: paperFlex.id }],
      payments: [{ paidAt: minutes(6), methodCode: "sepa" }],
    });
    // Someone else's payment is not in the history.
    await insertOrder(database.db, { userId: await newCustomer(), at: minutes(20), lines: [{ productId: ebook.id }] });

    const { entries, hasNext } = await purchases.history(userId, 1);
    expect(hasNext).toBe(false);
    // Each title once, however many lines name it (the ebook is on two).
    expect(entries[0]!.products).toHaveLength(2);
    expect(entries).toEqual([
      {
        code: card.payments[0]!.code,
        orderCode: card.orderCode,
        products: expect.arrayContaining([
          { name: course.name, typeName: "Corso" },
          { name: ebook.name, typeName: "eBook" },
        ]),
        paidAt: minutes(11),
        methodCode: "card_checkout",
        method: "Carta di Credito",
        cardBrand: "mastercard",
        cardLast4: "4444",
        amountCents: card.totalCents,
        status: "payed",
        refunds: [],
        receiptHref: `/ricevuta/${card.orderCode}/${card.payments[0]!.code}/`,
      },
      {
        code: transfer.payments[0]!.code,
        orderCode: transfer.orderCode,
        products: [{ name: paperFlex.name, typeName: "Libro + eBook" }],
        paidAt: minutes(6),
        methodCode: "sepa",
        method: "Bonifico bancario",
        cardBrand: null,
        cardLast4: null,
        amountCents: transfer.totalCents,
        status: "payed",
        refunds: [],
        receiptHref: `/ricevuta/${transfer.orderCode}/${transfer.payments[0]!.code}/`,
      },
    ]);
  });
});

describe("receipts", () => {
  const shipment = {
    firstname: "Giulia",
    lastname: "Verdi",
    address: "Via Roma 10",
    postcode: "20121",
    city: "Milano",
    province: "MI",
    country: "IT" as const,
    at: "Studio Legale Verdi",
  };

  it("names the seller from configuration, with a valid Partita IVA", async () => {
    const userId = await newCustomer();
    const order = await insertOrder(database.db, { userId, at: minutes(0), lines: [{ productId: ebook.id }] });
    const receipt = await purchases.receipt(userId, order.orderCode);
    expect(receipt?.seller).toEqual({ name: "Novalex Editore S.r.l.", address: seller.address, vat: seller.vat, rea: null });
    expect(isPartitaIva(receipt!.seller.vat)).toBe(true);
  });

  it("shows the VAT each line contains, and 'IVA assolta dall'editore' where the publisher paid it", async () => {
    const userId = await newCustomer();
    const order = await insertOrder(database.db, {
      userId,
      at: minutes(0),
      lines: [
        { productId: ebook.id, totalCents: 3200 },
        { productId: course.id, totalCents: 4900 },
        { productId: paperFlex.id, totalCents: 4500 },
      ],
      shipment,
    });
    const receipt = (await purchases.receipt(userId, order.orderCode))!;
    const byName = new Map(receipt.lines.map((l) => [l.description, l]));
    // round(gross × bps / (10000 + bps)): 3200 at 4 % → 123; 4900 at 22 % → 884.
    expect(byName.get(ebook.name)).toMatchObject({
      grossCents: 3200,
      netCents: 3200,
      vatRateBps: 400,
      vatCents: 123,
      typeName: "eBook",
    });
    expect(byName.get(course.name)).toMatchObject({ grossCents: 4900, vatRateBps: 2200, vatCents: 884, typeName: "Corso" });
    expect(byName.get(paperFlex.name)).toMatchObject({ grossCents: 4500, vatRateBps: null, vatCents: 0 });
    expect(receipt).toMatchObject({
      subtotalCents: 12600,
      discountCents: 0,
      shipmentCents: 0,
      totalCents: 12600,
      vatCents: 1007,
      paidCents: 12600,
      shipment,
      payment: null,
    });
    expect(receipt.payments.map((p) => [p.code, p.amountCents, p.vatCents])).toEqual([[order.payments[0]!.code, 12600, 1007]]);
  });

  it("takes the VAT of each line after its share of the discount", async () => {
    const userId = await newCustomer();
    const order = await insertOrder(database.db, {
      userId,
      at: minutes(0),
      lines: [
        { productId: ebook.id, totalCents: 3200 },
        { productId: course.id, totalCents: 4900 },
      ],
      discountCents: 810,
      couponCode: "STUDIO10",
    });
    const receipt = (await purchases.receipt(userId, order.orderCode))!;
    const byName = new Map(receipt.lines.map((l) => [l.description, l]));
    // 810 split 3200 : 4900 → 320 and 490; 2880 at 4 % → 111, 4410 at 22 % → 795.
    expect(byName.get(ebook.name)).toMatchObject({ discountCents: 320, netCents: 2880, vatCents: 111 });
    expect(byName.get(course.name)).toMatchObject({ discountCents: 490, netCents: 4410, vatCents: 795 });
    expect(receipt).toMatchObject({
      subtotalCents: 8100,
      discountCents: 810,
      couponCode: "STUDIO10",
      totalCents: 7290,
      vatCents: 906,
    });
  });

  it("takes a receipt's VAT per rate, on the rate's sum, as its e-invoice does", async () => {
    const userId = await newCustomer();
    const order = await insertOrder(database.db, {
      userId,
      at: minutes(0),
      lines: [
        { productId: ebook.id, totalCents: 1001 },
        { productId: journal.id, totalCents: 1001 },
      ],
    });
    const receipt = (await purchases.receipt(userId, order.orderCode))!;
    // Each 10,01 € line contains 0,39 € of VAT at 4 %; together 20,02 € contain 0,77 €, not 0,78.
    expect(receipt.lines.map((l) => l.vatCents)).toEqual([39, 39]);
    expect(receipt.vatCents).toBe(77);
    expect(receipt.payments.map((p) => p.vatCents)).toEqual([77]);
  });

  it("gives one payment's receipt that payment, with the VAT it contains", async () => {
    const userId = await newCustomer();
    const order = await insertOrder(database.db, {
      userId,
      at: minutes(0),
      lines: [{ productId: edu.id, totalCents: 2700, monthlyPriceCents: 450 }],
      payments: [
        { paidAt: minutes(0), amountCents: 450, cardBrand: "visa", cardLast4: "4242" },
        { paidAt: minutes(60 * 24 * 30), amountCents: 450, cardBrand: "amex", cardLast4: "0005" },
      ],
    });
    const [first, second] = order.payments;
    const receipt = (await purchases.receipt(userId, order.orderCode, first!.code))!;
    expect(receipt.payment).toMatchObject({
      code: first!.code,
      amountCents: 450,
      method: "Carta di Credito",
      cardBrand: "visa",
      cardLast4: "4242",
      // 450 at 22 % → 81.
      vatCents: 81,
    });
    expect(receipt.payments.map((p) => p.code)).toEqual([first!.code]);
    expect(receipt.paidCents).toBe(450);
    expect(receipt.lines[0]).toMatchObject({ monthlyPriceCents: 450, grossCents: 2700 });

    const whole = (await purchases.receipt(userId, order.orderCode))!;
    expect(whole.payments.map((p) => p.code)).toEqual([second!.code, first!.code]);
    expect(whole.paidCents).toBe(900);
  });

  it("shows the buyer and the billing details of the order, or the account's names when it has none", async () => {
    const userId = await newCustomer();
    const withDetails = await insertOrder(database.db, {
      userId,
      at: minutes(0),
      lines: [{ productId: paperFlex.id }],
      customer: { firstname: "Giulia", lastname: "Verdi Bianchi", email: "giulia@studio.example" },
      shipment,
      billing: {
        isCompany: true,
        name: "Studio Legale Verdi",
        vat: "00743110157",
        sdi: "ABC1234",
        pec: "studio@pec.example",
        addressAsShipment: true,
        address: { ...shipment, address: "ignorato" },
      },
    });
    const receipt = (await purchases.receipt(userId, withDetails.orderCode))!;
    expect(receipt.buyer).toEqual({ firstname: "Giulia", lastname: "Verdi Bianchi", email: "giulia@studio.example" });
    expect(receipt.billing).toMatchObject({ isCompany: true, name: "Studio Legale Verdi", vat: "00743110157", sdi: "ABC1234" });
    expect(receipt.billing?.address).toEqual(shipment);

    const activation = await database.db.transaction((tx) =>
      insertCompletedOrder(tx, {
        userId,
        now: minutes(5),
        lines: [{ productId: ebook.id, description: "Attivazione", totalCents: 0 }],
      }),
    );
    const free = (await purchases.receipt(userId, activation.orderCode))!;
    expect(free.buyer).toMatchObject({ firstname: "Giulia", lastname: "Verdi" });
    expect(free.buyer.email).toMatch(/^acquirente\./);
    expect(free).toMatchObject({ billing: null, shipment: null, totalCents: 0, payments: [], paidCents: 0 });
    expect(free.lines).toMatchObject([{ description: "Attivazione", typeName: "eBook", vatRateBps: null }]);
  });

  it("is nobody else's: another customer's order, a payment of another order, unknown codes and open orders give nothing", async () => {
    const owner = await newCustomer();
    const other = await newCustomer();
    const order = await insertOrder(database.db, { userId: owner, at: minutes(0), lines: [{ productId: ebook.id }] });
    const another = await insertOrder(database.db, { userId: owner, at: minutes(1), lines: [{ productId: course.id }] });
    const open = await insertOrder(database.db, {
      userId: owner,
      at: minutes(2),
      status: "waitforpayment",
      lines: [{ productId: journal.id }],
    });

    expect(await purchases.receipt(owner, order.orderCode)).not.toBeNull();
    expect(await purchases.receipt(owner, order.orderCode, order.payments[0]!.code)).not.toBeNull();
    expect(await purchases.receipt(other, order.orderCode)).toBeNull();
    expect(await purchases.receipt(other, order.orderCode, order.payments[0]!.code)).toBeNull();
    expect(await purchases.receipt(owner, order.orderCode, another.payments[0]!.code)).toBeNull();
    expect(await purchases.receipt(owner, "NX000000-XXXXXX")).toBeNull();
    expect(await purchases.receipt(owner, order.orderCode, "PX000000-XXXXXX")).toBeNull();
    expect(await purchases.receipt(owner, "x".repeat(500))).toBeNull();
    expect(await purchases.receipt(owner, open.orderCode)).toBeNull();
  });
});
