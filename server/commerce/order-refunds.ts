// What a refund of an order does beyond the money (docs/payments.md, "Refunds"), decided in one
// transaction under the customer's lock and the order's row lock, with the refunds it records
// (server/payments/refunds.ts, which checks each against what its payment still keeps):
//   whole order — every payment's rest goes back; the access the order gave ends, the EDU
//                 subscription it started ends (reason `refunded`), its coupon use is given back,
//                 and the order is `refunded`. Asked again, it only retries what went back failed.
//   a line      — that line's share of the payment goes back and its access ends; when no line
//                 keeps anything the order is `refunded` as above.
//   an EDU month — that month's payment goes back whole and that month's access ends; the
//                 subscription goes on.
//   an amount   — a sum from one payment (a goodwill gesture): nothing else changes.
// EDU granted to start after access that a refund cut short moves back to where access now ends.
import { and, asc, eq, or, type SQL } from "drizzle-orm";
import type { Transaction } from "#server/db/client.ts";
import {
  entitlements,
  orderItems,
  orders,
  payments,
  products,
  subscriptionPeriods,
  subscriptions,
} from "#server/db/schema/index.ts";
import { closeEduGap, endEntitlements } from "#server/library/entitlements.ts";
import { lockCustomer } from "#server/db/customer-lock.ts";
import { releaseCoupon } from "./coupon-uses.ts";
import { keptParts, RefundNotPossible, requestRefund, type RefundCover, type RefundRecord } from "#server/payments/refunds.ts";
import { formatEuro } from "#shared/euro.ts";
import { EDU_PRODUCT_CODE } from "#shared/library-constants.ts";
import { endSubscriptionsNow, followMovedFreeMonths } from "./subscription-records.ts";

/** What of an order an operator gives back. */
export type OrderRefundRequest =
  | { kind: "order" }
  | { kind: "line"; product: string }
  | { kind: "month"; paymentCode: string }
  | { kind: "amount"; amountCents: number; paymentCode: string | null };

/** A refund that cannot be made as asked: the message says why, for the operator. */
export class OrderRefundRefused extends Error {
  override name = "OrderRefundRefused";
}

export type OrderRefundDecision = {
  /** The refunds recorded, to be sent to the gateway. */
  refunds: RefundRecord[];
  /** A whole-order refund of an order refunded before: only what went back failed is tried again. */
  alreadyRefunded: boolean;
  /** The order moved to `refunded` now. */
  orderRefunded: boolean;
  grantsEnded: number;
  subscriptionEnded: boolean;
  /** EDU grants moved back to where access now ends. */
  eduMoved: number;
};

