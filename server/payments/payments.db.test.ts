// The checkout and card payment services together, on the sandbox gateway: opening orders,
// discount codes, the once-only rules of paying, failures, 3-D Secure, reset and recovery.
import { and, count, eq, like as sqlLike } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../tests/support/database.ts";
import { createCheckout } from "../commerce/checkout.ts";
import { checkoutDetails } from "../../tests/support/checkout.ts";
import { openDatabase, type DatabaseHandle } from "../db/client.ts";
import {
  couponRedemptions,
  coupons,
  entitlements,
  mailOutbox,
  orders,
  paymentAttempts,
  payments as paymentsTable,
  products,
  rateLimits,
  sandboxGatewayObjects,
  savedCheckoutDetails,
  users,
} from "../db/schema.ts";
import { createLogger } from "../logger.ts";
import { createMailService } from "../mail/service.ts";
import { createRateLimits } from "../security/rate-limits.ts";
import { EDU_PRODUCT_CODE } from "../../shared/library-constants.ts";
import { createSandboxGateway, SANDBOX_MESSAGES } from "./sandbox-gateway.ts";
import { createPayments } from "./service.ts";

const SUCCEEDS = "4242 4242 4242 4242";
const DECLINED = "4000 0000 0000 9995";
const AUTHENTICATION = "4000 0025 0000 3155";

let database: TestDatabase;
/** On PostgreSQL, a second pool to the same database: another server instance. */
let otherInstance: DatabaseHandle | undefined;
let clock = new Date("2026-11-23T10:00:00Z");
const now = () => clock;

function servicesOver(db: TestDatabase["db"]) {
  const rateLimitsService = createRateLimits(db, { clearExpiredByTimeout: false });
  const mail = createMailService({ db, smtpUrl: undefined, from: "portale@example.it", log: createLogger("silent"), now });
  const sandbox = createSandboxGateway(db, now);
  const payments = createPayments({
    db,
    gateway: sandbox.gateway,
    rateLimits: rateLimitsService,
    mail,
    publicOrigin: "https://portale.example.it",
    log: createLogger("silent"),
    now,
  });
  return {
    checkout: createCheckout({ db, rateLimits: rateLimitsService, now }),
    sandbox,
    payments,
    rateLimits: rateLimitsService,
  };
}
let services: ReturnType<typeof servicesOver>;

let ebook: { id: string; sku: string; priceCents: number };
let paperBook: { id: string; sku: string };

beforeAll(async () => {
  database = await createTestDatabase();
  if (database.url) otherInstance = await openDatabase({ url: database.url, poolMax: 5 });
  services = servicesOver(database.db);
  const bySku = async (prefix: string) => {
    const [row] = await database.db
      .select({ id: products.id, sku: products.sku, priceCents: products.priceCents })
      .from(products)
      .where(and(eq(products.sellable, true), sqlLike(products.sku, `${prefix}%`)))
      .limit(1);
    return row!;
  };
  ebook = await bySku("EB-");
  paperBook = await bySku("LB-");
});
afterAll(async () => {
  services.rateLimits.close();
  await otherInstance?.close();
  await database.destroy();
});
beforeEach(async () => {
  await database.db.delete(rateLimits);
  clock = new Date("2026-11-23T10:00:00Z");
});

let userNumber = 0;
async function newUser(): Promise<string> {
  const [row] = await database.db
    .insert(users)
    .values({ email: `acquirente${++userNumber}@example.it`, firstname: "Maria", lastname: "Rossi" })
    .returning({ id: users.id });
  return row!.id;
}

const details = checkoutDetails;

async function openOrder(userId: string, code = ebook.sku) {
  const opened = await services.checkout.open(userId, code);
  if (!opened.ok) throw new Error(`setup: ${opened.reason}`);
  return opened.orderId;
}

async function orderRow(orderId: string) {
  const [row] = await database.db.select().from(orders).where(eq(orders.id, orderId));
  return row!;
}
async function paymentCount(orderId: string) {
  const [row] = await database.db.select({ n: count() }).from(paymentsTable).where(eq(paymentsTable.orderId, orderId));
  return row!.n;
}
async function chargeCount(orderId: string) {
  const rows = await database.db.select().from(sandboxGatewayObjects).where(eq(sandboxGatewayObjects.kind, "charge"));
  return rows.filter((row) => (row.data as { metadata: Record<string, string> }).metadata.order_id === orderId).length;
}

