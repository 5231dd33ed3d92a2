// Operators' commands for an order: show it whole, and refund it. A refund gives back every
// payment of the order through the gateway that took it (for EDU, every month paid) and takes
// back what the order gave: its grants end now, the EDU subscription it started ends (reason
// `refunded`, nothing more is charged) and the order moves to `refunded`, all in one transaction
// that also queues the gateway's refunds (server/payments/refunds.ts). The command then runs those
// refunds at once; should the gateway fail, the queued jobs retry them on the running portal.
import { and, asc, eq, inArray } from "drizzle-orm";
import {
  entitlements,
  invoices,
  orderItems,
  orders,
  payments,
  products,
  subscriptionPeriods,
  subscriptions,
  users,
} from "../db/schema.ts";
import { endSubscriptionsNow } from "../commerce/subscription-records.ts";
import { endEntitlements, lockCustomer } from "../library/entitlements.ts";
import { isOrderCode } from "../lib/ids.ts";
import { enqueueRefund } from "../payments/refunds.ts";
import { OperatorError, recordOperation, type Operator } from "./context.ts";
import type { Queryable } from "../db/client.ts";

async function orderByCode(db: Queryable, orderCode: string) {
  const [order] = isOrderCode(orderCode.trim())
    ? await db
        .select({
          id: orders.id,
          orderCode: orders.orderCode,
          userId: orders.userId,
          email: users.email,
          status: orders.status,
          createdAt: orders.createdAt,
          committedAt: orders.committedAt,
          subtotalCents: orders.subtotalCents,
          discountCents: orders.discountCents,
          couponCode: orders.couponCode,
          shipmentPriceCents: orders.shipmentPriceCents,
          totalCents: orders.totalCents,
        })
        .from(orders)
        .innerJoin(users, eq(users.id, orders.userId))
        .where(eq(orders.orderCode, orderCode.trim()))
    : [];
  if (!order) throw new OperatorError(`No order has the code "${orderCode}"`);
  return order;
}

const paymentColumns = {
  id: payments.id,
  paymentCode: payments.paymentCode,
  status: payments.status,
  amountCents: payments.amountCents,
  gateway: payments.gateway,
  cardBrand: payments.cardBrand,
  cardLast4: payments.cardLast4,
  paidAt: payments.paidAt,
  refundedAt: payments.refundedAt,
  refundRef: payments.refundRef,
};

const paymentsOf = (db: Queryable, orderId: string) =>
  db.select(paymentColumns).from(payments).where(eq(payments.orderId, orderId)).orderBy(asc(payments.paidAt));

/** The order, its customer, lines, payments, the grants it gave and the subscription it started. */
export async function showOrder(op: Operator, orderCode: string) {
  const { db } = op;
  const order = await orderByCode(db, orderCode);
  const [items, paid, grants, subscription] = await Promise.all([
    db
      .select({
        sku: products.sku,
        description: orderItems.description,
        quantity: orderItems.quantity,
        totalCents: orderItems.totalCents,
      })
      .from(orderItems)
      .innerJoin(products, eq(products.id, orderItems.productId))
      .where(eq(orderItems.orderId, order.id))
      .orderBy(asc(orderItems.description)),
    paymentsOf(db, order.id),
    db
      .select({
        sku: products.sku,
        source: entitlements.source,
        startsAt: entitlements.startsAt,
        expiresAt: entitlements.expiresAt,
      })
      .from(entitlements)
      .innerJoin(products, eq(products.id, entitlements.productId))
      .where(eq(entitlements.orderId, order.id))
      .orderBy(asc(entitlements.startsAt)),
    db
      .select({ status: subscriptions.status, endedAt: subscriptions.endedAt, endedReason: subscriptions.endedReason })
      .from(subscriptions)
      .where(eq(subscriptions.orderId, order.id)),
  ]);
  await recordOperation(db, op, "order_viewed", { userId: order.userId, details: { orderCode: order.orderCode } });
  const { id: _, userId: __, ...shown } = order;
  return { ...shown, items, payments: paid, entitlements: grants, subscription: subscription[0] ?? null };
}

type RefundedPayment = {
  paymentCode: string;
  amountCents: number;
  gateway: string;
  /** `refunded`: the gateway gave the money back (`refundRef` is its refund); `queued`: it failed now and will be retried. */
  state: "refunded" | "queued";
  refundRef: string | null;
  error?: string;
};

export type RefundResult = {
  orderCode: string;
  email: string | null;
  /** The order was refunded by an earlier run: only payments still due back were retried. */
  alreadyRefunded: boolean;
  grantsEnded: number;
  subscriptionEnded: boolean;
  payments: RefundedPayment[];
  /** The e-invoices of the payments given back: each wants a credit note, which the portal does not make. */
  invoicesToCredit: string[];
};

