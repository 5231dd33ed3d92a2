// The checkout and card payment services together, on the sandbox gateway: opening orders,
// discount codes, the once-only rules of paying, failures, 3-D Secure, reset and recovery.
import { count, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { SHIPMENT } from "#tests/support/checkout.ts";
import { afterStart, DAY, HOUR } from "#tests/support/clock.ts";
import { CARDS, paymentHarness } from "#tests/support/payment-harness.ts";
import {
  couponRedemptions,
  coupons,
  entitlements,
  mailOutbox,
  orders,
  paymentAttempts,
  payments as paymentsTable,
  sandboxGatewayObjects,
  savedCheckoutDetails,
} from "#server/db/schema/index.ts";
import { EDU_PRODUCT_CODE } from "#shared/library-constants.ts";
import { SANDBOX_MESSAGES } from "./sandbox-gateway.ts";

const h = paymentHarness();

describe("opening a checkout", () => {
  it("makes one open order per customer and product, however often the link is followed", async () => {
    const userId = await h.newUser();
    const first = await h.openOrder(userId);
    expect(await h.openOrder(userId)).toBe(first);
    const order = await h.orderRow(first);
    expect(order).toMatchObject({
      status: "new",
      userId,
      subtotalCents: h.ebook.priceCents,
      totalCents: h.ebook.priceCents,
      hasShipment: false,
    });
  });

  it("makes one order when the same customer opens it many times at once", async () => {
    const userId = await h.newUser();
    const instances = h.instances.map((i) => i.checkout);
    const ids = await Promise.all(
      Array.from({ length: 12 }, (_, i) => instances[i % instances.length]!.open(userId, h.ebook.sku)),
    );
    expect(new Set(ids.map((r) => (r.ok ? r.orderId : r.reason))).size).toBe(1);
    const [open] = await h.database.db.select({ n: count() }).from(orders).where(eq(orders.userId, userId));
    expect(open!.n).toBe(1);
  });

  it("refuses an unknown or unsellable code, and EDU while EDU runs", async () => {
    const userId = await h.newUser();
    expect(await h.services.checkout.open(userId, "NON-ESISTE")).toEqual({ ok: false, reason: "unknown_product" });
    expect(await h.services.checkout.open(userId, "ebookedu")).toEqual({ ok: false, reason: "unknown_product" });
    const eduOrder = await h.openOrder(userId, EDU_PRODUCT_CODE);
    const edu = await h.orderRow(eduOrder);
    expect(edu.totalCents).toBe(450); // the first month
    await h.services.payments.settleSetup((await h.payWith(userId, eduOrder, CARDS.succeeds)).setupId);
    expect(await h.services.checkout.open(userId, EDU_PRODUCT_CODE)).toEqual({ ok: false, reason: "edu_active" });
  });

  it("asks for shipping on a paper book", async () => {
    const userId = await h.newUser();
    expect((await h.orderRow(await h.openOrder(userId, h.paperBook.sku))).hasShipment).toBe(true);
  });

  it("shows an order to its owner only, and switches an advance option off on load", async () => {
    const owner = await h.newUser();
    const orderId = await h.openOrder(owner);
    await h.database.db.update(orders).set({ optionAdvance: true }).where(eq(orders.id, orderId));
    expect(await h.services.checkout.view(await h.newUser(), orderId)).toBeNull();
    expect(await h.services.checkout.view(owner, "not-a-uuid")).toBeNull();
    const view = await h.services.checkout.view(owner, orderId);
    expect(view).toMatchObject({ id: orderId, status: "new", itemCount: 1, customer: { firstname: "Maria", lastname: "Rossi" } });
    expect((await h.orderRow(orderId)).optionAdvance).toBe(false);
  });
});

describe("discount codes", () => {
  async function coupon(values: Partial<typeof coupons.$inferInsert> & { code: string }) {
    await h.database.db.insert(coupons).values({ description: "Prova", kind: "percent", percentOff: 10, ...values });
  }

  it("applies a code trimmed and in any case, removes it, and ignores an empty one", async () => {
    await coupon({ code: "STUDIO10" });
    const userId = await h.newUser();
    const orderId = await h.openOrder(userId);
    expect(await h.services.checkout.applyCoupon(userId, orderId, "   ")).toBe(false);
    expect(await h.services.checkout.applyCoupon(userId, orderId, "  studio10 ")).toBe(true);
    const discount = Math.round(h.ebook.priceCents / 10);
    expect(await h.orderRow(orderId)).toMatchObject({
      couponCode: "STUDIO10",
      discountCents: discount,
      totalCents: h.ebook.priceCents - discount,
    });
    expect(await h.services.checkout.removeCoupon(userId, orderId)).toBe(true);
    expect(await h.orderRow(orderId)).toMatchObject({
      couponCode: null,
      couponId: null,
      discountCents: 0,
      totalCents: h.ebook.priceCents,
    });
  });

  it("changes nothing for a code that does not apply: unknown, expired, used up, for another product, someone else's order", async () => {
    await coupon({ code: "SCADUTO", validUntil: afterStart(-22 * DAY) });
    await coupon({ code: "FUTURO", validFrom: afterStart(8 * DAY) });
    await coupon({ code: "ESAURITO", maxRedemptions: 1, redemptions: 1 });
    await coupon({ code: "SOLOPAPER", productId: h.paperBook.id });
    await coupon({ code: "TUTTO", percentOff: 100 });
    const userId = await h.newUser();
    const orderId = await h.openOrder(userId);
    for (const code of ["NIENTE", "SCADUTO", "FUTURO", "ESAURITO", "SOLOPAPER", "TUTTO"]) {
      expect(await h.services.checkout.applyCoupon(userId, orderId, code), code).toBe(false);
    }
    await coupon({ code: "ALTRUI" });
    expect(await h.services.checkout.applyCoupon(await h.newUser(), orderId, "ALTRUI")).toBe(false);
    expect(await h.orderRow(orderId)).toMatchObject({ couponId: null, discountCents: 0, totalCents: h.ebook.priceCents });
  });

  it("locks a customer's attempts after 10 codes that do not apply", async () => {
    await coupon({ code: "BUONO5" });
    const userId = await h.newUser();
    const orderId = await h.openOrder(userId);
    for (let i = 0; i < 10; i++) await h.services.checkout.applyCoupon(userId, orderId, `SBAGLIATO${i}`);
    expect(await h.services.checkout.applyCoupon(userId, orderId, "BUONO5")).toBe(false);
  });

  it("counts a use when the order is paid, and drops a code that stopped applying before payment", async () => {
    await coupon({ code: "UNAVOLTA", maxRedemptions: 5, maxPerCustomer: 1 });
    const userId = await h.newUser();
    const first = await h.openOrder(userId);
    expect(await h.services.checkout.applyCoupon(userId, first, "UNAVOLTA")).toBe(true);
    await h.services.payments.settleSetup((await h.payWith(userId, first, CARDS.succeeds)).setupId);
    expect((await h.orderRow(first)).status).toBe("payed");
    const [used] = await h.database.db.select().from(coupons).where(eq(coupons.code, "UNAVOLTA"));
    expect(used!.redemptions).toBe(1);
    expect(await h.database.db.select().from(couponRedemptions).where(eq(couponRedemptions.orderId, first))).toHaveLength(1);

    // Once per customer: on a second order it no longer applies.
    const second = await h.openOrder(userId, h.paperBook.sku);
    expect(await h.services.checkout.applyCoupon(userId, second, "UNAVOLTA")).toBe(false);

    // Applied, then expired before 'Completa l'acquisto': dropped, and the customer sees the new total.
    await coupon({ code: "BREVE", validUntil: afterStart(2 * HOUR) });
    const third = await h.openOrder(userId, h.paperBook.sku);
    expect(await h.services.checkout.applyCoupon(userId, third, "BREVE")).toBe(true);
    h.setClock(afterStart(3 * HOUR));
    expect(await h.services.payments.start(userId, third, h.details())).toEqual({ ok: false, reason: "coupon_changed" });
    expect(await h.orderRow(third)).toMatchObject({ status: "new", couponId: null, discountCents: 0 });
  });
});

describe("paying by card in the sandbox", () => {
  it("with a good card: one payment, the order paid, access granted, the details kept, a mail with the receipt", async () => {
    const userId = await h.newUser();
    const orderId = await h.openOrder(userId, h.paperBook.sku);
    const started = await h.services.payments.start(userId, orderId, h.details({ shipment: SHIPMENT, shipmentSave: true }));
    if (!started.ok) throw new Error(started.reason);
    expect((await h.orderRow(orderId)).status).toBe("waitforpayment");
    expect(await h.services.sandbox.confirmCard(started.setupId, CARDS.succeeds)).toEqual({ status: "succeeded" });
    expect(await h.services.payments.settleSetup(started.setupId)).toEqual({ state: "paid" });

    const order = await h.orderRow(orderId);
    expect(order).toMatchObject({ status: "payed", committedAt: h.now(), customerEmail: "maria.rossi@example.it" });
    const [payment] = await h.database.db.select().from(paymentsTable).where(eq(paymentsTable.orderId, orderId));
    expect(payment).toMatchObject({ amountCents: order.totalCents, cardBrand: "visa", cardLast4: "4242", status: "payed" });
    expect(payment!.paymentCode).toMatch(/^PX\d{6}-[0-9A-Z]{6}$/);
    expect(await h.database.db.select().from(entitlements).where(eq(entitlements.orderId, orderId))).toHaveLength(1);
    const [saved] = await h.database.db.select().from(savedCheckoutDetails).where(eq(savedCheckoutDetails.userId, userId));
    expect(saved!.shipment).toEqual(SHIPMENT);
    const [mail] = await h.database.db.select().from(mailOutbox).where(eq(mailOutbox.userId, userId));
    expect(mail!.subject).toBe(`Ordine confermato n° ${order.orderCode}`);
    expect(mail!.text).toContain(`/ricevuta/${order.orderCode}/${payment!.paymentCode}/`);

    // Checked again (the return page, the reconciler): nothing more happens.
    expect(await h.services.payments.check(userId, orderId)).toEqual({ state: "paid" });
    expect(await h.services.payments.reconcile()).toBe(0);
    expect(await h.paymentCount(orderId)).toBe(1);
    expect((await h.charges(orderId)).length).toBe(1);
    // The full card number is nowhere in the database.
    const everything = JSON.stringify(await h.database.db.select().from(sandboxGatewayObjects));
    expect(everything).not.toContain("4242424242424242");
  });

  it("with a declined card: no payment, the attempt failed with the provider's message, the order new again", async () => {
    const userId = await h.newUser();
    const orderId = await h.openOrder(userId);
    const { setupId, result } = await h.payWith(userId, orderId, CARDS.declined);
    expect(result).toEqual({ status: "succeeded" });
    expect(await h.services.payments.settleSetup(setupId)).toEqual({ state: "failed", errorMessage: SANDBOX_MESSAGES.declined });
    expect((await h.orderRow(orderId)).status).toBe("new");
    expect(await h.paymentCount(orderId)).toBe(0);
    expect(await h.database.db.select().from(entitlements).where(eq(entitlements.orderId, orderId))).toHaveLength(0);
    // A second try with a good card goes through, with new idempotency keys.
    const retry = await h.payWith(userId, orderId, CARDS.succeeds);
    expect(await h.services.payments.settleSetup(retry.setupId)).toEqual({ state: "paid" });
    expect(await h.paymentCount(orderId)).toBe(1);
  });

  it("with a card asking for 3-D Secure: approved, it pays; failed, the card step waits for another card", async () => {
    const userId = await h.newUser();
    const orderId = await h.openOrder(userId);
    const { setupId, result } = await h.payWith(userId, orderId, CARDS.authentication);
    expect(result).toEqual({ status: "requires_action" });
    expect(await h.services.payments.check(userId, orderId)).toEqual({ state: "requires_customer", errorMessage: null });
    expect(await h.services.sandbox.authenticate(setupId, false)).toEqual({
      status: "requires_payment_method",
      errorMessage: SANDBOX_MESSAGES.authenticationFailed,
    });
    expect(await h.services.payments.check(userId, orderId)).toEqual({
      state: "requires_customer",
      errorMessage: SANDBOX_MESSAGES.authenticationFailed,
    });
    expect(await h.services.payments.pendingSetup(userId, orderId)).toBe(setupId);
    expect(await h.services.sandbox.confirmCard(setupId, CARDS.authentication)).toEqual({ status: "requires_action" });
    expect(await h.services.sandbox.authenticate(setupId, true)).toEqual({ status: "succeeded" });
    expect(await h.services.sandbox.authenticate(setupId, true)).toEqual({ status: "not_pending" });
    expect(await h.services.payments.settleSetup(setupId)).toEqual({ state: "paid" });
    expect(await h.paymentCount(orderId)).toBe(1);
  });

  it("refuses a second start, another customer's order and a hub other than the card", async () => {
    const userId = await h.newUser();
    const orderId = await h.openOrder(userId);
    expect(await h.services.payments.start(userId, orderId, h.details({ paymentHub: "sepa" }))).toEqual({
      ok: false,
      reason: "not_card",
    });
    expect(await h.services.payments.start(await h.newUser(), orderId, h.details())).toEqual({ ok: false, reason: "not_found" });
    expect((await h.services.payments.start(userId, orderId, h.details())).ok).toBe(true);
    expect(await h.services.payments.start(userId, orderId, h.details())).toEqual({ ok: false, reason: "not_new" });
  });

  it("resets an attempt waiting for the card, and then the order can be paid", async () => {
    const userId = await h.newUser();
    const orderId = await h.openOrder(userId);
    const { setupId } = await h.payWith(userId, orderId, CARDS.authentication);
    expect(await h.services.payments.reset(await h.newUser(), orderId)).toEqual({ ok: false });
    expect(await h.services.payments.reset(userId, orderId)).toEqual({ ok: true });
    expect((await h.orderRow(orderId)).status).toBe("new");
    expect((await h.latestAttempt(orderId)).status).toBe("canceled");
    expect(await h.services.sandbox.authenticate(setupId, true)).toEqual({ status: "not_pending" });
    const retry = await h.payWith(userId, orderId, CARDS.succeeds);
    expect(await h.services.payments.settleSetup(retry.setupId)).toEqual({ state: "paid" });
    expect(await h.services.payments.reset(userId, orderId)).toEqual({ ok: false });
  });
});

describe("once and only once", () => {
  it("'Completa l'acquisto' 50 times at once: one attempt, one charge, one payment", async () => {
    const userId = await h.newUser();
    const orderId = await h.openOrder(userId);
    const instances = h.instances;
    const results = await Promise.all(
      Array.from({ length: 50 }, async (_, i) => {
        const instance = instances[i % instances.length]!;
        const started = await instance.payments.start(userId, orderId, h.details());
        if (!started.ok) return instance.payments.check(userId, orderId);
        await instance.sandbox.confirmCard(started.setupId, CARDS.succeeds);
        return instance.payments.settleSetup(started.setupId);
      }),
    );
    expect(results.filter((r) => r && "state" in r && r.state === "paid").length).toBeGreaterThanOrEqual(1);
    expect(await h.services.payments.check(userId, orderId)).toEqual({ state: "paid" });
    const [attempts] = await h.database.db
      .select({ n: count() })
      .from(paymentAttempts)
      .where(eq(paymentAttempts.orderId, orderId));
    expect(attempts!.n).toBe(1);
    expect((await h.charges(orderId)).length).toBe(1);
    expect(await h.paymentCount(orderId)).toBe(1);
  });

  it("settles an attempt checked by many at once (return page, reconcilers of two instances) once", async () => {
    const userId = await h.newUser();
    const orderId = await h.openOrder(userId);
    const { setupId } = await h.payWith(userId, orderId, CARDS.succeeds);
    const instances = h.instances;
    await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        i % 2 === 0
          ? instances[i % instances.length]!.payments.settleSetup(setupId)
          : instances[i % instances.length]!.payments.reconcile(),
      ),
    );
    expect(await h.services.payments.check(userId, orderId)).toEqual({ state: "paid" });
    expect((await h.charges(orderId)).length).toBe(1);
    expect(await h.paymentCount(orderId)).toBe(1);
    expect(await h.database.db.select().from(entitlements).where(eq(entitlements.orderId, orderId))).toHaveLength(1);
  });

  it("recovers a charge whose instance died after the gateway charged and before the database recorded it", async () => {
    const userId = await h.newUser();
    const orderId = await h.openOrder(userId);
    const { setupId } = await h.payWith(userId, orderId, CARDS.succeeds);
    // An instance whose database writes stop right after the charge is confirmed: its process dies.
    const dying = h.servicesOver(h.database.db);
    const gateway = dying.sandbox.gateway;
    const crash = new Error("the process died");
    const confirm = gateway.confirmCharge.bind(gateway);
    gateway.confirmCharge = async (...args) => {
      await confirm(...args);
      throw crash;
    };
    expect(await dying.payments.settleSetup(setupId)).toEqual({ state: "pending" });
    expect((await h.charges(orderId)).length).toBe(1);
    expect(await h.paymentCount(orderId)).toBe(0);
    expect((await h.orderRow(orderId)).status).toBe("waitforpayment");

    // Within the lease (a minute) nobody takes it over; once it ends, at its very instant, the
    // reconciler finishes it with the same keys.
    h.advance(59_999);
    expect(await h.services.payments.reconcile()).toBe(0);
    h.advance(1);
    expect(await h.services.payments.reconcile()).toBe(1);
    expect((await h.orderRow(orderId)).status).toBe("payed");
    expect((await h.charges(orderId)).length).toBe(1);
    expect(await h.paymentCount(orderId)).toBe(1);
  });

  it("one attempt that cannot be settled does not hold up the others behind it", async () => {
    const userId = await h.newUser();
    const orderId = await h.openOrder(userId);
    await h.payWith(userId, orderId, CARDS.succeeds);
    h.advance(1_000);
    const otherUser = await h.newUser();
    const otherOrder = await h.openOrder(otherUser);
    await h.payWith(otherUser, otherOrder, CARDS.succeeds);
    // The oldest attempt, the one the reconciler reads first, cannot be recorded (its confirmation
    // mail cannot be written: a full disk, say); the other one can.
    const instance = h.servicesOver(h.database.db);
    const owe = instance.mail.owe.bind(instance.mail);
    instance.mail.owe = async (tx, message) => {
      if (message.userId === userId) throw new Error("no space left on device");
      return owe(tx, message);
    };
    expect(await instance.payments.reconcile()).toBe(1);
    expect((await h.orderRow(otherOrder)).status).toBe("payed");
    expect((await h.orderRow(orderId)).status).toBe("waitforpayment");
    // Once the charge's lease runs out, with the disk writable again, the first one is paid too.
    h.advance(60_000);
    expect(await h.services.payments.reconcile()).toBe(1);
    expect((await h.orderRow(orderId)).status).toBe("payed");
    expect((await h.charges(orderId)).length).toBe(1);
  });
});