/** Starts the payment and gives the sandbox a card, as the checkout's form post does. */
async function payWith(userId: string, orderId: string, card: string) {
  const started = await services.payments.start(userId, orderId, details());
  if (!started.ok) throw new Error(`setup: ${started.reason}`);
  const result = await services.sandbox.confirmCard(started.setupId, card);
  return { setupId: started.setupId, result };
}

describe("opening a checkout", () => {
  it("makes one open order per customer and product, however often the link is followed", async () => {
    const userId = await newUser();
    const first = await openOrder(userId);
    expect(await openOrder(userId)).toBe(first);
    const order = await orderRow(first);
    expect(order).toMatchObject({
      status: "new",
      userId,
      subtotalCents: ebook.priceCents,
      totalCents: ebook.priceCents,
      hasShipment: false,
    });
  });

  it("makes one order when the same customer opens it many times at once", async () => {
    const userId = await newUser();
    const instances = [services.checkout, ...(otherInstance ? [servicesOver(otherInstance.db).checkout] : [])];
    const ids = await Promise.all(Array.from({ length: 12 }, (_, i) => instances[i % instances.length]!.open(userId, ebook.sku)));
    expect(new Set(ids.map((r) => (r.ok ? r.orderId : r.reason))).size).toBe(1);
    const [open] = await database.db.select({ n: count() }).from(orders).where(eq(orders.userId, userId));
    expect(open!.n).toBe(1);
  });

  it("refuses an unknown or unsellable code, and EDU while EDU runs", async () => {
    const userId = await newUser();
    expect(await services.checkout.open(userId, "NON-ESISTE")).toEqual({ ok: false, reason: "unknown_product" });
    expect(await services.checkout.open(userId, "ebookedu")).toEqual({ ok: false, reason: "unknown_product" });
    const eduOrder = await openOrder(userId, EDU_PRODUCT_CODE);
    const edu = await orderRow(eduOrder);
    expect(edu.totalCents).toBe(450); // the first month
    await services.payments.settleSetup((await payWith(userId, eduOrder, SUCCEEDS)).setupId);
    expect(await services.checkout.open(userId, EDU_PRODUCT_CODE)).toEqual({ ok: false, reason: "edu_active" });
  });

  it("asks for shipping on a paper book", async () => {
    const userId = await newUser();
    expect((await orderRow(await openOrder(userId, paperBook.sku))).hasShipment).toBe(true);
  });

  it("shows an order to its owner only, and switches an advance option off on load", async () => {
    const owner = await newUser();
    const orderId = await openOrder(owner);
    await database.db.update(orders).set({ optionAdvance: true }).where(eq(orders.id, orderId));
    expect(await services.checkout.view(await newUser(), orderId)).toBeNull();
    expect(await services.checkout.view(owner, "not-a-uuid")).toBeNull();
    const view = await services.checkout.view(owner, orderId);
    expect(view).toMatchObject({ id: orderId, status: "new", itemCount: 1, customer: { firstname: "Maria", lastname: "Rossi" } });
    expect((await orderRow(orderId)).optionAdvance).toBe(false);
  });
});

async function latestAttempt(orderId: string) {
  const rows = await database.db.select().from(paymentAttempts).where(eq(paymentAttempts.orderId, orderId));
  return rows.sort((a, b) => b.attemptNo - a.attemptNo)[0]!;
}