export async function refundOrder(op: Operator, orderCode: string): Promise<RefundResult> {
  const { db, services } = op;
  const order = await orderByCode(db, orderCode);
  const at = services.clock();

  const decided = await db.transaction(async (tx) => {
    // The customer's lock orders this after any activation or month being recorded for them, and
    // the order's row lock makes a second refund wait, then find the order refunded.
    await lockCustomer(tx, order.userId);
    const [current] = await tx.select({ status: orders.status }).from(orders).where(eq(orders.id, order.id)).for("update");
    const alreadyRefunded = current!.status === "refunded";
    if (!alreadyRefunded && current!.status !== "payed") {
      throw new OperatorError(`Order ${order.orderCode} is '${current!.status}': only a paid order is refunded`);
    }
    const toRefund = (await paymentsOf(tx, order.id)).filter((p) => p.status === "payed");
    if (alreadyRefunded) {
      await recordOperation(tx, op, "order_refunded", {
        userId: order.userId,
        details: { orderCode: order.orderCode, alreadyRefunded, paymentsRetried: toRefund.map((p) => p.paymentCode) },
      });
      return { alreadyRefunded, grantsEnded: 0, subscriptionEnded: false, toRefund };
    }
    if (toRefund.length === 0) {
      throw new OperatorError(
        `Order ${order.orderCode} has no payment to give back (a code's free activation?): use customer:revoke to end its access`,
      );
    }

    // The subscription's months are locked so that none is claimed for a charge meanwhile; one
    // already being charged would be recorded after the refund, so the operator waits for it.
    const [sub] = await tx.select({ id: subscriptions.id }).from(subscriptions).where(eq(subscriptions.orderId, order.id));
    if (sub) {
      const months = await tx
        .select({ status: subscriptionPeriods.status })
        .from(subscriptionPeriods)
        .where(eq(subscriptionPeriods.subscriptionId, sub.id))
        .for("update");
      if (months.some((m) => m.status === "charging")) {
        throw new OperatorError(
          `A month of the subscription of order ${order.orderCode} is being charged right now: try again in a few minutes`,
        );
      }
    }
    const ended = await endEntitlements(tx, eq(entitlements.orderId, order.id), at);
    const endedSubs = await endSubscriptionsNow(tx, eq(subscriptions.orderId, order.id), "refunded", at);
    await tx
      .update(orders)
      .set({ status: "refunded", updatedAt: at })
      .where(and(eq(orders.id, order.id), eq(orders.status, "payed")));
    for (const payment of toRefund) await enqueueRefund(tx, { paymentId: payment.id, reason: "operator" }, at);
    const amountCents = toRefund.reduce((sum, p) => sum + p.amountCents, 0);
    await recordOperation(tx, op, "order_refunded", {
      userId: order.userId,
      details: {
        orderCode: order.orderCode,
        payments: toRefund.map((p) => p.paymentCode),
        amountCents,
        grantsEnded: ended.length,
        subscriptionEnded: endedSubs.length > 0,
      },
    });
    return { alreadyRefunded, grantsEnded: ended.length, subscriptionEnded: endedSubs.length > 0, toRefund };
  });

  // The money, now: the refund job's own work (idempotent, keyed by the charge), so a run
  // repeated or racing this one gives the payment back once.
  const refunded: RefundedPayment[] = [];
  for (const payment of decided.toRefund) {
    const shown = { paymentCode: payment.paymentCode, amountCents: payment.amountCents, gateway: payment.gateway };
    try {
      const outcome = await services.refunds.refundPayment(payment.id);
      refunded.push({ ...shown, state: "refunded", refundRef: outcome.state === "refunded" ? outcome.refundRef : null });
    } catch (error) {
      refunded.push({
        ...shown,
        state: "queued",
        refundRef: null,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }
  const invoiced = decided.toRefund.length
    ? await db
        .select({ documentNumber: invoices.documentNumber })
        .from(invoices)
        .where(
          inArray(
            invoices.paymentId,
            decided.toRefund.map((p) => p.id),
          ),
        )
        .orderBy(asc(invoices.year), asc(invoices.number))
    : [];
  return {
    orderCode: order.orderCode,
    email: order.email,
    invoicesToCredit: invoiced.map((i) => i.documentNumber),
    alreadyRefunded: decided.alreadyRefunded,
    grantsEnded: decided.grantsEnded,
    subscriptionEnded: decided.subscriptionEnded,
    payments: refunded,
  };
}
