// A card step the customer leaves (a 3-D Secure page closed without a decision, a declined card
// never replaced) must not hold a capped discount code's use, nor the order, for ever: after
// ABANDONED_AFTER_MS the reconciler cancels it at the gateway and closes it, the use goes back to
// the code and the order is new again. A card set up meanwhile is paid, never undone.
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { CARDS, paymentHarness } from "#tests/support/payment-harness.ts";
import { couponRedemptions, coupons, paymentAttempts } from "#server/db/schema/index.ts";
import { ABANDONED_AFTER_MS } from "./service.ts";

const h = paymentHarness();

/** A code with one use in all, applied to a new order of a new customer. */
async function orderWithTheLastUse(code: string) {
  await h.database.db.insert(coupons).values({ code, description: "Prova", kind: "percent", percentOff: 10, maxRedemptions: 1 });
  const userId = await h.newUser();
  const orderId = await h.openOrder(userId);
  expect(await h.services.checkout.applyCoupon(userId, orderId, code)).toBe(true);
  return { userId, orderId };
}

async function couponUses(code: string) {
  const [row] = await h.database.db.select({ redemptions: coupons.redemptions }).from(coupons).where(eq(coupons.code, code));
  return row!.redemptions;
}

/** Another customer tries to pay with the code: whether the code still applies to their order. */
async function anotherCustomerGetsIt(code: string) {
  const userId = await h.newUser();
  const orderId = await h.openOrder(userId);
  return h.services.checkout.applyCoupon(userId, orderId, code);
}

describe("an attempt the customer left at its card step", () => {
  it.each([
    ["a 3-D Secure page closed without a decision", CARDS.authentication, "ABBANDONO3DS"],
    ["a declined card never replaced by another", "4000 0000 0000 0002", "ABBANDONOCARTA"],
  ])("%s: closed after the stated time, the code's use given back, the order payable again", async (_case, card, code) => {
    const { userId, orderId } = await orderWithTheLastUse(code);
    const { setupId } = await h.payWith(userId, orderId, card);
    expect(await couponUses(code)).toBe(1);
    expect(await anotherCustomerGetsIt(code)).toBe(false);

    // Within the stated time the customer may still finish: nothing changes.
    h.advance(ABANDONED_AFTER_MS - 60_000);
    await h.services.payments.reconcile();
    expect((await h.latestAttempt(orderId)).status).toBe("awaiting_customer");
    expect(await h.orderRow(orderId)).toMatchObject({ status: "waitforpayment" });

    h.advance(60_000);
    await h.services.payments.reconcile();
    expect((await h.latestAttempt(orderId)).status).toBe("canceled");
    expect(await h.orderRow(orderId)).toMatchObject({ status: "new", couponCode: code });
    // The card step can no longer succeed at the gateway.
    expect(await h.services.sandbox.authenticate(setupId, true)).toEqual({ status: "not_pending" });
    expect(await h.services.sandbox.confirmCard(setupId, CARDS.succeeds)).toEqual({ status: "not_pending" });
    expect(await h.succeededCharges(orderId)).toEqual([]);
    // The use is back: the code applies to someone else's order.
    expect(await couponUses(code)).toBe(0);
    expect(await h.database.db.select().from(couponRedemptions).where(eq(couponRedemptions.orderId, orderId))).toEqual([]);
    expect(await anotherCustomerGetsIt(code)).toBe(true);

    // The customer comes back: the same order pays, once.
    h.advance(60_000);
    const again = await h.payWith(userId, orderId, CARDS.succeeds);
    expect(await h.services.payments.settleSetup(again.setupId)).toEqual({ state: "paid" });
    expect(await h.succeededCharges(orderId)).toHaveLength(1);
  });

  it("never undoes a payment: a card set up on the gateway though nobody checked is paid, however late", async () => {
    const userId = await h.newUser();
    const orderId = await h.openOrder(userId);
    const { setupId } = await h.payWith(userId, orderId, CARDS.authentication);
    // The customer authenticated, then closed the page before it came back.
    await h.services.sandbox.authenticate(setupId, true);
    h.advance(ABANDONED_AFTER_MS * 3);
    await h.services.payments.reconcile();
    expect(await h.orderRow(orderId)).toMatchObject({ status: "payed" });
    expect(await h.succeededCharges(orderId)).toHaveLength(1);
  });

  it("never closes an attempt the customer finishes while it is being closed: the card set up wins", async () => {
    const userId = await h.newUser();
    const orderId = await h.openOrder(userId);
    const { setupId } = await h.payWith(userId, orderId, CARDS.authentication);
    h.advance(ABANDONED_AFTER_MS);
    // The customer presses 'Autorizza' the moment the reconciler cancels the card step.
    const instance = h.servicesOver(h.database.db);
    const cancelSetup = instance.sandbox.gateway.cancelSetup.bind(instance.sandbox.gateway);
    instance.sandbox.gateway.cancelSetup = async (...args) => {
      await instance.sandbox.authenticate(setupId, true);
      return cancelSetup(...args);
    };
    await instance.payments.reconcile();
    expect(await h.orderRow(orderId)).toMatchObject({ status: "payed" });
    expect(await h.succeededCharges(orderId)).toHaveLength(1);
    const attempts = await h.database.db.select().from(paymentAttempts).where(eq(paymentAttempts.orderId, orderId));
    expect(attempts.map((a) => a.status)).toEqual(["succeeded"]);
  });
});