describe("discount codes", () => {
  async function coupon(values: Partial<typeof coupons.$inferInsert> & { code: string }) {
    await database.db.insert(coupons).values({ description: "Prova", kind: "percent", percentOff: 10, ...values });
  }

  it("applies a code trimmed and in any case, removes it, and ignores an empty one", async () => {
    await coupon({ code: "STUDIO10" });
    const userId = await newUser();
    const orderId = await openOrder(userId);
    expect(await services.checkout.applyCoupon(userId, orderId, "   ")).toBe(false);
    expect(await services.checkout.applyCoupon(userId, orderId, "  studio10 ")).toBe(true);
    const discount = Math.round(ebook.priceCents / 10);
    expect(await orderRow(orderId)).toMatchObject({
      couponCode: "STUDIO10",
      discountCents: discount,
      totalCents: ebook.priceCents - discount,
    });
    expect(await services.checkout.removeCoupon(userId, orderId)).toBe(true);
    expect(await orderRow(orderId)).toMatchObject({
      couponCode: null,
      couponId: null,
      discountCents: 0,
      totalCents: ebook.priceCents,
    });
  });

  it("changes nothing for a code that does not apply: unknown, expired, used up, for another product, someone else's order", async () => {
    await coupon({ code: "SCADUTO", validUntil: new Date("2026-11-01T00:00:00Z") });
    await coupon({ code: "FUTURO", validFrom: new Date("2026-12-01T00:00:00Z") });
    await coupon({ code: "ESAURITO", maxRedemptions: 1, redemptions: 1 });
    await coupon({ code: "SOLOPAPER", productId: paperBook.id });
    await coupon({ code: "TUTTO", percentOff: 100 });
    const userId = await newUser();
    const orderId = await openOrder(userId);
    for (const code of ["NIENTE", "SCADUTO", "FUTURO", "ESAURITO", "SOLOPAPER", "TUTTO"]) {
      expect(await services.checkout.applyCoupon(userId, orderId, code), code).toBe(false);
    }
    await coupon({ code: "ALTRUI" });
    expect(await services.checkout.applyCoupon(await newUser(), orderId, "ALTRUI")).toBe(false);
    expect(await orderRow(orderId)).toMatchObject({ couponId: null, discountCents: 0, totalCents: ebook.priceCents });
  });

  it("locks a customer's attempts after 10 codes that do not apply", async () => {
    await coupon({ code: "BUONO5" });
    const userId = await newUser();
    const orderId = await openOrder(userId);
    for (let i = 0; i < 10; i++) await services.checkout.applyCoupon(userId, orderId, `SBAGLIATO${i}`);
    expect(await services.checkout.applyCoupon(userId, orderId, "BUONO5")).toBe(false);
  });

  it("counts a use when the order is paid, and drops a code that stopped applying before payment", async () => {
    await coupon({ code: "UNAVOLTA", maxRedemptions: 5, maxPerCustomer: 1 });
    const userId = await newUser();
    const first = await openOrder(userId);
    expect(await services.checkout.applyCoupon(userId, first, "UNAVOLTA")).toBe(true);
    await services.payments.settleSetup((await payWith(userId, first, SUCCEEDS)).setupId);
    expect((await orderRow(first)).status).toBe("payed");
    const [used] = await database.db.select().from(coupons).where(eq(coupons.code, "UNAVOLTA"));
    expect(used!.redemptions).toBe(1);
    expect(await database.db.select().from(couponRedemptions).where(eq(couponRedemptions.orderId, first))).toHaveLength(1);

    // Once per customer: on a second order it no longer applies.
    const second = await openOrder(userId, paperBook.sku);
    expect(await services.checkout.applyCoupon(userId, second, "UNAVOLTA")).toBe(false);

    // Applied, then expired before 'Completa l'acquisto': dropped, and the customer sees the new total.
    await coupon({ code: "BREVE", validUntil: new Date("2026-11-23T12:00:00Z") });
    const third = await openOrder(userId, paperBook.sku);
    expect(await services.checkout.applyCoupon(userId, third, "BREVE")).toBe(true);
    clock = new Date("2026-11-23T13:00:00Z");
    expect(await services.payments.start(userId, third, details())).toEqual({ ok: false, reason: "coupon_changed" });
    expect(await orderRow(third)).toMatchObject({ status: "new", couponId: null, discountCents: 0 });
  });
});

