// Operators' commands for an order: show it whole (its refunds too), refund it (whole, a line,
// an EDU month or an amount), and list the refunds in a state, each with its credit note once
// issued. What a refund does is decided in one transaction (server/commerce/order-refunds.ts) that
// also records the refunds and queues them (server/payments/refunds.ts); the command then sends
// them to the gateway at once, and issues the credit note of an invoiced payment's refund that
// succeeded (server/invoices/service.ts). Should the gateway be unreachable,
// the queued jobs retry them on the running portal; a refund the gateway holds pending is
// completed by its notification or the portal's sweep, which queues its credit note then.
import { and, asc, desc, eq, inArray, type SQL } from "drizzle-orm";
import {
  entitlements,
  invoices,
  orderItems,
  orders,
  paymentRefunds,
  payments,
  products,
  subscriptions,
  users,
  type RefundState,
} from "#server/db/schema/index.ts";
import { decideOrderRefund, OrderRefundRefused, type OrderRefundRequest } from "#server/commerce/order-refunds.ts";
import { isOrderCode } from "#server/lib/ids.ts";
import { InvoicingNotConfigured, LateInvoice } from "#server/invoices/service.ts";
import { OperatorError, recordOperation, type Operator } from "./context.ts";
import type { Queryable } from "#server/db/client.ts";

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
};

const paymentsOf = (db: Queryable, orderId: string) =>
  db.select(paymentColumns).from(payments).where(eq(payments.orderId, orderId)).orderBy(asc(payments.paidAt));

/** Refunds as operators see them: of which payment and order, what they cover, where they stand. */
const refundRows = (db: Queryable, where: SQL | undefined) =>
  db
    .select({
      id: paymentRefunds.id,
      orderCode: orders.orderCode,
      email: users.email,
      paymentCode: payments.paymentCode,
      gateway: payments.gateway,
      scope: paymentRefunds.scope,
      /** The line a `line` refund gave back. */
      sku: products.sku,
      amountCents: paymentRefunds.amountCents,
      reason: paymentRefunds.reason,
      state: paymentRefunds.state,
      gatewayStatus: paymentRefunds.gatewayStatus,
      gatewayRefundId: paymentRefunds.gatewayRefundId,
      failureReason: paymentRefunds.failureReason,
      requestedBy: paymentRefunds.requestedBy,
      requestedAt: paymentRefunds.requestedAt,
      completedAt: paymentRefunds.completedAt,
      /** Its credit note (TD04), once issued: its number and date. */
      creditNote: invoices.documentNumber,
      creditNoteDate: invoices.date,
    })
    .from(paymentRefunds)
    .innerJoin(payments, eq(payments.id, paymentRefunds.paymentId))
    .innerJoin(orders, eq(orders.id, payments.orderId))
    .innerJoin(users, eq(users.id, orders.userId))
    .leftJoin(orderItems, eq(orderItems.id, paymentRefunds.orderItemId))
    .leftJoin(products, eq(products.id, orderItems.productId))
    .leftJoin(invoices, eq(invoices.refundId, paymentRefunds.id))
    .where(where);

export type RefundRow = Awaited<ReturnType<typeof refundRows>>[number];

