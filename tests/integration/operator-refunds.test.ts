// orders:refund through each gateway: the sandbox and the local stand-in of Stripe's API (the
// real `stripe` SDK does the HTTP). Whole orders, a line, an EDU month and an amount; never more
// than a payment took, however many operators refund it at once; a refund the bank holds is
// recorded pending and completed when the gateway says so (Stripe's refund events, or the sweep
// that reads pending refunds again), a failed one is reported to the operators; the access each
// kind of refund ends, the discount code's use given back, EDU stacked after refunded access moved
// back; and what the customer sees on the receipt, 'I miei prodotti' and the subscription's page.
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import MyProductsPage, { loader as myProductsLoaderBare } from "#app/routes/my-products.tsx";
import ReceiptPage from "#app/routes/receipt.tsx";
import SubscriptionPage from "#app/routes/subscription.tsx";
import {
  couponRedemptions,
  coupons,
  entitlements,
  orders,
  paymentRefunds,
  payments,
  productTypes,
  products,
  sandboxGatewayObjects,
  subscriptionPeriods,
  subscriptions,
} from "#server/db/schema/index.ts";
import { accessTo, eduActiveUntil } from "#server/library/entitlements.ts";
import { OperatorError } from "#server/operators/context.ts";
import { createCoupon } from "#server/operators/coupons.ts";
import { grantAccess } from "#server/operators/customers.ts";
import { listRefunds, refundOrder, showOrder } from "#server/operators/orders.ts";
import { REFUND_CHECK_INTERVAL_MS, requestRefund } from "#server/payments/refunds.ts";
import { formatLongDate } from "#shared/format.ts";
import { formatEuro } from "#shared/euro.ts";
import { EDU_PRODUCT_CODE } from "#shared/library-constants.ts";
import { SUBSCRIPTION_PATH } from "#shared/links.ts";
import { periodStart } from "#shared/subscription.ts";
import { SUBSCRIPTION_MESSAGES } from "#shared/subscription-messages.ts";
import { startFakeStripe, type FakeStripe } from "#tests/support/fake-stripe.ts";
import { afterStart, DAY, START } from "#tests/support/clock.ts";
import { operatorHarness } from "#tests/support/operators.ts";
import { decode, render } from "#tests/support/render-page.ts";
import { loaderArgs } from "#tests/support/router-context.ts";
import { behindSignIn } from "#tests/support/customer-pages.ts";

// The customer's pages run behind the customer layout's sign-in.
const myProductsLoader = behindSignIn(myProductsLoaderBare);

const EBOOK = "EB-9788828813217";

type Harness = ReturnType<typeof operatorHarness>;

/** What a test asks of the gateway, whichever it is. */
type Gateway = {
  /** The refunds the gateway made of a charge, oldest first. */
  refunds(chargeId: string): Promise<{ id: string; amountCents: number; status: string }[]>;
  /** The bank holds the charge's next refunds pending (false: they succeed at once again). */
  hold(chargeId: string, hold: boolean): Promise<void>;
  /** The bank ends a held refund, and the portal hears of it as it does from this gateway. */
  settle(gatewayRefundId: string, outcome: "succeeded" | "failed"): Promise<void>;
};

