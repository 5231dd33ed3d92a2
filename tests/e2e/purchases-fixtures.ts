// The purchases of the browser tests (tests/e2e/purchases.spec.ts), written by prepare-server.ts
// before the server starts: a customer with paid orders (card and bank transfer payments, a
// subscription paid month by month), a cancelled order, a paper-only order and an order still at
// the checkout, so that /my-products/ shows both tabs, what it leaves out, and two history pages.
import { and, asc, eq, isNull } from "drizzle-orm";
import { createAccountsService } from "#server/accounts/service.ts";
import type { Database } from "#server/db/client.ts";
import { productTypes, products, professions, users } from "#server/db/schema/index.ts";
import { EDU_PRODUCT_CODE } from "#shared/library-constants.ts";
import { insertOrder } from "#tests/support/orders.ts";

export type PurchasesFixtures = {
  email: string;
  /** Product names of the paid orders' cards ('Attivi'). */
  active: string[];
  /** The cancelled order's product ('Inattivi', with 'Acquista di nuovo'). */
  cancelled: string;
  /** Never listed: a paper-only item, an order still at the checkout. */
  paperOnly: string;
  open: string;
  /** How many payments the history holds (two pages). */
  payments: number;
  /**
   * A card-paid order for the receipt: its code, product and payment; a discount (so the lines
   * have their widest form), and a long checkout e-mail and PEC (to see where they wrap).
   */
  receipt: {
    orderCode: string;
    product: string;
    paymentCode: string;
    amountCents: number;
    discountCents: number;
    email: string;
    pec: string;
    /** The e-invoice of its payment (its order asked for one, a company's). */
    invoice: IssuedInvoice;
  };
  /** Another customer's order invoiced to a private person (Codice Fiscale), for the receipt's lines for them. */
  privateReceipt: { email: string; orderCode: string; paymentCode: string; invoice: IssuedInvoice };
};

type IssuedInvoice = { documentNumber: string; date: string; fileName: string };

/** Issues the e-invoice of a payment, as the portal's job runner would (prepare-server.ts). */
export type IssueInvoice = (paymentId: string) => Promise<IssuedInvoice | null>;

const DAY = 24 * 3600_000;

/** A student of the fixtures, first access done: their id. */
export async function registerStudent(db: Database, email: string, password: string): Promise<string> {
  const result = await createAccountsService(db).register({ firstname: "Paola", lastname: "Neri", email, password });
  if (!result.ok) throw new Error(`e2e fixtures: cannot register ${email}`);
  const [student] = await db.select({ id: professions.id }).from(professions).where(eq(professions.code, "student"));
  await db.update(users).set({ professionId: student!.id }).where(eq(users.id, result.user.id));
  return result.user.id;
}

