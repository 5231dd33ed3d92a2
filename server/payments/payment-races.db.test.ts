// What must hold when the customer's own requests race each other (a probe of the running portal
// found each of these): 'Annulla il pagamento' against the card step finishing, a discount code's
// caps against payments starting at once, 'Rimuovi' or 'Applica' against 'Completa l'acquisto',
// the card payments of the hour against concurrent submits, EDU bought after EDU began.
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { SHIPMENT } from "#tests/support/checkout.ts";
import { CARDS, paymentHarness } from "#tests/support/payment-harness.ts";
import {
  couponRedemptions,
  coupons,
  entitlements,
  jobs,
  orders,
  paymentAttempts,
  paymentRefunds,
  payments,
  products,
  rateLimits,
} from "#server/db/schema/index.ts";
import { grantEntitlement } from "#server/library/entitlements.ts";
import { EDU_PRODUCT_CODE } from "#shared/library-constants.ts";

const h = paymentHarness();

/** Resolves once `signal()` is called: one side of a race waits for the other at a chosen point. */
function gate() {
  let signal!: () => void;
  const reached = new Promise<void>((resolve) => (signal = resolve));
  return { reached, signal };
}

async function paymentsOf(orderId: string) {
  return h.database.db.select().from(payments).where(eq(payments.orderId, orderId));
}

async function couponNamed(code: string) {
  const [row] = await h.database.db.select().from(coupons).where(eq(coupons.code, code));
  return row!;
}

async function newCoupon(values: Partial<typeof coupons.$inferInsert> & { code: string }) {
  await h.database.db.insert(coupons).values({ description: "Prova", kind: "percent", percentOff: 10, ...values });
}