function refundTests(h: Harness, gateway: () => Gateway) {
  const paymentsOf = (orderId: string) => h.db.select().from(payments).where(eq(payments.orderId, orderId));
  const refundsOf = (paymentId: string) =>
    h.db.select().from(paymentRefunds).where(eq(paymentRefunds.paymentId, paymentId)).orderBy(paymentRefunds.requestedAt);
  const statusOf = async (orderId: string) => (await h.db.select().from(orders).where(eq(orders.id, orderId)))[0]!.status;
  const productOf = async (sku: string) => (await h.db.select().from(products).where(eq(products.sku, sku)))[0]!;
  const receiptText = async (userId: string, orderCode: string, paymentCode?: string) => {
    const receipt = await h.services.purchases.receipt(userId, orderCode, paymentCode);
    return decode(await render(ReceiptPage, { receipt }, `/ricevuta/${orderCode}/`));
  };
  const myProductsText = async (userId: string, tab: "attivi" | "inattivi") => {
    const { cookie } = await h.session(userId);
    const url = `/my-products/?tab=${tab}`;
    const args = loaderArgs(h.services, url);
    const data = await myProductsLoader({ ...args, request: new Request(args.request.url, { headers: { cookie } }) });
    return { data, text: decode(await render(MyProductsPage, data, url)) };
  };
  const subscriptionText = async (userId: string) => {
    const subscription = await h.services.subscriptions.ofCustomer(userId);
    return {
      subscription: subscription!,
      text: decode(await render(SubscriptionPage, { subscription, confirmingCancel: false, sandbox: true }, SUBSCRIPTION_PATH)),
    };
  };
  const courseSku = async () =>
    (
      await h.db
        .select({ sku: products.sku })
        .from(products)
        .innerJoin(productTypes, eq(productTypes.id, products.productTypeId))
        .where(eq(productTypes.code, "corso"))
        .orderBy(products.sku)
        .limit(1)
    )[0]!.sku;

  it("gives a whole eBook order back once, ends its access, and the receipt and 'I miei prodotti' say so", async () => {
    const customer = await h.customer();
    const order = await h.paidOrder(customer.id, EBOOK);
    const [payment] = await paymentsOf(order.id);
    const productId = (await productOf(EBOOK)).id;

    h.advance(2 * DAY);
    const at = afterStart(2 * DAY);
    const result = await refundOrder(h.op, order.orderCode);
    expect(result).toMatchObject({
      orderCode: order.orderCode,
      email: customer.email,
      alreadyRefunded: false,
      orderRefunded: true,
      grantsEnded: 1,
      subscriptionEnded: false,
      refunds: [{ paymentCode: payment!.paymentCode, amountCents: order.totalCents, scope: "payment", state: "succeeded" }],
    });
    expect(await gateway().refunds(payment!.chargeId)).toEqual([
      expect.objectContaining({ amountCents: order.totalCents, status: "succeeded" }),
    ]);
    expect(await statusOf(order.id)).toBe("refunded");
    expect((await paymentsOf(order.id))[0]).toMatchObject({ status: "refunded", refundedAt: at });
    expect(await refundsOf(payment!.id)).toEqual([
      expect.objectContaining({
        scope: "payment",
        reason: "operator",
        state: "succeeded",
        amountCents: order.totalCents,
        gatewayRefundId: result.refunds[0]!.gatewayRefundId,
        requestedBy: "operator:test",
        requestedAt: at,
        completedAt: at,
      }),
    ]);
    expect(await accessTo(h.db, customer.id, productId, at)).toMatchObject({ allowed: false, expiresAt: at });

    // Again: nothing more goes back.
    expect(await refundOrder(h.op, order.orderCode)).toMatchObject({ alreadyRefunded: true, grantsEnded: 0, refunds: [] });
    expect(await gateway().refunds(payment!.chargeId)).toHaveLength(1);
    expect(await h.audited("order_refunded", customer.id)).toHaveLength(2);
    const shown = await showOrder(h.op, order.orderCode);
    expect(shown.payments[0]).toMatchObject({ status: "refunded", refundedAt: at, refundedCents: order.totalCents });
    expect(shown.refunds).toEqual([
      expect.objectContaining({ state: "succeeded", amountCents: order.totalCents, requestedAt: at }),
    ]);

    // What the customer sees: the receipt, and the card under 'Inattivi'.
    const refunded = `Rimborsato ${formatEuro(order.totalCents)} il 25 novembre 2026`;
    const receipt = await receiptText(customer.id, order.orderCode);
    expect(receipt).toContain("Stato dell'ordine Rimborsato");
    expect(receipt).toContain(refunded);
    expect(receipt).toMatch(new RegExp(`Totale pagato 0,00\\s€ Totale rimborsato ${formatEuro(order.totalCents)}`));
    const { data, text } = await myProductsText(customer.id, "inattivi");
    expect(data.cards.map((c) => [c.orderCode, c.statusLabel])).toEqual([[order.orderCode, "Rimborsato"]]);
    expect(text).toContain(refunded);
  });

  it("an amount, then the rest: the payment keeps what is left and its access, until the order goes back whole", async () => {
    const customer = await h.customer();
    const order = await h.paidOrder(customer.id, EBOOK);
    const [payment] = await paymentsOf(order.id);
    h.advance(DAY);

    const first = await refundOrder(h.op, order.orderCode, { kind: "amount", amountCents: 250, paymentCode: null });
    expect(first).toMatchObject({
      orderRefunded: false,
      grantsEnded: 0,
      refunds: [{ scope: "amount", amountCents: 250, state: "succeeded" }],
    });
    expect(await statusOf(order.id)).toBe("payed");
    expect((await paymentsOf(order.id))[0]!.status).toBe("payed");
    expect(await accessTo(h.db, customer.id, (await productOf(EBOOK)).id, h.services.clock())).toMatchObject({ allowed: true });
    const receipt = await receiptText(customer.id, order.orderCode, payment!.paymentCode);
    expect(receipt).toContain(`Rimborsato ${formatEuro(250)} il 24 novembre 2026`);
    const { text } = await myProductsText(customer.id, "attivi");
    expect(text).toContain(`Rimborsato ${formatEuro(250)} il 24 novembre 2026`);

    // More than is left is refused, and changes nothing.
    const left = order.totalCents - 250;
    await expect(
      refundOrder(h.op, order.orderCode, { kind: "amount", amountCents: left + 1, paymentCode: null }),
    ).rejects.toThrow(new OperatorError(`Payment ${payment!.paymentCode} has ${formatEuro(left)} left to refund`));
    expect(await refundsOf(payment!.id)).toHaveLength(1);

    const rest = await refundOrder(h.op, order.orderCode);
    expect(rest).toMatchObject({ orderRefunded: true, grantsEnded: 1, refunds: [{ scope: "payment", amountCents: left }] });
    expect((await gateway().refunds(payment!.chargeId)).map((r) => r.amountCents)).toEqual([250, left]);
    expect((await paymentsOf(order.id))[0]!.status).toBe("refunded");
    expect(await receiptText(customer.id, order.orderCode)).toMatch(
      new RegExp(`Totale pagato 0,00\\s€ Totale rimborsato ${formatEuro(order.totalCents)}`),
    );
  });

  it("two operators refunding a payment's last euros at once make one refund", async () => {
    const customer = await h.customer();
    const order = await h.paidOrder(customer.id, EBOOK);
    const [payment] = await paymentsOf(order.id);
    await refundOrder(h.op, order.orderCode, { kind: "amount", amountCents: 300, paymentCode: null });
    const left = order.totalCents - 300;
    const both = await Promise.allSettled(
      [0, 1].map(() => refundOrder(h.op, order.orderCode, { kind: "amount", amountCents: left, paymentCode: null })),
    );
    expect(both.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    const refused = both.find((r) => r.status === "rejected");
    expect(refused?.reason).toEqual(new OperatorError(`Payment ${payment!.paymentCode} has 0,00\u00a0€ left to refund`));
    expect((await gateway().refunds(payment!.chargeId)).map((r) => r.amountCents)).toEqual([300, left]);
    expect((await refundsOf(payment!.id)).map((r) => r.amountCents)).toEqual([300, left]);
  });

  it("a line: its share goes back and its access ends; the last line makes the order refunded", async () => {
    const customer = await h.customer();
    const course = await courseSku();
    const order = await h.paidOrder(customer.id, EBOOK, {}, { extraLines: [course] });
    const [payment] = await paymentsOf(order.id);
    const [ebook, courseProduct] = [await productOf(EBOOK), await productOf(course)];
    expect(order.totalCents).toBe(ebook.priceCents + courseProduct.priceCents);
    h.advance(DAY);
    const at = h.services.clock();

    const result = await refundOrder(h.op, order.orderCode, { kind: "line", product: course });
    expect(result).toMatchObject({
      orderRefunded: false,
      grantsEnded: 1,
      refunds: [{ scope: "line", amountCents: courseProduct.priceCents, state: "succeeded" }],
    });
    const [refund] = await refundsOf(payment!.id);
    expect(refund!.parts).toEqual([
      { orderItemId: refund!.orderItemId, cents: courseProduct.priceCents, vatRateBps: courseProduct.vatRateBps },
    ]);
    expect(await accessTo(h.db, customer.id, courseProduct.id, at)).toMatchObject({ allowed: false });
    expect(await accessTo(h.db, customer.id, ebook.id, at)).toMatchObject({ allowed: true });
    expect(await statusOf(order.id)).toBe("payed");
    // The same line again: nothing of it is left.
    await expect(refundOrder(h.op, order.orderCode, { kind: "line", product: course })).rejects.toThrow(
      `That line of ${order.orderCode} has 0,00\u00a0€ left to refund`,
    );

    const last = await refundOrder(h.op, order.orderCode, { kind: "line", product: EBOOK });
    expect(last).toMatchObject({ orderRefunded: true, refunds: [{ scope: "line", amountCents: ebook.priceCents }] });
    expect(await statusOf(order.id)).toBe("refunded");
    expect((await paymentsOf(order.id))[0]!.status).toBe("refunded");
    expect(await accessTo(h.db, customer.id, ebook.id, at)).toMatchObject({ allowed: false });
  });

  it("a refund the bank holds is pending, then recorded when the gateway says it went through", async () => {
    const customer = await h.customer();
    const order = await h.paidOrder(customer.id, EBOOK);
    const [payment] = await paymentsOf(order.id);
    await gateway().hold(payment!.chargeId, true);
    h.advance(DAY);

    const result = await refundOrder(h.op, order.orderCode);
    expect(result.refunds).toEqual([expect.objectContaining({ state: "pending", amountCents: order.totalCents })]);
    // The order is refunded and its access ended (the operator decided it); the money is on its way.
    expect(await statusOf(order.id)).toBe("refunded");
    expect((await paymentsOf(order.id))[0]).toMatchObject({ status: "payed", refundedAt: null });
    expect(await refundsOf(payment!.id)).toEqual([expect.objectContaining({ state: "pending", completedAt: null })]);
    const pending = `Rimborso in corso (${formatEuro(order.totalCents)})`;
    expect(await receiptText(customer.id, order.orderCode)).toContain(pending);
    expect((await myProductsText(customer.id, "inattivi")).text).toContain(pending);

    h.advance(3 * DAY);
    await gateway().settle(result.refunds[0]!.gatewayRefundId!, "succeeded");
    expect(await refundsOf(payment!.id)).toEqual([
      expect.objectContaining({ state: "succeeded", gatewayStatus: "succeeded", completedAt: h.services.clock() }),
    ]);
    expect((await paymentsOf(order.id))[0]).toMatchObject({ status: "refunded", refundedAt: h.services.clock() });
    const receipt = await receiptText(customer.id, order.orderCode);
    expect(receipt).not.toContain("Rimborso in corso");
    expect(receipt).toContain(`Rimborsato ${formatEuro(order.totalCents)} il 27 novembre 2026`);
  });

  it("a refund that fails is told to the operators, shown to no customer, and asked again by the next refund", async () => {
    const customer = await h.customer();
    const order = await h.paidOrder(customer.id, EBOOK);
    const [payment] = await paymentsOf(order.id);
    await gateway().hold(payment!.chargeId, true);
    const result = await refundOrder(h.op, order.orderCode, { kind: "amount", amountCents: 500, paymentCode: null });
    expect(result.refunds[0]!.state).toBe("pending");

    await gateway().settle(result.refunds[0]!.gatewayRefundId!, "failed");
    const [failed] = await refundsOf(payment!.id);
    expect(failed).toMatchObject({ state: "failed", failureReason: "expired_or_canceled_card", completedAt: h.services.clock() });
    expect(h.logged).toContainEqual(
      expect.objectContaining({
        level: 50,
        msg: "a refund failed: the money did not go back to the customer",
        orderCode: order.orderCode,
        paymentCode: payment!.paymentCode,
        refundId: failed!.id,
      }),
    );
    expect((await listRefunds(h.op, "failed")).filter((r) => r.orderCode === order.orderCode)).toEqual([
      expect.objectContaining({ paymentCode: payment!.paymentCode, amountCents: 500, state: "failed", email: customer.email }),
    ]);
    expect((await showOrder(h.op, order.orderCode)).refunds).toEqual([expect.objectContaining({ state: "failed" })]);
    expect(await h.audited("refunds_listed")).not.toHaveLength(0);
    await expect(listRefunds(h.op, "lost")).rejects.toBeInstanceOf(OperatorError);
    // The customer: no refund, and the whole amount paid.
    const receipt = await receiptText(customer.id, order.orderCode);
    expect(receipt).not.toContain("Rimbors");
    expect(receipt).toContain(`Totale pagato ${formatEuro(order.totalCents)}`);

    // Asked again, a day later: a refund of its own (a new idempotency key), which goes through.
    await gateway().hold(payment!.chargeId, false);
    h.advance(DAY);
    const again = await refundOrder(h.op, order.orderCode, { kind: "amount", amountCents: 500, paymentCode: null });
    expect(again.refunds[0]!.state).toBe("succeeded");
    expect((await refundsOf(payment!.id)).map((r) => r.state)).toEqual(["failed", "succeeded"]);
    expect((await gateway().refunds(payment!.chargeId)).map((r) => r.status).sort()).toEqual(["failed", "succeeded"]);
  });

  it("ends the EDU subscription the order started: its access now, no month charged after, and its page says the publisher ended it", async () => {
    const customer = await h.customer();
    const order = await h.paidOrder(customer.id, EDU_PRODUCT_CODE);
    h.advance(DAY);
    const at = afterStart(DAY);
    const result = await refundOrder(h.op, order.orderCode);
    expect(result).toMatchObject({
      subscriptionEnded: true,
      grantsEnded: 1,
      orderRefunded: true,
      refunds: [{ state: "succeeded" }],
    });
    const [sub] = await h.db.select().from(subscriptions).where(eq(subscriptions.orderId, order.id));
    expect(sub).toMatchObject({ status: "ended", endedReason: "refunded", endedAt: at });
    expect(await eduActiveUntil(h.db, customer.id)).toEqual(at);

    // The page: the publisher refunded and ended it, the month refunded, no access after the refund.
    const { subscription, text } = await subscriptionText(customer.id);
    expect(subscription).toMatchObject({ status: "ended", endedReason: "refunded", paidUntil: at });
    expect(text).toContain(SUBSCRIPTION_MESSAGES.endedRefunded);
    expect(text).not.toContain("Come da tua disdetta");
    expect(text).toContain("Rimborsato il 24 novembre 2026");
    expect(text).toContain(`${SUBSCRIPTION_MESSAGES.accessUntil} 24/11/2026`);

    // A month later the runner charges nothing: the scheduled month is void.
    h.advance(35 * DAY);
    await h.services.jobs.runDue();
    const months = await h.db.select().from(subscriptionPeriods).where(eq(subscriptionPeriods.subscriptionId, sub!.id));
    expect(months.map((m) => [m.number, m.status]).sort()).toEqual([
      [1, "paid"],
      [2, "void"],
    ]);
    expect(await paymentsOf(order.id)).toEqual([expect.objectContaining({ status: "refunded" })]);
    // The refund job queued in the transaction ran too, and found the refund made.
    expect(await gateway().refunds((await paymentsOf(order.id))[0]!.chargeId)).toHaveLength(1);
  });

  it("an EDU month: that month's payment and access only; the subscription goes on", async () => {
    const customer = await h.customer();
    const order = await h.paidOrder(customer.id, EDU_PRODUCT_CODE);
    const [sub] = await h.db.select().from(subscriptions).where(eq(subscriptions.orderId, order.id));
    h.advance(periodStart(sub!.anchorAt, 2).getTime() - START.getTime());
    await h.services.jobs.runDue();
    const [first, second] = (await paymentsOf(order.id)).sort((a, b) => a.paidAt.getTime() - b.paidAt.getTime());
    expect(second).toBeDefined();
    h.advance(DAY);
    const at = h.services.clock();

    // --amount on an order of several payments names one.
    await expect(refundOrder(h.op, order.orderCode, { kind: "amount", amountCents: 100, paymentCode: null })).rejects.toThrow(
      "has 2 payments (its months): name one with --payment",
    );
    await expect(refundOrder(h.op, order.orderCode, { kind: "line", product: EDU_PRODUCT_CODE })).rejects.toBeInstanceOf(
      OperatorError,
    );

    // A past month: its money back, and the month running now keeps its access.
    const past = await refundOrder(h.op, order.orderCode, { kind: "month", paymentCode: first!.paymentCode });
    expect(past).toMatchObject({
      grantsEnded: 0,
      refunds: [{ paymentCode: first!.paymentCode, amountCents: first!.amountCents }],
    });
    expect(await eduActiveUntil(h.db, customer.id)).toEqual(periodStart(sub!.anchorAt, 3));

    const result = await refundOrder(h.op, order.orderCode, { kind: "month", paymentCode: second!.paymentCode });
    expect(result).toMatchObject({
      orderRefunded: false,
      subscriptionEnded: false,
      grantsEnded: 1,
      refunds: [{ paymentCode: second!.paymentCode, scope: "payment", amountCents: second!.amountCents, state: "succeeded" }],
    });
    expect(await statusOf(order.id)).toBe("payed");
    expect((await h.db.select().from(subscriptions).where(eq(subscriptions.id, sub!.id)))[0]!.status).toBe("active");
    expect(await eduActiveUntil(h.db, customer.id)).toEqual(at);
    const payed = Object.fromEntries((await paymentsOf(order.id)).map((p) => [p.paymentCode, p.status]));
    expect(payed).toEqual({ [first!.paymentCode]: "refunded", [second!.paymentCode]: "refunded" });
    // Given back already.
    await expect(refundOrder(h.op, order.orderCode, { kind: "month", paymentCode: second!.paymentCode })).rejects.toThrow(
      "was given back already",
    );

    const { subscription, text } = await subscriptionText(customer.id);
    expect(subscription.paidUntil).toEqual(at);
    expect(subscription.nextCharge?.at).toEqual(periodStart(sub!.anchorAt, 3));
    expect(subscription.paidMonths.map((m) => m.refunds.length)).toEqual([1, 1]);
    expect(text).toContain(`Rimborsato il ${formatLongDate(at)}`);
  });

  it("gives back the order's discount code use when the order is refunded, not for an amount", async () => {
    const code = `RIMBORSO${Math.random().toString(36).slice(2, 8).toUpperCase()}`;
    await createCoupon(h.op, { code, description: "Prova", percent: 10, maxRedemptions: 1 });
    const customer = await h.customer();
    const order = await h.paidOrder(customer.id, EBOOK, {}, { coupon: code });
    const usesOf = async () => (await h.db.select().from(coupons).where(eq(coupons.code, code)))[0]!.redemptions;
    const redemptionsOf = () => h.db.select().from(couponRedemptions).where(eq(couponRedemptions.orderId, order.id));
    expect(await usesOf()).toBe(1);

    await refundOrder(h.op, order.orderCode, { kind: "amount", amountCents: 100, paymentCode: null });
    expect(await usesOf()).toBe(1);
    await refundOrder(h.op, order.orderCode);
    expect(await usesOf()).toBe(0);
    expect(await redemptionsOf()).toEqual([]);
    // Another customer may use it now.
    const other = await h.customer();
    await h.paidOrder(other.id, EBOOK, {}, { coupon: code });
    expect(await usesOf()).toBe(1);
  });

  it("an eBook+EDU code's months that replaced the next charges move back to where access now ends", async () => {
    const customer = await h.customer();
    const order = await h.paidOrder(customer.id, EDU_PRODUCT_CODE);
    const [sub] = await h.db.select().from(subscriptions).where(eq(subscriptions.orderId, order.id));
    h.advance(5 * DAY);
    const codeGrant = await activateEbookEdu(customer.id);
    const monthEnd = periodStart(sub!.anchorAt, 2);
    expect(codeGrant).toMatchObject({ startsAt: monthEnd, expiresAt: periodStart(sub!.anchorAt, 8) });
    h.advance(2 * DAY);
    const at = h.services.clock();

    const result = await refundOrder(h.op, order.orderCode);
    expect(result).toMatchObject({ subscriptionEnded: true, eduMoved: 1 });
    const shift = monthEnd.getTime() - at.getTime();
    const [moved] = await h.db.select().from(entitlements).where(eq(entitlements.id, codeGrant.id));
    expect(moved).toMatchObject({ startsAt: at, expiresAt: new Date(codeGrant.expiresAt!.getTime() - shift) });
    expect(await eduActiveUntil(h.db, customer.id)).toEqual(moved!.expiresAt);
    expect(await accessTo(h.db, customer.id, codeGrant.productId, at)).toMatchObject({ allowed: true });
  });

  it("a refunded month with a code's months after it: they move back, and the next charge with them", async () => {
    const customer = await h.customer();
    const order = await h.paidOrder(customer.id, EDU_PRODUCT_CODE);
    const [sub] = await h.db.select().from(subscriptions).where(eq(subscriptions.orderId, order.id));
    const [payment] = await paymentsOf(order.id);
    h.advance(5 * DAY);
    const codeGrant = await activateEbookEdu(customer.id);
    h.advance(2 * DAY);
    const at = h.services.clock();

    await refundOrder(h.op, order.orderCode, { kind: "month", paymentCode: payment!.paymentCode });
    const [moved] = await h.db.select().from(entitlements).where(eq(entitlements.id, codeGrant.id));
    expect(moved!.startsAt).toEqual(at);
    const [after] = await h.db.select().from(subscriptions).where(eq(subscriptions.id, sub!.id));
    const [, second] = await h.db
      .select()
      .from(subscriptionPeriods)
      .where(eq(subscriptionPeriods.subscriptionId, sub!.id))
      .orderBy(subscriptionPeriods.number);
    // The month waiting behind the code's months starts where they now end: no gap, no overlap.
    expect(second).toMatchObject({ number: 2, status: "scheduled", startsAt: moved!.expiresAt, nextAttemptAt: moved!.expiresAt });
    expect(second!.endsAt.getTime()).toBeGreaterThan(second!.startsAt.getTime() + 27 * DAY);
    expect(after).toMatchObject({ status: "active", freeUntil: moved!.expiresAt });
    expect(await eduActiveUntil(h.db, customer.id)).toEqual(moved!.expiresAt);

    // When the code's months end, the month is charged, and EDU goes on from there.
    h.advance(moved!.expiresAt!.getTime() - at.getTime());
    await h.services.jobs.runDue();
    expect(await eduActiveUntil(h.db, customer.id)).toEqual(second!.endsAt);
  });

  it("an operator's EDU months stacked after a refunded subscription move back too", async () => {
    const customer = await h.customer();
    const order = await h.paidOrder(customer.id, EDU_PRODUCT_CODE);
    const granted = await grantAccess(h.op, customer.email, EDU_PRODUCT_CODE, 3);
    h.advance(DAY);
    const at = h.services.clock();
    await refundOrder(h.op, order.orderCode);
    const [grant] = await h.db
      .select()
      .from(entitlements)
      .where(and(eq(entitlements.userId, customer.id), eq(entitlements.source, "operator")));
    expect(grant).toMatchObject({
      startsAt: at,
      expiresAt: new Date(granted.expiresAt.getTime() - (granted.startsAt.getTime() - at.getTime())),
    });
  });

  it("refuses an order that took no money, or none at all", async () => {
    const customer = await h.customer();
    const opened = await h.services.checkout.open(customer.id, EBOOK);
    if (!opened.ok) throw new Error(opened.reason);
    const [open] = await h.db.select().from(orders).where(eq(orders.id, opened.orderId));
    await expect(refundOrder(h.op, open!.orderCode)).rejects.toThrow(/is 'new': only a paid order/);
    await expect(refundOrder(h.op, "NX000000-NOPE00")).rejects.toBeInstanceOf(OperatorError);
    await expect(refundOrder(h.op, "bad code")).rejects.toBeInstanceOf(OperatorError);
    expect(await statusOf(opened.orderId)).toBe("new");

    const paid = await h.paidOrder(customer.id, EBOOK);
    const [payment] = await paymentsOf(paid.id);
    await expect(refundOrder(h.op, paid.orderCode, { kind: "month", paymentCode: payment!.paymentCode })).rejects.toThrow(
      "pays no month of an EDU subscription",
    );
    await expect(refundOrder(h.op, paid.orderCode, { kind: "line", product: "abbonamentoedu" })).rejects.toThrow(
      "has no line of",
    );
    expect(await refundsOf(payment!.id)).toEqual([]);
  });

  /** Activates an eBook+EDU code for the customer now; the EDU grant it made. */
  async function activateEbookEdu(userId: string) {
    const ebook = await productOf(EBOOK);
    const { codes } = await h.services.library.activation.createBatch({
      productId: ebook.id,
      kind: "ebook_edu",
      label: "Prova",
      count: 1,
    });
    const activated = await h.services.library.activation.activate({ userId, ip: "203.0.113.60", code: codes[0]! });
    expect(activated.ok).toBe(true);
    const [grant] = await h.db
      .select()
      .from(entitlements)
      .innerJoin(products, eq(products.id, entitlements.productId))
      .where(
        and(eq(entitlements.userId, userId), eq(entitlements.source, "activation_code"), eq(products.code, EDU_PRODUCT_CODE)),
      );
    return grant!.entitlements;
  }
}

describe("on the sandbox gateway", () => {
  const h = operatorHarness();
  refundTests(h, () => ({
    async refunds(chargeId) {
      const rows = await h.db.select().from(sandboxGatewayObjects).where(eq(sandboxGatewayObjects.kind, "refund"));
      return rows
        .map((row) => ({ id: row.id, ...(row.data as { chargeId: string; amountCents: number; status?: string }) }))
        .filter((refund) => refund.chargeId === chargeId)
        .map((refund) => ({ id: refund.id, amountCents: refund.amountCents, status: refund.status ?? "succeeded" }));
    },
    async hold(chargeId, hold) {
      expect(await h.services.sandbox!.holdRefunds(chargeId, hold)).toBe(true);
    },
    async settle(refundId, outcome) {
      // The sandbox sends no notification: the sweep reads the refund again at its next check.
      expect(await h.services.sandbox!.settleRefund(refundId, outcome)).toBe(true);
      h.advance(REFUND_CHECK_INTERVAL_MS);
      expect((await h.services.jobs.runDue())["pending-refunds"]).toBeGreaterThanOrEqual(1);
    },
  }));
});

describe("on Stripe (a local stand-in of its API)", () => {
  let stripe: FakeStripe;
  beforeAll(async () => {
    stripe = await startFakeStripe();
  });
  afterAll(async () => {
    await stripe?.close();
  });
  const h = operatorHarness({ stripe: () => stripe });
  /** Stripe's event about a refund, delivered to the portal's webhook. */
  const deliver = async (event: { payload: string; signature: string }) =>
    h.services.stripeWebhooks!.handle(Buffer.from(event.payload), event.signature);

  refundTests(h, () => ({
    async refunds(chargeId) {
      return stripe
        .refunds()
        .filter((refund) => refund.payment_intent === chargeId)
        .map((refund) => ({ id: String(refund.id), amountCents: refund.amount, status: refund.status }));
    },
    async hold(chargeId, hold) {
      stripe.holdRefunds(chargeId, hold);
    },
    async settle(refundId, outcome) {
      // Stripe says so at once: refund.updated, or refund.failed.
      expect(await deliver(stripe.settleRefund(refundId, outcome))).toEqual({ status: 200, body: "ok" });
    },
  }));

  it("a refund whose event never came is completed by the sweep that reads pending refunds again", async () => {
    const customer = await h.customer();
    const order = await h.paidOrder(customer.id, EBOOK);
    const [payment] = await h.db.select().from(payments).where(eq(payments.orderId, order.id));
    stripe.holdRefunds(payment!.chargeId, true);
    const result = await refundOrder(h.op, order.orderCode);
    // Its job reads it again at once: still pending.
    await h.services.jobs.runDue();
    // The bank completes it; the event is lost.
    stripe.settleRefund(result.refunds[0]!.gatewayRefundId!, "succeeded");

    // Before its check is due the portal does not know.
    h.advance(REFUND_CHECK_INTERVAL_MS - 1000);
    await h.services.jobs.runDue();
    expect((await h.db.select().from(paymentRefunds).where(eq(paymentRefunds.paymentId, payment!.id)))[0]!.state).toBe("pending");
    h.advance(1000);
    await h.services.jobs.runDue();
    expect((await h.db.select().from(paymentRefunds).where(eq(paymentRefunds.paymentId, payment!.id)))[0]!.state).toBe(
      "succeeded",
    );
    expect((await h.db.select().from(payments).where(eq(payments.id, payment!.id)))[0]!.status).toBe("refunded");
  });

  it("an event about a refund: applied once however often it comes, found by the portal's id before its answer was recorded", async () => {
    const customer = await h.customer();
    const order = await h.paidOrder(customer.id, EBOOK);
    const [payment] = await h.db.select().from(payments).where(eq(payments.orderId, order.id));
    stripe.holdRefunds(payment!.chargeId, true);
    const result = await refundOrder(h.op, order.orderCode, { kind: "amount", amountCents: 200, paymentCode: null });
    const event = stripe.settleRefund(result.refunds[0]!.gatewayRefundId!, "succeeded");
    expect(await deliver(event)).toEqual({ status: 200, body: "ok" });
    expect(await deliver(event)).toEqual({ status: 200, body: "already received" });
    const [refund] = await h.db.select().from(paymentRefunds).where(eq(paymentRefunds.paymentId, payment!.id));
    expect(refund).toMatchObject({ state: "succeeded", amountCents: 200 });

    // An event naming only the portal's refund (its answer lost): read at Stripe by the same key, and recorded.
    stripe.holdRefunds(payment!.chargeId, false);
    const other = await h.db.transaction((tx) =>
      requestRefund(
        tx,
        { paymentId: payment!.id, cover: { kind: "amount", amountCents: 100 }, reason: "operator", requestedBy: "operator:test" },
        h.services.clock(),
      ),
    );
    const unknown = stripe.signedEvent("refund.updated", {
      id: "re_unknown_0001",
      object: "refund",
      metadata: { refund_id: other!.id },
    });
    expect(await deliver(unknown)).toEqual({ status: 200, body: "ok" });
    expect((await h.db.select().from(paymentRefunds).where(eq(paymentRefunds.id, other!.id)))[0]).toMatchObject({
      state: "succeeded",
      amountCents: 100,
    });
    expect(stripe.refunds().filter((r) => r.payment_intent === payment!.chargeId)).toHaveLength(2);
  });
});
