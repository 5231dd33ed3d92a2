// orders:refund through each gateway: the sandbox and the local stand-in of Stripe's API (the
// real `stripe` SDK does the HTTP). The money goes back once however often, and however many at
// once, the command runs; the access the order gave ends (an EDU subscription ends as `refunded`
// and charges nothing more); the order is `refunded`; the receipt and 'I miei prodotti' say so.
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import MyProductsPage, { loader as myProductsLoaderBare } from "../../app/routes/my-products";
import ReceiptPage from "../../app/routes/receipt";
import {
  entitlements,
  orders,
  payments,
  sandboxGatewayObjects,
  subscriptionPeriods,
  subscriptions,
} from "../../server/db/schema.ts";
import { accessTo, eduActiveUntil } from "../../server/library/entitlements.ts";
import { OperatorError } from "../../server/operators/context.ts";
import { refundOrder, showOrder } from "../../server/operators/orders.ts";
import { EDU_PRODUCT_CODE } from "../../shared/library-constants.ts";
import { startFakeStripe, type FakeStripe } from "../support/fake-stripe.ts";
import { afterStart, DAY, START } from "../support/clock.ts";
import { operatorHarness } from "../support/operators.ts";
import { decode, render } from "../support/render-page.ts";
import { loaderArgs } from "../support/router-context.ts";
import { behindSignIn } from "../support/customer-pages.ts";

// The customer's pages run behind the customer layout's sign-in.
const myProductsLoader = behindSignIn(myProductsLoaderBare);

const EBOOK = "EB-9788828813217";

type Harness = ReturnType<typeof operatorHarness>;

/** The refunds the gateway made of a charge. */
type GatewayRefunds = (h: Harness, chargeId: string) => Promise<number>;

function refundTests(h: Harness, gatewayRefunds: GatewayRefunds) {
  const paymentsOf = (orderId: string) => h.db.select().from(payments).where(eq(payments.orderId, orderId));
  const statusOf = async (orderId: string) => (await h.db.select().from(orders).where(eq(orders.id, orderId)))[0]!.status;

  it("gives an eBook's payment back once, ends its access, and the receipt and 'I miei prodotti' say so", async () => {
    const customer = await h.customer();
    const order = await h.paidOrder(customer.id, EBOOK);
    const [payment] = await paymentsOf(order.id);
    const productId = (await h.db.select().from(entitlements).where(eq(entitlements.orderId, order.id)))[0]!.productId;

    h.advance(2 * DAY);
    const at = afterStart(2 * DAY);
    const result = await refundOrder(h.op, order.orderCode);
    expect(result).toMatchObject({
      orderCode: order.orderCode,
      email: customer.email,
      alreadyRefunded: false,
      grantsEnded: 1,
      subscriptionEnded: false,
      payments: [{ paymentCode: payment!.paymentCode, amountCents: order.totalCents, state: "refunded" }],
    });
    expect(await gatewayRefunds(h, payment!.chargeId)).toBe(1);
    expect(await statusOf(order.id)).toBe("refunded");
    const [refunded] = await paymentsOf(order.id);
    expect(refunded).toMatchObject({ status: "refunded", refundedAt: at, refundRef: result.payments[0]!.refundRef });
    expect(await accessTo(h.db, customer.id, productId, at)).toMatchObject({ allowed: false, expiresAt: at });

    // Again: nothing more goes back.
    expect(await refundOrder(h.op, order.orderCode)).toMatchObject({ alreadyRefunded: true, grantsEnded: 0, payments: [] });
    expect(await gatewayRefunds(h, payment!.chargeId)).toBe(1);
    expect(await h.audited("order_refunded", customer.id)).toHaveLength(2);
    expect((await showOrder(h.op, order.orderCode)).payments[0]).toMatchObject({ status: "refunded", refundedAt: at });

    // What the customer sees: the receipt, and the card under 'Inattivi'.
    const { cookie } = await h.session(customer.id);
    const receipt = await h.services.purchases.receipt(customer.id, order.orderCode);
    const receiptText = decode(await render(ReceiptPage, { receipt }, `/ricevuta/${order.orderCode}/`));
    expect(receiptText).toContain("Stato dell'ordine Rimborsato");
    expect(receiptText).toContain("Rimborsato il 25/11/2026");
    expect(receiptText).toMatch(/Totale pagato 0,00\s€ Totale rimborsato/);
    const url = "/my-products/?tab=inattivi";
    const args = loaderArgs(h.services, url);
    const data = await myProductsLoader({ ...args, request: new Request(args.request.url, { headers: { cookie } }) });
    expect(data.cards.map((c) => [c.orderCode, c.statusLabel])).toEqual([[order.orderCode, "Rimborsato"]]);
    const productsText = decode(await render(MyProductsPage, data, url));
    expect(productsText).toContain("Rimborsato il 25/11/2026");
  });

  it("ends the EDU subscription the order started: its access now, and no month charged after", async () => {
    const customer = await h.customer();
    const order = await h.paidOrder(customer.id, EDU_PRODUCT_CODE);
    h.advance(DAY);
    const result = await refundOrder(h.op, order.orderCode);
    expect(result).toMatchObject({ subscriptionEnded: true, grantsEnded: 1, payments: [{ state: "refunded" }] });
    const [sub] = await h.db.select().from(subscriptions).where(eq(subscriptions.orderId, order.id));
    expect(sub).toMatchObject({ status: "ended", endedReason: "refunded", endedAt: afterStart(DAY) });
    expect(await eduActiveUntil(h.db, customer.id)).toEqual(afterStart(DAY));

    // A month later the runner charges nothing: the scheduled month is void.
    h.advance(35 * DAY);
    await h.services.jobs.runDue();
    const months = await h.db.select().from(subscriptionPeriods).where(eq(subscriptionPeriods.subscriptionId, sub!.id));
    expect(months.map((m) => [m.number, m.status]).sort()).toEqual([
      [1, "paid"],
      [2, "void"],
    ]);
    expect(await paymentsOf(order.id)).toEqual([expect.objectContaining({ status: "refunded" })]);
    // The refund job queued in the transaction ran too, and found the payment refunded.
    expect(await gatewayRefunds(h, (await paymentsOf(order.id))[0]!.chargeId)).toBe(1);
  });

  it("refunds once when the command runs 4 times at once", async () => {
    const customer = await h.customer();
    const order = await h.paidOrder(customer.id, EBOOK);
    const results = await Promise.all(Array.from({ length: 4 }, () => refundOrder(h.op, order.orderCode)));
    expect(results.filter((r) => !r.alreadyRefunded)).toHaveLength(1);
    for (const r of results) expect(r.payments.every((p) => p.state === "refunded")).toBe(true);
    const [payment] = await paymentsOf(order.id);
    expect(payment!.status).toBe("refunded");
    expect(await gatewayRefunds(h, payment!.chargeId)).toBe(1);
    expect(
      await h.db
        .select()
        .from(entitlements)
        .where(and(eq(entitlements.orderId, order.id), eq(entitlements.userId, customer.id))),
    ).toEqual([expect.objectContaining({ expiresAt: START })]);
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
  });
}

describe("on the sandbox gateway", () => {
  const h = operatorHarness();
  refundTests(h, async (harness, chargeId) => {
    const rows = await harness.db.select().from(sandboxGatewayObjects).where(eq(sandboxGatewayObjects.kind, "refund"));
    return rows.filter((row) => (row.data as { chargeId: string }).chargeId === chargeId).length;
  });
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
  refundTests(h, async (_harness, chargeId) => stripe.refunds().filter((refund) => refund.payment_intent === chargeId).length);
});