describe("'Annulla il pagamento' against the card step finishing", () => {
  it("never closes an attempt whose charge has started: the order ends paid once, with its access", async () => {
    const userId = await h.newUser();
    const orderId = await h.openOrder(userId);
    const { setupId } = await h.payWith(userId, orderId, CARDS.authentication);
    // The sandbox's 3-D Secure page approved; at that very moment the customer presses 'Annulla'.
    await h.services.sandbox.authenticate(setupId, true);

    // The reset reads the attempt waiting for the card and calls the gateway; meanwhile the
    // settlement claims the attempt and charges; the reset then tries to close it.
    const instance = h.servicesOver(h.database.db);
    const gateway = instance.sandbox.gateway;
    const charging = gate();
    const resetDone = gate();
    const cancelSetup = gateway.cancelSetup.bind(gateway);
    gateway.cancelSetup = async (...args) => {
      await charging.reached;
      return cancelSetup(...args);
    };
    const confirmCharge = gateway.confirmCharge.bind(gateway);
    gateway.confirmCharge = async (...args) => {
      charging.signal();
      await resetDone.reached;
      return confirmCharge(...args);
    };
    const reset = instance.payments.reset(userId, orderId).finally(resetDone.signal);
    const settled = instance.payments.settleSetup(setupId);

    expect(await reset).toEqual({ ok: false });
    expect(await settled).toEqual({ state: "paid" });
    expect(await h.orderRow(orderId)).toMatchObject({ status: "payed" });
    expect(await h.database.db.select().from(entitlements).where(eq(entitlements.orderId, orderId))).toHaveLength(1);
    expect(await h.succeededCharges(orderId)).toHaveLength(1);
    // Paying again is not possible: the order is paid.
    expect(await h.services.payments.start(userId, orderId, h.details())).toEqual({ ok: false, reason: "not_new" });
  });

  it("raced over and over, on every instance: money taken means the order paid, and a second payment never charges twice", async () => {
    for (let round = 0; round < 12; round++) {
      const userId = await h.newUser();
      const orderId = await h.openOrder(userId);
      const { setupId } = await h.payWith(userId, orderId, CARDS.authentication);
      const [a, b] = [h.instances[round % h.instances.length]!, h.instances[(round + 1) % h.instances.length]!];
      await Promise.all([
        a.sandbox.authenticate(setupId, true).then(() => a.payments.settleSetup(setupId)),
        b.payments.reset(userId, orderId),
      ]);
      await h.services.payments.reconcile();

      let order = await h.orderRow(orderId);
      if (order.status !== "payed") {
        // The reset won: nothing was charged, and the customer pays again, once.
        expect(order.status, `round ${round}`).toBe("new");
        expect(await h.succeededCharges(orderId), `round ${round}`).toHaveLength(0);
        const retry = await h.payWith(userId, orderId, CARDS.succeeds);
        expect(await h.services.payments.settleSetup(retry.setupId)).toEqual({ state: "paid" });
        order = await h.orderRow(orderId);
      }
      expect(order.status, `round ${round}`).toBe("payed");
      expect(await h.succeededCharges(orderId), `round ${round}`).toHaveLength(1);
      const paid = await paymentsOf(orderId);
      expect(
        paid.map((p) => [p.status, p.amountCents]),
        `round ${round}`,
      ).toEqual([["payed", order.totalCents]]);
    }
  });

  it("records and refunds a charge that succeeds for an order no longer waiting for it, and grants nothing", async () => {
    const userId = await h.newUser();
    const orderId = await h.openOrder(userId);
    const { setupId } = await h.payWith(userId, orderId, CARDS.succeeds);
    const instance = h.servicesOver(h.database.db);
    const confirmCharge = instance.sandbox.gateway.confirmCharge.bind(instance.sandbox.gateway);
    instance.sandbox.gateway.confirmCharge = async (...args) => {
      // An operator closes the order while its charge is on its way.
      await h.database.db.update(orders).set({ status: "cancelled" }).where(eq(orders.id, orderId));
      return confirmCharge(...args);
    };
    await instance.payments.settleSetup(setupId);
    expect((await h.orderRow(orderId)).status).toBe("cancelled");
    expect(await h.database.db.select().from(entitlements).where(eq(entitlements.orderId, orderId))).toHaveLength(0);
    expect((await paymentsOf(orderId)).map((p) => p.status)).toEqual(["payed"]);

    // The refund is a job of the transaction that recorded the payment: whoever runs it, once.
    await Promise.all(h.instances.map((i) => i.runner.runDue()));
    expect((await h.services.runner.runDue()).refunds).toBeUndefined();
    const [refunded] = await paymentsOf(orderId);
    expect(refunded).toMatchObject({ status: "refunded", refundedAt: h.now() });
    const [refund] = await h.database.db.select().from(paymentRefunds).where(eq(paymentRefunds.paymentId, refunded!.id));
    expect(refund).toMatchObject({
      scope: "payment",
      reason: "order_closed",
      state: "succeeded",
      amountCents: refunded!.amountCents,
    });
    expect(refund!.gatewayRefundId).toMatch(/^sbx_re_/);
    const [charge] = await h.succeededCharges(orderId);
    expect(charge!.refundedCents).toBe(refunded!.amountCents);
    const [job] = await h.database.db.select().from(jobs).where(eq(jobs.queue, "refunds"));
    expect(job).toMatchObject({ status: "done", attempts: 1 });
  });
});