/** The order, its customer, lines, payments and their refunds, the grants it gave and the subscription it started. */
export async function showOrder(op: Operator, orderCode: string) {
  const { db } = op;
  const order = await orderByCode(db, orderCode);
  const [items, paid, refunds, grants, subscription] = await Promise.all([
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
    refundRows(db, eq(orders.id, order.id)).orderBy(asc(paymentRefunds.requestedAt), asc(payments.paymentCode)),
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
  return {
    ...shown,
    items,
    payments: paid.map((payment) => ({
      ...payment,
      refundedCents: refunds
        .filter((r) => r.paymentCode === payment.paymentCode && r.state === "succeeded")
        .reduce((sum, r) => sum + r.amountCents, 0),
    })),
    refunds,
    entitlements: grants,
    subscription: subscription[0] ?? null,
  };
}

/** A refund the command made, and how the gateway answered it. */
type RefundMade = {
  paymentCode: string;
  scope: RefundRow["scope"];
  amountCents: number;
  gateway: string;
  /** `queued`: the gateway could not be reached now; the portal's job runner sends it. */
  state: RefundState | "queued";
  gatewayRefundId: string | null;
  /** Why it failed (the gateway's reason), or why it is queued. */
  error: string | null;
  /** The e-invoice of the payment given back from: the refund's credit note corrects it. */
  invoice: string | null;
  /** The credit note issued when the money went back at once. */
  creditNote: { documentNumber: string; date: string } | null;
};

export type RefundResult = {
  orderCode: string;
  email: string | null;
  /** A whole-order refund of an order refunded before: only money whose refund failed was asked again. */
  alreadyRefunded: boolean;
  /** The order moved to `refunded` now (a whole refund, or its last line). */
  orderRefunded: boolean;
  grantsEnded: number;
  subscriptionEnded: boolean;
  /** EDU grants moved back to where access now ends. */
  eduMoved: number;
  refunds: RefundMade[];
};

/**
 * A refund's credit note, issued by the command rather than left to the portal's job runner; one
 * that cannot be issued now (its invoice is late, or the seller's data is missing) stays with its
 * job and `invoices:issue-missing`, and the command says so.
 */
async function issueCreditNoteNow(op: Operator, refundId: string) {
  try {
    await op.services.invoices.issueCreditNote(refundId);
  } catch (error) {
    if (!(error instanceof LateInvoice || error instanceof InvoicingNotConfigured)) throw error;
  }
}

/**
 * `orders:refund`: gives back the whole order, a line, an EDU month or an amount (see
 * server/commerce/order-refunds.ts for what each ends), then sends the refunds to the gateway and
 * issues the credit notes of those that succeeded, when their payments were invoiced.
 */
export async function refundOrder(
  op: Operator,
  orderCode: string,
  request: OrderRefundRequest = { kind: "order" },
): Promise<RefundResult> {
  const { db, services } = op;
  const order = await orderByCode(db, orderCode);
  const at = services.clock();

  let decided;
  try {
    decided = await db.transaction(async (tx) => {
      const decision = await decideOrderRefund(
        tx,
        { orderId: order.id, userId: order.userId, orderCode: order.orderCode },
        request,
        op.actor,
        at,
      );
      await recordOperation(tx, op, "order_refunded", {
        userId: order.userId,
        details: {
          orderCode: order.orderCode,
          request,
          alreadyRefunded: decision.alreadyRefunded,
          refunds: decision.refunds.map((r) => ({ id: r.id, scope: r.scope, amountCents: r.amountCents })),
          amountCents: decision.refunds.reduce((sum, r) => sum + r.amountCents, 0),
          grantsEnded: decision.grantsEnded,
          subscriptionEnded: decision.subscriptionEnded,
          eduMoved: decision.eduMoved,
        },
      });
      return decision;
    });
  } catch (error) {
    if (error instanceof OrderRefundRefused) throw new OperatorError(error.message);
    throw error;
  }

  // The money, now: the refund job's own work (idempotent, keyed by the refund), so a run
  // repeated or racing this one, or the job, gives it back once.
  const unreachable = new Map<string, string>();
  for (const refund of decided.refunds) {
    try {
      const sent = await services.refunds.processRefund(refund.id);
      // It went through and queued its credit note: issued now, the job's own work (safe to race).
      if (sent?.state === "succeeded") await issueCreditNoteNow(op, refund.id);
    } catch (error) {
      unreachable.set(refund.id, error instanceof Error ? error.message : String(error));
    }
  }

  const ids = decided.refunds.map((r) => r.id);
  const rows = ids.length ? await refundRows(db, inArray(paymentRefunds.id, ids)) : [];
  const invoiced = ids.length
    ? await db
        .select({ paymentCode: payments.paymentCode, documentNumber: invoices.documentNumber })
        .from(invoices)
        .innerJoin(payments, eq(payments.id, invoices.paymentId))
        .where(and(eq(payments.orderId, order.id), eq(invoices.type, "TD01")))
    : [];
  const refunds = ids.map((id): RefundMade => {
    const row = rows.find((r) => r.id === id)!;
    const queued = row.state === "pending" && unreachable.has(id);
    return {
      paymentCode: row.paymentCode,
      scope: row.scope,
      amountCents: row.amountCents,
      gateway: row.gateway,
      state: queued ? "queued" : row.state,
      gatewayRefundId: row.gatewayRefundId,
      error: queued ? unreachable.get(id)! : row.failureReason,
      invoice: invoiced.find((i) => i.paymentCode === row.paymentCode)?.documentNumber ?? null,
      creditNote: row.creditNote ? { documentNumber: row.creditNote, date: row.creditNoteDate! } : null,
    };
  });
  return {
    orderCode: order.orderCode,
    email: order.email,
    alreadyRefunded: decided.alreadyRefunded,
    orderRefunded: decided.orderRefunded,
    grantsEnded: decided.grantsEnded,
    subscriptionEnded: decided.subscriptionEnded,
    eduMoved: decided.eduMoved,
    refunds,
  };
}

/** How many refunds `orders:refunds` lists at most, newest first. */
const REFUNDS_LISTED = 200;

/** `orders:refunds`: the refunds in a state (all when none is named), newest first. */
export async function listRefunds(op: Operator, state: string | undefined): Promise<RefundRow[]> {
  if (state !== undefined && !(["pending", "succeeded", "failed"] as const).includes(state as RefundState)) {
    throw new OperatorError(`--state is pending, succeeded or failed, not "${state}"`);
  }
  const rows = await refundRows(op.db, state ? eq(paymentRefunds.state, state as RefundState) : undefined)
    .orderBy(desc(paymentRefunds.requestedAt), desc(paymentRefunds.id))
    .limit(REFUNDS_LISTED);
  await recordOperation(op.db, op, "refunds_listed", { details: { state: state ?? "any", count: rows.length } });
  return rows;
}