describe("paying by card in the sandbox", () => {
  it("with a good card: one payment, the order paid, access granted, the details kept, a mail with the receipt", async () => {
    const userId = await newUser();
    const orderId = await openOrder(userId, paperBook.sku);
    const shipment = {
      firstname: "Maria",
      lastname: "Rossi",
      address: "Via Roma 1",
      postcode: "00184",
      city: "Roma",
      province: "RM",
      country: "IT" as const,
    };
    const started = await services.payments.start(userId, orderId, details({ shipment, shipmentSave: true }));
    if (!started.ok) throw new Error(started.reason);
    expect((await orderRow(orderId)).status).toBe("waitforpayment");
    expect(await services.sandbox.confirmCard(started.setupId, SUCCEEDS)).toEqual({ status: "succeeded" });
    expect(await services.payments.settleSetup(started.setupId)).toEqual({ state: "paid" });

    const order = await orderRow(orderId);
    expect(order).toMatchObject({ status: "payed", committedAt: clock, customerEmail: "maria.rossi@example.it" });
    const [payment] = await database.db.select().from(paymentsTable).where(eq(paymentsTable.orderId, orderId));
    expect(payment).toMatchObject({ amountCents: order.totalCents, cardBrand: "visa", cardLast4: "4242", status: "payed" });
    expect(payment!.paymentCode).toMatch(/^PX\d{6}-[0-9A-Z]{6}$/);
    expect(await database.db.select().from(entitlements).where(eq(entitlements.orderId, orderId))).toHaveLength(1);
    const [saved] = await database.db.select().from(savedCheckoutDetails).where(eq(savedCheckoutDetails.userId, userId));
    expect(saved!.shipment).toEqual(shipment);
    const [mail] = await database.db.select().from(mailOutbox).where(eq(mailOutbox.userId, userId));
    expect(mail!.subject).toBe(`Ordine confermato n° ${order.orderCode}`);
    expect(mail!.text).toContain(`/ricevuta/${order.orderCode}/${payment!.paymentCode}/`);

    // Checked again (the return page, the reconciler): nothing more happens.
    expect(await services.payments.check(userId, orderId)).toEqual({ state: "paid" });
    expect(await services.payments.reconcile()).toBe(0);
    expect(await paymentCount(orderId)).toBe(1);
    expect(await chargeCount(orderId)).toBe(1);
    // The full card number is nowhere in the database.
    const everything = JSON.stringify(await database.db.select().from(sandboxGatewayObjects));
    expect(everything).not.toContain("4242424242424242");
  });

  it("with a declined card: no payment, the attempt failed with the provider's message, the order new again", async () => {
    const userId = await newUser();
    const orderId = await openOrder(userId);
    const { setupId, result } = await payWith(userId, orderId, DECLINED);
    expect(result).toEqual({ status: "succeeded" });
    expect(await services.payments.settleSetup(setupId)).toEqual({ state: "failed", errorMessage: SANDBOX_MESSAGES.declined });
    expect((await orderRow(orderId)).status).toBe("new");
    expect(await paymentCount(orderId)).toBe(0);
    expect(await database.db.select().from(entitlements).where(eq(entitlements.orderId, orderId))).toHaveLength(0);
    // A second try with a good card goes through, with new idempotency keys.
    const retry = await payWith(userId, orderId, SUCCEEDS);
    expect(await services.payments.settleSetup(retry.setupId)).toEqual({ state: "paid" });
    expect(await paymentCount(orderId)).toBe(1);
  });

  it("with a card asking for 3-D Secure: approved, it pays; failed, the card step waits for another card", async () => {
    const userId = await newUser();
    const orderId = await openOrder(userId);
    const { setupId, result } = await payWith(userId, orderId, AUTHENTICATION);
    expect(result).toEqual({ status: "requires_action" });
    expect(await services.payments.check(userId, orderId)).toEqual({ state: "requires_customer", errorMessage: null });
    expect(await services.sandbox.authenticate(setupId, false)).toEqual({
      status: "requires_payment_method",
      errorMessage: SANDBOX_MESSAGES.authenticationFailed,
    });
    expect(await services.payments.check(userId, orderId)).toEqual({
      state: "requires_customer",
      errorMessage: SANDBOX_MESSAGES.authenticationFailed,
    });
    expect(await services.payments.pendingSetup(userId, orderId)).toBe(setupId);
    expect(await services.sandbox.confirmCard(setupId, AUTHENTICATION)).toEqual({ status: "requires_action" });
    expect(await services.sandbox.authenticate(setupId, true)).toEqual({ status: "succeeded" });
    expect(await services.sandbox.authenticate(setupId, true)).toEqual({ status: "not_pending" });
    expect(await services.payments.settleSetup(setupId)).toEqual({ state: "paid" });
    expect(await paymentCount(orderId)).toBe(1);
  });

  it("refuses a second start, another customer's order and a hub other than the card", async () => {
    const userId = await newUser();
    const orderId = await openOrder(userId);
    expect(await services.payments.start(userId, orderId, details({ paymentHub: "sepa" }))).toEqual({
      ok: false,
      reason: "not_card",
    });
    expect(await services.payments.start(await newUser(), orderId, details())).toEqual({ ok: false, reason: "not_found" });
    expect((await services.payments.start(userId, orderId, details())).ok).toBe(true);
    expect(await services.payments.start(userId, orderId, details())).toEqual({ ok: false, reason: "not_new" });
  });

  it("resets an attempt waiting for the card, and then the order can be paid", async () => {
    const userId = await newUser();
    const orderId = await openOrder(userId);
    const { setupId } = await payWith(userId, orderId, AUTHENTICATION);
    expect(await services.payments.reset(await newUser(), orderId)).toEqual({ ok: false });
    expect(await services.payments.reset(userId, orderId)).toEqual({ ok: true });
    expect((await orderRow(orderId)).status).toBe("new");
    expect((await latestAttempt(orderId)).status).toBe("canceled");
    expect(await services.sandbox.authenticate(setupId, true)).toEqual({ status: "not_pending" });
    const retry = await payWith(userId, orderId, SUCCEEDS);
    expect(await services.payments.settleSetup(retry.setupId)).toEqual({ state: "paid" });
    expect(await services.payments.reset(userId, orderId)).toEqual({ ok: false });
  });
});