export async function createPurchasesFixtures(
  db: Database,
  password: string,
  issueInvoice: IssueInvoice,
): Promise<PurchasesFixtures> {
  const email = "e2e.acquisti@example.it";
  const userId = await registerStudent(db, email, password);

  const ofType = async (code: string) =>
    db
      .select({ id: products.id, name: products.name })
      .from(products)
      .innerJoin(productTypes, eq(productTypes.id, products.productTypeId))
      .where(and(eq(productTypes.code, code), code === "ebook" ? isNull(products.masterProductId) : undefined))
      .orderBy(asc(products.sku));
  const [ebooks, courses, journals, hardcovers] = await Promise.all([
    ofType("ebook"),
    ofType("corso"),
    ofType("rivista"),
    ofType("paper_hard"),
  ]);
  const [edu] = await db
    .select({ id: products.id, name: products.name })
    .from(products)
    .where(eq(products.code, EDU_PRODUCT_CODE));
  const pick = <T>(list: T[], i: number) => {
    const item = list[i];
    if (!item) throw new Error("e2e fixtures: the seed has too few products");
    return item;
  };
  const ebook = pick(ebooks, 6);
  const secondEbook = pick(ebooks, 7);
  const course = pick(courses, 3);
  const journal = pick(journals, 3);
  const cancelledCourse = pick(courses, 4);
  const hardcover = pick(hardcovers, 0);
  const openJournal = pick(journals, 4);

  // Fixed days before the start: each payment at its own time, the newest first in the history.
  const start = Date.now();
  const daysAgo = (n: number) => new Date(start - n * DAY);
  const receiptEmail = "paola.neri.praticante@studio-legale-associato-esempio.example.it";
  const receiptPec = "amministrazione.studio.neri@pec.studio-legale-associato-esempio.example.it";
  const receiptDiscountCents = 100;
  const receiptOrder = await insertOrder(db, {
    userId,
    at: daysAgo(1),
    lines: [{ productId: ebook.id }],
    payments: [{ paidAt: daysAgo(1), cardBrand: "visa", cardLast4: "4242" }],
    discountCents: receiptDiscountCents,
    couponCode: "E2E1EURO",
    customer: { firstname: "Paola", lastname: "Neri", email: receiptEmail },
    billing: {
      isCompany: true,
      name: "Studio Legale Associato Neri",
      vat: "06363391001",
      sdi: "ABC1234",
      pec: receiptPec,
      addressAsShipment: false,
      address: {
        firstname: "Paola",
        lastname: "Neri",
        address: "Via Cavour 12",
        postcode: "00184",
        city: "Roma",
        province: "RM",
        country: "IT",
      },
    },
  });
  const invoice = await issueInvoice(receiptOrder.payments[0]!.id);
  if (!invoice) throw new Error("e2e fixtures: the receipt's payment got no invoice");

  // A private person's invoice, another customer's (their history stays apart).
  const privateEmail = "giulia.verdi.privata@example.it";
  const privateOrder = await insertOrder(db, {
    userId: await registerStudent(db, privateEmail, password),
    at: daysAgo(2),
    lines: [{ productId: secondEbook.id }],
    payments: [{ paidAt: daysAgo(2), cardBrand: "visa", cardLast4: "4242" }],
    customer: { firstname: "Giulia", lastname: "Verdi", email: privateEmail },
    billing: {
      isCompany: false,
      ssn: "VRDGLI90A41H501U",
      addressAsShipment: false,
      address: {
        firstname: "Giulia",
        lastname: "Verdi",
        address: "Via Appia 3",
        postcode: "00179",
        city: "Roma",
        province: "RM",
        country: "IT",
      },
    },
  });
  const privateInvoice = await issueInvoice(privateOrder.payments[0]!.id);
  if (!privateInvoice) throw new Error("e2e fixtures: the private receipt's payment got no invoice");
  await insertOrder(db, {
    userId,
    at: daysAgo(20),
    lines: [{ productId: course.id }],
    payments: [{ paidAt: daysAgo(20), cardBrand: "mastercard", cardLast4: "4444" }],
  });
  await insertOrder(db, {
    userId,
    at: daysAgo(30),
    lines: [{ productId: journal.id }],
    payments: [{ paidAt: daysAgo(30), methodCode: "sepa" }],
  });
  await insertOrder(db, { userId, at: daysAgo(40), lines: [{ productId: secondEbook.id }] });
  // EDU, paid month by month: three payments on one order.
  await insertOrder(db, {
    userId,
    at: daysAgo(90),
    lines: [{ productId: edu!.id, totalCents: 2700, monthlyPriceCents: 450 }],
    payments: [90, 60, 30].map((n) => ({ paidAt: daysAgo(n - 0.5), amountCents: 450 })),
  });
  // Paid, but paper only: in the history, not among the cards.
  await insertOrder(db, { userId, at: daysAgo(100), lines: [{ productId: hardcover.id }] });
  await insertOrder(db, {
    userId,
    at: daysAgo(10),
    status: "cancelled",
    lines: [{ productId: cancelledCourse.id }],
    payments: [],
  });
  await insertOrder(db, { userId, at: daysAgo(2), status: "new", lines: [{ productId: openJournal.id }], payments: [] });

  return {
    email,
    active: [ebook.name, course.name, journal.name, secondEbook.name, edu!.name],
    cancelled: cancelledCourse.name,
    paperOnly: hardcover.name,
    open: openJournal.name,
    payments: 8,
    receipt: {
      orderCode: receiptOrder.orderCode,
      product: ebook.name,
      paymentCode: receiptOrder.payments[0]!.code,
      amountCents: receiptOrder.payments[0]!.amountCents,
      discountCents: receiptDiscountCents,
      email: receiptEmail,
      pec: receiptPec,
      invoice: { documentNumber: invoice.documentNumber, date: invoice.date, fileName: invoice.fileName },
    },
    privateReceipt: {
      email: privateEmail,
      orderCode: privateOrder.orderCode,
      paymentCode: privateOrder.payments[0]!.code,
      invoice: { documentNumber: privateInvoice.documentNumber, date: privateInvoice.date, fileName: privateInvoice.fileName },
    },
  };
}