describe("a discount code's caps, counted when the payment starts", () => {
  it("a code with one use left, paid for by two customers at once: one pays with it, the other is told", async () => {
    await newCoupon({ code: "ULTIMO1", maxRedemptions: 1, maxPerCustomer: 1 });
    const buyers = await Promise.all([h.newUser(), h.newUser()]);
    const orderIds = await Promise.all(buyers.map((userId) => h.openOrder(userId)));
    for (const [i, userId] of buyers.entries()) {
      expect(await h.services.checkout.applyCoupon(userId, orderIds[i]!, "ULTIMO1")).toBe(true);
    }
    const started = await Promise.all(
      buyers.map((userId, i) => h.instances[i % h.instances.length]!.payments.start(userId, orderIds[i]!, h.details())),
    );
    expect(started.filter((r) => r.ok)).toHaveLength(1);
    expect(started.filter((r) => !r.ok)).toEqual([{ ok: false, reason: "coupon_changed" }]);
    const loser = orderIds[started.findIndex((r) => !r.ok)]!;
    expect(await h.orderRow(loser)).toMatchObject({
      status: "new",
      couponId: null,
      discountCents: 0,
      totalCents: h.ebook.priceCents,
    });
    expect((await couponNamed("ULTIMO1")).redemptions).toBe(1);
    expect(await h.database.db.select().from(couponRedemptions).where(eq(couponRedemptions.orderId, loser))).toHaveLength(0);
  });

  it("once per customer: two orders of one customer started at once take one use", async () => {
    await newCoupon({ code: "UNOACAPO", maxPerCustomer: 1 });
    const userId = await h.newUser();
    const orderIds = [await h.openOrder(userId), await h.openOrder(userId, h.paperBook.sku)];
    for (const orderId of orderIds) expect(await h.services.checkout.applyCoupon(userId, orderId, "UNOACAPO")).toBe(true);
    const started = await Promise.all(
      orderIds.map((orderId, i) =>
        h.instances[i % h.instances.length]!.payments.start(userId, orderId, h.details(i === 1 ? { shipment: SHIPMENT } : {})),
      ),
    );
    expect(started.map((r) => r.ok).sort()).toEqual([false, true]);
    expect((await couponNamed("UNOACAPO")).redemptions).toBe(1);
    const uses = await h.database.db.select().from(couponRedemptions).where(eq(couponRedemptions.userId, userId));
    expect(uses).toHaveLength(1);
  });

  it("gives the use back when the payment fails or is given up, so the code can be used again", async () => {
    await newCoupon({ code: "RIPROVA", maxRedemptions: 1 });
    const userId = await h.newUser();
    const orderId = await h.openOrder(userId);
    expect(await h.services.checkout.applyCoupon(userId, orderId, "RIPROVA")).toBe(true);
    const declined = await h.payWith(userId, orderId, CARDS.declined);
    expect((await couponNamed("RIPROVA")).redemptions).toBe(1);
    expect((await h.services.payments.settleSetup(declined.setupId)).state).toBe("failed");
    expect((await couponNamed("RIPROVA")).redemptions).toBe(0);

    await h.payWith(userId, orderId, CARDS.authentication);
    expect((await couponNamed("RIPROVA")).redemptions).toBe(1);
    expect(await h.services.payments.reset(userId, orderId)).toEqual({ ok: true });
    expect((await couponNamed("RIPROVA")).redemptions).toBe(0);

    const paid = await h.payWith(userId, orderId, CARDS.succeeds);
    expect(await h.services.payments.settleSetup(paid.setupId)).toEqual({ state: "paid" });
    expect(await h.orderRow(orderId)).toMatchObject({ status: "payed", couponCode: "RIPROVA" });
    expect((await couponNamed("RIPROVA")).redemptions).toBe(1);
    expect(await h.database.db.select().from(couponRedemptions).where(eq(couponRedemptions.orderId, orderId))).toHaveLength(1);
  });
});

describe("'Rimuovi' and 'Applica' against 'Completa l'acquisto'", () => {
  it("a code removed after the payment read it: the payment does not start at the discounted price", async () => {
    await newCoupon({ code: "TOLTO10" });
    const userId = await h.newUser();
    const orderId = await h.openOrder(userId);
    expect(await h.services.checkout.applyCoupon(userId, orderId, "TOLTO10")).toBe(true);
    const instance = h.servicesOver(h.database.db);
    const check = instance.rateLimits.checkCardPayment.bind(instance.rateLimits);
    instance.rateLimits.checkCardPayment = async (id) => {
      // 'Rimuovi', posted while 'Completa l'acquisto' is on its way.
      await instance.checkout.removeCoupon(userId, orderId);
      return check(id);
    };
    expect(await instance.payments.start(userId, orderId, h.details())).toEqual({ ok: false, reason: "coupon_changed" });
    expect(await h.orderRow(orderId)).toMatchObject({ status: "new", couponId: null, totalCents: h.ebook.priceCents });
    expect((await couponNamed("TOLTO10")).redemptions).toBe(0);
  });

  it("raced over and over: an order is paid at the price of the code it holds, and its use counted exactly then", async () => {
    await newCoupon({ code: "GARA10", maxPerCustomer: 100 });
    const discounted = h.ebook.priceCents - Math.round(h.ebook.priceCents / 10);
    for (let round = 0; round < 12; round++) {
      const userId = await h.newUser();
      const orderId = await h.openOrder(userId);
      const applyFirst = round % 2 === 0;
      if (!applyFirst) expect(await h.services.checkout.applyCoupon(userId, orderId, "GARA10")).toBe(true);
      const [a, b] = [h.instances[round % h.instances.length]!, h.instances[(round + 1) % h.instances.length]!];
      await Promise.all([
        applyFirst ? a.checkout.applyCoupon(userId, orderId, "GARA10") : a.checkout.removeCoupon(userId, orderId),
        b.payments.start(userId, orderId, h.details()),
      ]);
      const order = await h.orderRow(orderId);
      const uses = await h.database.db.select().from(couponRedemptions).where(eq(couponRedemptions.orderId, orderId));
      if (order.status === "waitforpayment") {
        const attempt = await h.latestAttempt(orderId);
        if (order.couponId) {
          expect([order.totalCents, attempt.amountCents, uses.length], `round ${round}`).toEqual([discounted, discounted, 1]);
        } else {
          expect([order.totalCents, attempt.amountCents, uses.length], `round ${round}`).toEqual([
            h.ebook.priceCents,
            h.ebook.priceCents,
            0,
          ]);
        }
      } else {
        expect(order.status, `round ${round}`).toBe("new");
        expect(uses, `round ${round}`).toHaveLength(0);
      }
    }
  });
});