describe("once and only once", () => {
  it("'Completa l'acquisto' 50 times at once: one attempt, one charge, one payment", async () => {
    const userId = await newUser();
    const orderId = await openOrder(userId);
    const instances = [services, ...(otherInstance ? [servicesOver(otherInstance.db)] : [])];
    const results = await Promise.all(
      Array.from({ length: 50 }, async (_, i) => {
        const instance = instances[i % instances.length]!;
        const started = await instance.payments.start(userId, orderId, details());
        if (!started.ok) return instance.payments.check(userId, orderId);
        await instance.sandbox.confirmCard(started.setupId, SUCCEEDS);
        return instance.payments.settleSetup(started.setupId);
      }),
    );
    expect(results.filter((r) => r && "state" in r && r.state === "paid").length).toBeGreaterThanOrEqual(1);
    expect(await services.payments.check(userId, orderId)).toEqual({ state: "paid" });
    const [attempts] = await database.db.select({ n: count() }).from(paymentAttempts).where(eq(paymentAttempts.orderId, orderId));
    expect(attempts!.n).toBe(1);
    expect(await chargeCount(orderId)).toBe(1);
    expect(await paymentCount(orderId)).toBe(1);
  });

  it("settles an attempt checked by many at once (return page, reconcilers of two instances) once", async () => {
    const userId = await newUser();
    const orderId = await openOrder(userId);
    const { setupId } = await payWith(userId, orderId, SUCCEEDS);
    const instances = [services, ...(otherInstance ? [servicesOver(otherInstance.db)] : [])];
    await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        i % 2 === 0
          ? instances[i % instances.length]!.payments.settleSetup(setupId)
          : instances[i % instances.length]!.payments.reconcile(),
      ),
    );
    expect(await services.payments.check(userId, orderId)).toEqual({ state: "paid" });
    expect(await chargeCount(orderId)).toBe(1);
    expect(await paymentCount(orderId)).toBe(1);
    expect(await database.db.select().from(entitlements).where(eq(entitlements.orderId, orderId))).toHaveLength(1);
  });

  it("recovers a charge whose instance died after the gateway charged and before the database recorded it", async () => {
    const userId = await newUser();
    const orderId = await openOrder(userId);
    const { setupId } = await payWith(userId, orderId, SUCCEEDS);
    // An instance whose database writes stop right after the charge is confirmed: its process dies.
    const dying = servicesOver(database.db);
    const gateway = dying.sandbox.gateway;
    const crash = new Error("the process died");
    const confirm = gateway.confirmCharge.bind(gateway);
    gateway.confirmCharge = async (...args) => {
      await confirm(...args);
      throw crash;
    };
    expect(await dying.payments.settleSetup(setupId)).toEqual({ state: "pending" });
    expect(await chargeCount(orderId)).toBe(1);
    expect(await paymentCount(orderId)).toBe(0);
    expect((await orderRow(orderId)).status).toBe("waitforpayment");

    // Within the lease nobody takes it over; after it, the reconciler finishes it with the same keys.
    expect(await services.payments.reconcile()).toBe(0);
    clock = new Date(clock.getTime() + 61_000);
    expect(await services.payments.reconcile()).toBe(1);
    expect((await orderRow(orderId)).status).toBe("payed");
    expect(await chargeCount(orderId)).toBe(1);
    expect(await paymentCount(orderId)).toBe(1);
  });
});