export async function decideOrderRefund(
  tx: Transaction,
  { orderId, userId, orderCode }: { orderId: string; userId: string; orderCode: string },
  request: OrderRefundRequest,
  requestedBy: string,
  at: Date,
): Promise<OrderRefundDecision> {
  // The customer's lock orders this after any activation or month being recorded for them, and
  // the order's row lock makes a second refund wait, then find what the first one did.
  await lockCustomer(tx, userId);
  const [current] = await tx.select({ status: orders.status }).from(orders).where(eq(orders.id, orderId)).for("update");
  const alreadyRefunded = current!.status === "refunded";
  if (alreadyRefunded && request.kind !== "order") throw new OrderRefundRefused(`Order ${orderCode} was refunded whole already`);
  if (!alreadyRefunded && current!.status !== "payed") {
    throw new OrderRefundRefused(`Order ${orderCode} is '${current!.status}': only a paid order is refunded`);
  }
  const paid = await tx
    .select({ id: payments.id, paymentCode: payments.paymentCode, periodId: payments.subscriptionPeriodId })
    .from(payments)
    .where(eq(payments.orderId, orderId))
    .orderBy(asc(payments.paidAt), asc(payments.paymentCode));
  if (paid.length === 0) {
    throw new OrderRefundRefused(
      `Order ${orderCode} has no payment to give back (a code's free activation?): use customer:revoke to end its access`,
    );
  }
  const sub = await lockSubscriptionOf(tx, orderId, orderCode);
  const refund = (paymentId: string, cover: RefundCover) =>
    requestRefund(tx, { paymentId, cover, reason: "operator", requestedBy }, at);
  const decision: OrderRefundDecision = {
    refunds: [],
    alreadyRefunded,
    orderRefunded: false,
    grantsEnded: 0,
    subscriptionEnded: false,
    eduMoved: 0,
  };

  const [edu] = await tx.select({ id: products.id }).from(products).where(eq(products.code, EDU_PRODUCT_CODE));
  let eduCut = false;
  /** Ends the order's grants that match now; notes whether EDU access was cut. */
  async function endGrants(which: SQL | undefined) {
    const ended = await endEntitlements(tx, and(eq(entitlements.orderId, orderId), which), at);
    decision.grantsEnded += ended.length;
    eduCut ||= ended.some((grant) => grant.productId === edu?.id);
  }

  /** The order is given back whole: the access it gave ends, its subscription too, its coupon use returns. */
  async function closeOrder() {
    await endGrants(undefined);
    decision.subscriptionEnded = (await endSubscriptionsNow(tx, eq(subscriptions.orderId, orderId), "refunded", at)).length > 0;
    await tx
      .update(orders)
      .set({ status: "refunded", updatedAt: at })
      .where(and(eq(orders.id, orderId), eq(orders.status, "payed")));
    await releaseCoupon(tx, orderId);
    decision.orderRefunded = true;
  }

  switch (request.kind) {
    case "order": {
      for (const payment of paid) {
        const made = await refund(payment.id, { kind: "payment" });
        if (made) decision.refunds.push(made);
      }
      if (!alreadyRefunded) await closeOrder();
      break;
    }
    case "line": {
      if (sub)
        throw new OrderRefundRefused(`Order ${orderCode} is an EDU subscription: refund a month (--payment) or the whole order`);
      const [line] = await tx
        .select({ id: orderItems.id, productId: orderItems.productId })
        .from(orderItems)
        .innerJoin(products, eq(products.id, orderItems.productId))
        .where(
          and(
            eq(orderItems.orderId, orderId),
            or(eq(products.sku, request.product.trim()), eq(products.code, request.product.trim())),
          ),
        );
      if (!line) throw new OrderRefundRefused(`Order ${orderCode} has no line of ${request.product}`);
      const payment = paid[0]!;
      decision.refunds.push(
        await refuseWhenNothingLeft(refund(payment.id, { kind: "line", orderItemId: line.id }), `That line of ${orderCode}`),
      );
      await endGrants(eq(entitlements.productId, line.productId));
      const linesKept = (await keptParts(tx, payment.id)).filter((part) => part.orderItemId !== null && part.cents > 0);
      if (linesKept.length === 0) await closeOrder();
      break;
    }
    case "month": {
      const payment = paid.find((p) => p.paymentCode === request.paymentCode.trim());
      if (!payment) throw new OrderRefundRefused(`Order ${orderCode} has no payment ${request.paymentCode}`);
      if (!sub || !payment.periodId) {
        throw new OrderRefundRefused(
          `${request.paymentCode} pays no month of an EDU subscription: refund the order whole, a line or an amount`,
        );
      }
      const made = await refund(payment.id, { kind: "payment" });
      if (!made) throw new OrderRefundRefused(`Payment ${request.paymentCode} was given back already`);
      decision.refunds.push(made);
      const [month] = await tx.select().from(subscriptionPeriods).where(eq(subscriptionPeriods.id, payment.periodId));
      await endGrants(and(eq(entitlements.source, "subscription"), eq(entitlements.startsAt, month!.startsAt)));
      break;
    }
    case "amount": {
      const payment = request.paymentCode ? paid.find((p) => p.paymentCode === request.paymentCode!.trim()) : paid[0];
      if (!payment) throw new OrderRefundRefused(`Order ${orderCode} has no payment ${request.paymentCode}`);
      if (!request.paymentCode && paid.length > 1) {
        throw new OrderRefundRefused(`Order ${orderCode} has ${paid.length} payments (its months): name one with --payment`);
      }
      decision.refunds.push(
        await refuseWhenNothingLeft(
          refund(payment.id, { kind: "amount", amountCents: request.amountCents }),
          `Payment ${payment.paymentCode}`,
        ),
      );
      break;
    }
  }
  // EDU stacked after access this refund cut short starts where access now ends.
  if (eduCut) {
    const moved = await closeEduGap(tx, userId, at);
    await followMovedFreeMonths(tx, userId, moved, at);
    decision.eduMoved = moved.length;
  }
  return decision;
}

/** The subscription the order started, its months locked so that none is claimed for a charge meanwhile. */
async function lockSubscriptionOf(tx: Transaction, orderId: string, orderCode: string) {
  const [sub] = await tx.select({ id: subscriptions.id }).from(subscriptions).where(eq(subscriptions.orderId, orderId));
  if (!sub) return null;
  const months = await tx
    .select({ status: subscriptionPeriods.status })
    .from(subscriptionPeriods)
    .where(eq(subscriptionPeriods.subscriptionId, sub.id))
    .for("update");
  // A month being charged would be recorded after the refund: the operator waits for it.
  if (months.some((m) => m.status === "charging")) {
    throw new OrderRefundRefused(
      `A month of the subscription of order ${orderCode} is being charged right now: try again in a few minutes`,
    );
  }
  return sub;
}

/** The refund, or the operator told how much is left when it is less than asked. */
async function refuseWhenNothingLeft(made: Promise<RefundRecord | null>, what: string): Promise<RefundRecord> {
  try {
    const refund = await made;
    if (refund) return refund;
    throw new RefundNotPossible(0);
  } catch (error) {
    if (!(error instanceof RefundNotPossible)) throw error;
    throw new OrderRefundRefused(`${what} has ${formatEuro(error.leftCents)} left to refund`);
  }
}