describe("the card payments of the hour", () => {
  it("40 submits of one order at once spend one point; the customer's next purchases go through", async () => {
    const userId = await h.newUser();
    const orderId = await h.openOrder(userId);
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) => h.instances[i % h.instances.length]!.payments.start(userId, orderId, h.details())),
    );
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    expect(results.filter((r) => !r.ok && r.reason === "rate_limited")).toHaveLength(0);
    const [row] = await h.database.db
      .select({ points: rateLimits.points })
      .from(rateLimits)
      .where(eq(rateLimits.key, `cardPaymentUser:${userId}`));
    expect(row!.points).toBe(1);
    // Given up and tried again nine more times this hour: every one starts; the eleventh does not.
    for (let i = 0; i < 9; i++) {
      expect(await h.services.payments.reset(userId, orderId)).toEqual({ ok: true });
      expect((await h.services.payments.start(userId, orderId, h.details())).ok, `payment ${i + 2}`).toBe(true);
    }
    expect(await h.services.payments.reset(userId, orderId)).toEqual({ ok: true });
    const refused = await h.services.payments.start(userId, orderId, h.details());
    expect(refused).toEqual({ ok: false, reason: "rate_limited", retryAfterSeconds: expect.any(Number) });
    // The wait is what is left of the hour that began with the first payment.
    expect((refused as { retryAfterSeconds: number }).retryAfterSeconds).toBeGreaterThan(3000);
  });
});

describe("EDU bought after EDU began", () => {
  it("refuses to pay an EDU order opened before an eBook+EDU code started EDU", async () => {
    const userId = await h.newUser();
    const orderId = await h.openOrder(userId, EDU_PRODUCT_CODE);
    const [edu] = await h.database.db.select({ id: products.id }).from(products).where(eq(products.code, EDU_PRODUCT_CODE));
    await h.database.db.transaction((tx) =>
      grantEntitlement(
        tx,
        {
          userId,
          productId: edu!.id,
          source: "activation_code",
          startsAt: h.now(),
          expiresAt: new Date(h.now().getTime() + 180 * 86_400_000),
          orderId: null,
        },
        h.now(),
      ),
    );
    expect(await h.services.payments.start(userId, orderId, h.details())).toEqual({ ok: false, reason: "edu_active" });
    expect(await h.orderRow(orderId)).toMatchObject({ status: "new" });
    expect(await h.database.db.select().from(paymentAttempts).where(eq(paymentAttempts.orderId, orderId))).toHaveLength(0);
  });
});

describe("ids of the wrong shape", () => {
  it("match nothing and never reach SQL: NUL characters, overlong and odd ids", async () => {
    const userId = await h.newUser();
    const orderId = await h.openOrder(userId);
    for (const bad of ["\u0000", "pi_\u0000x", "x".repeat(300), "seti_ü"]) {
      expect(await h.services.payments.setupState(userId, orderId, bad)).toBeNull();
      expect(await h.services.payments.settleSetup(bad)).toEqual({ state: "canceled" });
      expect(await h.services.payments.settleCharge(bad)).toBeNull();
      expect(await h.services.payments.orderOfSetup(userId, bad)).toBeNull();
      expect(await h.services.checkout.preview(userId, bad)).toBeNull();
      expect(await h.services.checkout.open(userId, bad)).toEqual({ ok: false, reason: "unknown_product" });
    }
    expect(await h.database.db.select().from(orders).where(eq(orders.userId, userId))).toHaveLength(1);
  });
});
