// Giving money back (docs/payments.md, "Refunds"). A refund is a row of its own
// (`payment_refunds`): the payment it gives back from, how much and what of the order it covers
// (the whole payment, an amount, one line), why, and where it stands at the gateway (`pending`,
// then `succeeded` or `failed`). It is decided in a transaction of the caller's (an operator's
// refund, a charge the portal could not keep) that locks the payment's row, checks that the refunds
// not failed stay within what the payment took, inserts the row and queues a job (queue `refunds`,
// keyed by the row). The job, or the operator's command at once, calls the gateway outside any
// transaction with an idempotency key made of the row's id, and records its answer. A refund the
// gateway reports pending is completed when it says so: Stripe's refund events through the webhook,
// and a sweep that reads pending refunds again at the gateway (an event may be lost; the sandbox
// sends none). A refund that succeeds queues its credit note when the payment was invoiced
// (server/invoices/service.ts). A failed refund is an error in the log with its order's code, and
// the operators list it (`orders:refunds --state failed`).
import { and, asc, eq, inArray, lte, ne, sql } from "drizzle-orm";
import type { Database, Queryable } from "#server/db/client.ts";
import { orderItems, orders, paymentRefunds, payments, type RefundPart, type RefundReason } from "#server/db/schema/index.ts";
import { enqueueJob, type JobRunner, type NewJob } from "#server/jobs/runner.ts";
import { systemClock, type Clock } from "#server/lib/clock.ts";
import { isGatewayRef } from "#server/lib/ids.ts";
import { isUuid } from "#server/lib/uuid.ts";
import type { Logger } from "#server/logger.ts";
import type { Metrics } from "#server/metrics.ts";
import { allocateProportionally } from "#shared/commerce-constants.ts";
import { orderParts, sharesOf } from "#shared/order-totals.ts";
import { enqueueCreditNote } from "#server/invoices/service.ts";
import type { PaymentGateway, Refund } from "./gateway.ts";

const REFUND_QUEUE = "refunds";

/** How long a pending refund waits before the sweep asks the gateway again. */
export const REFUND_CHECK_INTERVAL_MS = 30 * 60_000;

export type RefundRecord = typeof paymentRefunds.$inferSelect;

/** What a refund gives back of its payment: all it still keeps, an amount, or one order line's share. */
export type RefundCover = { kind: "payment" } | { kind: "amount"; amountCents: number } | { kind: "line"; orderItemId: string };

/** A refund that cannot be made: more asked than the payment (or the line) still keeps. */
export class RefundNotPossible extends Error {
  override name = "RefundNotPossible";
  /** What the payment, or the line, still keeps. */
  readonly leftCents: number;
  constructor(leftCents: number) {
    super(`Only ${leftCents} cents are left to refund`);
    this.leftCents = leftCents;
  }
}

const sum = (rows: readonly { cents: number }[]) => rows.reduce((total, row) => total + row.cents, 0);

/**
 * What each part of its order a payment still keeps: its share of each line and of the shipping
 * (as its receipt and e-invoice split it), less what the refunds not failed took from that part.
 */
export async function keptParts(tx: Queryable, paymentId: string): Promise<RefundPart[]> {
  const [payment] = await tx
    .select({
      amountCents: payments.amountCents,
      orderId: payments.orderId,
      discountCents: orders.discountCents,
      shipmentPriceCents: orders.shipmentPriceCents,
    })
    .from(payments)
    .innerJoin(orders, eq(orders.id, payments.orderId))
    .where(eq(payments.id, paymentId));
  if (!payment) throw new Error(`Payment ${paymentId} does not exist`);
  const [items, given] = await Promise.all([
    tx
      .select({ id: orderItems.id, totalCents: orderItems.totalCents, vatRateBps: orderItems.vatRateBps })
      .from(orderItems)
      .where(eq(orderItems.orderId, payment.orderId))
      .orderBy(asc(orderItems.description), asc(orderItems.id)),
    tx
      .select({ parts: paymentRefunds.parts })
      .from(paymentRefunds)
      .where(and(eq(paymentRefunds.paymentId, paymentId), ne(paymentRefunds.state, "failed"))),
  ]);
  const subtotal = items.reduce((total, item) => total + item.totalCents, 0);
  const parts = orderParts(items, Math.min(payment.discountCents, subtotal), payment.shipmentPriceCents);
  const kept = sharesOf(payment.amountCents, parts).map((share, i) => ({
    orderItemId: items[i]?.id ?? null,
    cents: share.cents,
    vatRateBps: share.rateBps,
  }));
  for (const { parts: taken } of given) {
    // Recorded before refunds had parts: it gave the whole payment back.
    if (taken === null) return kept.map((part) => ({ ...part, cents: 0 }));
    for (const part of taken) {
      const from = kept.find((k) => k.orderItemId === part.orderItemId);
      if (from) from.cents -= part.cents;
    }
  }
  return kept;
}

/**
 * Decides a refund of a payment, in the caller's transaction: the payment's row is locked, what
 * it still keeps is read, and the refund (never more than that) is recorded `pending` with the
 * job that sends it to the gateway. A whole-payment refund of a payment with nothing left answers
 * null; an amount or a line with less left than asked throws RefundNotPossible.
 */
export async function requestRefund(
  tx: Queryable,
  { paymentId, cover, reason, requestedBy }: { paymentId: string; cover: RefundCover; reason: RefundReason; requestedBy: string },
  at: Date,
): Promise<RefundRecord | null> {
  // The payment's row lock: refunds of one payment are decided one at a time, each seeing the others.
  await tx.select({ id: payments.id }).from(payments).where(eq(payments.id, paymentId)).for("update");
  const kept = await keptParts(tx, paymentId);
  const left = sum(kept);
  let parts: RefundPart[];
  if (cover.kind === "payment") parts = kept;
  else if (cover.kind === "line") {
    parts = kept.filter((part) => part.orderItemId === cover.orderItemId);
    if (sum(parts) === 0) throw new RefundNotPossible(0);
  } else {
    if (!Number.isSafeInteger(cover.amountCents) || cover.amountCents < 1 || cover.amountCents > left) {
      throw new RefundNotPossible(left);
    }
    // An amount is taken from every part in proportion to what each keeps, so a credit note for
    // it carries the VAT the payment's invoice did.
    const shares = allocateProportionally(
      cover.amountCents,
      kept.map((part) => part.cents),
    );
    parts = kept.map((part, i) => ({ ...part, cents: shares[i]! }));
  }
  parts = parts.filter((part) => part.cents > 0);
  const amountCents = sum(parts);
  if (amountCents === 0) {
    if (cover.kind === "payment") return null;
    throw new RefundNotPossible(left);
  }
  const [refund] = await tx
    .insert(paymentRefunds)
    .values({
      paymentId,
      scope: cover.kind,
      orderItemId: cover.kind === "line" ? cover.orderItemId : null,
      amountCents,
      parts,
      reason,
      requestedBy,
      requestedAt: at,
      nextCheckAt: new Date(at.getTime() + REFUND_CHECK_INTERVAL_MS),
      createdAt: at,
    })
    .returning();
  await enqueueJob(tx, refundJob({ refundId: refund!.id }, refund!.id, at), at);
  return refund!;
}

/**
 * A job of the `refunds` queue: a recorded refund to send; a charge that was never recorded as a
 * payment (`stray_charge`: a subscription month's charge that succeeded after its try was
 * recorded as failed), given back whole; or, queued before refunds had their own table, a
 * payment to give back whole.
 */
type RefundJob =
  { refundId: string } | { chargeId: string; reason: "stray_charge" } | { paymentId: string; reason: RefundReason };

const refundJob = (payload: RefundJob, key: string, at: Date): NewJob => ({
  queue: REFUND_QUEUE,
  key: `${REFUND_QUEUE}:${key}`,
  payload,
  runAt: at,
});

/**
 * Gives back the whole of what a payment still keeps (a charge for an order that could no longer
 * take it), or the whole of a charge never recorded as a payment: decided in the caller's
 * transaction, sent by the job runner.
 */
export async function enqueueRefund(
  tx: Queryable,
  job: { paymentId: string; reason: RefundReason } | { chargeId: string; reason: "stray_charge" },
  at: Date,
): Promise<void> {
  if ("paymentId" in job) {
    await requestRefund(
      tx,
      { paymentId: job.paymentId, cover: { kind: "payment" }, reason: job.reason, requestedBy: "portal" },
      at,
    );
  } else {
    await enqueueJob(tx, refundJob(job, `charge:${job.chargeId}`, at), at);
  }
}

/**
 * Records what the gateway says of a pending refund (its id, its status), in one transaction: a
 * refund ends once (a conditional UPDATE from `pending`), and the payment it completes becomes
 * `refunded` when its succeeded refunds reach its amount. Returns the refund as it stands, and
 * whether this call ended it.
 */
async function recordRefundOutcome(
  db: Database,
  refundId: string,
  answer: Refund,
  at: Date,
): Promise<{ refund: RefundRecord; ended: boolean }> {
  return db.transaction(async (tx) => {
    const ended = answer.status !== "pending";
    const [updated] = await tx
      .update(paymentRefunds)
      .set({
        gatewayRefundId: answer.id ?? sql`${paymentRefunds.gatewayRefundId}`,
        gatewayStatus: answer.gatewayStatus,
        ...(ended
          ? { state: answer.status, completedAt: at, failureReason: answer.failureReason, nextCheckAt: null }
          : { nextCheckAt: new Date(at.getTime() + REFUND_CHECK_INTERVAL_MS) }),
      })
      .where(and(eq(paymentRefunds.id, refundId), eq(paymentRefunds.state, "pending")))
      .returning();
    if (!updated) {
      const [current] = await tx.select().from(paymentRefunds).where(eq(paymentRefunds.id, refundId));
      return { refund: current!, ended: false };
    }
    if (updated.state === "succeeded") {
      // The money went back: an invoiced payment's credit note is due (decision 025).
      await enqueueCreditNote(tx, updated, at);
      const [payment] = await tx
        .select({ amountCents: payments.amountCents })
        .from(payments)
        .where(eq(payments.id, updated.paymentId))
        .for("update");
      const [back] = await tx
        .select({ cents: sql<number>`coalesce(sum(${paymentRefunds.amountCents}), 0)` })
        .from(paymentRefunds)
        .where(and(eq(paymentRefunds.paymentId, updated.paymentId), eq(paymentRefunds.state, "succeeded")));
      if (Number(back!.cents) >= payment!.amountCents) {
        await tx
          .update(payments)
          .set({ status: "refunded", refundedAt: at })
          .where(and(eq(payments.id, updated.paymentId), eq(payments.status, "payed")));
      }
    }
    return { refund: updated, ended };
  });
}

const refundKey = (refundId: string) => `portal:refund:${refundId}`;

export function createRefunds({
  db,
  gateway,
  runner,
  log,
  now = systemClock,
  metrics,
}: {
  db: Database;
  gateway: PaymentGateway;
  runner: JobRunner;
  log: Logger;
  now?: Clock;
  /** Where refunds completed are counted (server/metrics.ts). */
  metrics?: Metrics;
}) {
  /**
   * Sends a pending refund to the gateway (the same key every time: however often this runs, and
   * whoever runs it, the money goes back once), or reads it again there when it was sent, and
   * records the answer. Throws when the gateway cannot be reached (the job tries again).
   */
  async function processRefund(refundId: string): Promise<RefundRecord | null> {
    const [row] = await db
      .select({
        refund: paymentRefunds,
        chargeId: payments.chargeId,
        orderId: payments.orderId,
        paymentCode: payments.paymentCode,
        orderCode: orders.orderCode,
      })
      .from(paymentRefunds)
      .innerJoin(payments, eq(payments.id, paymentRefunds.paymentId))
      .innerJoin(orders, eq(orders.id, payments.orderId))
      .where(eq(paymentRefunds.id, refundId));
    if (!row) return null;
    if (row.refund.state !== "pending") return row.refund;
    const answer = row.refund.gatewayRefundId
      ? await gateway.retrieveRefund(row.refund.gatewayRefundId)
      : await gateway.refundCharge(row.chargeId, {
          amountCents: row.refund.amountCents,
          idempotencyKey: refundKey(refundId),
          metadata: { refund_id: refundId, payment_id: row.refund.paymentId, order_id: row.orderId },
        });
    if (!answer) {
      log.warn({ refundId, gatewayRefundId: row.refund.gatewayRefundId }, "the gateway does not know a pending refund");
      return row.refund;
    }
    const { refund, ended } = await recordRefundOutcome(db, refundId, answer, now());
    const where = { refundId, orderCode: row.orderCode, paymentCode: row.paymentCode, amountCents: refund.amountCents };
    if (ended && refund.state === "failed") {
      // The operator's to mend (`orders:refunds --state failed`, then `orders:refund` again).
      log.error({ ...where, failureReason: refund.failureReason }, "a refund failed: the money did not go back to the customer");
    } else if (ended) {
      log.info(where, "refund succeeded");
      metrics?.payments.refunded.inc({ gateway: gateway.name });
    }
    return refund;
  }

  /** The sweep: pending refunds due for a check are claimed (their next check moved on) and read again at the gateway. */
  async function checkPendingRefunds(at: Date, limit: number): Promise<number> {
    const due = db
      .select({ id: paymentRefunds.id })
      .from(paymentRefunds)
      .where(and(eq(paymentRefunds.state, "pending"), lte(paymentRefunds.nextCheckAt, at)))
      .orderBy(asc(paymentRefunds.nextCheckAt))
      .limit(limit)
      .for("update", { skipLocked: true });
    const claimed = await db
      .update(paymentRefunds)
      .set({ nextCheckAt: new Date(at.getTime() + REFUND_CHECK_INTERVAL_MS) })
      .where(and(inArray(paymentRefunds.id, due), eq(paymentRefunds.state, "pending")))
      .returning({ id: paymentRefunds.id });
    for (const { id } of claimed) {
      try {
        await processRefund(id);
      } catch (err) {
        log.warn({ err, refundId: id }, "a pending refund could not be checked at the gateway; the sweep tries again");
      }
    }
    return claimed.length;
  }

  runner.sweep("pending-refunds", checkPendingRefunds);
  runner.handle(REFUND_QUEUE, async (job: RefundJob) => {
    if ("refundId" in job) {
      await processRefund(job.refundId);
    } else if ("paymentId" in job) {
      const refund = await db.transaction((tx) =>
        requestRefund(
          tx,
          { paymentId: job.paymentId, cover: { kind: "payment" }, reason: job.reason, requestedBy: "portal" },
          now(),
        ),
      );
      if (refund) await processRefund(refund.id);
    } else {
      const refund = await gateway.refundCharge(job.chargeId, { idempotencyKey: refundKey(job.chargeId), metadata: {} });
      if (refund.status === "failed") {
        log.error(
          { chargeId: job.chargeId, failureReason: refund.failureReason },
          "a charge no payment records could not be refunded",
        );
      } else {
        log.warn(
          { chargeId: job.chargeId, refundRef: refund.id, status: refund.status },
          "a charge no payment records was refunded",
        );
      }
    }
  });

  return {
    processRefund,
    /**
     * The gateway says a refund moved (Stripe's refund.updated and refund.failed): it is read
     * there again and recorded. Found by the gateway's id, or by the portal's id in its metadata
     * (an event can come before the portal recorded the gateway's answer); an unknown one does nothing.
     */
    async onGatewayRefund(gatewayRefundId: string, portalRefundId: string | undefined): Promise<RefundRecord | null> {
      if (!isGatewayRef(gatewayRefundId)) return null;
      const [known] = await db
        .select({ id: paymentRefunds.id })
        .from(paymentRefunds)
        .where(
          portalRefundId && isUuid(portalRefundId)
            ? sql`${paymentRefunds.gatewayRefundId} = ${gatewayRefundId} or ${paymentRefunds.id} = ${portalRefundId}`
            : eq(paymentRefunds.gatewayRefundId, gatewayRefundId),
        );
      return known ? processRefund(known.id) : null;
    },
  };
}

/**
 * A refund as the customer sees it: money given back (`at`: the day it went back), or on its
 * way (`at`: the day it was decided). A failed refund gave nothing back: it is the operators' to
 * mend and is not shown.
 */
export type CustomerRefund = { amountCents: number; state: "pending" | "succeeded"; at: Date };

/** The columns a customer's view reads of a refund. */
export const customerRefundColumns = {
  paymentId: paymentRefunds.paymentId,
  scope: paymentRefunds.scope,
  amountCents: paymentRefunds.amountCents,
  state: paymentRefunds.state,
  requestedAt: paymentRefunds.requestedAt,
  completedAt: paymentRefunds.completedAt,
};
type CustomerRefundRow = Pick<RefundRecord, keyof typeof customerRefundColumns>;

/** The refunds of these payments, oldest first (the views group them by payment). */
export function refundsOfPayments(db: Queryable, paymentIds: readonly string[]): Promise<CustomerRefundRow[]> {
  if (paymentIds.length === 0) return Promise.resolve([]);
  return db
    .select(customerRefundColumns)
    .from(paymentRefunds)
    .where(inArray(paymentRefunds.paymentId, [...paymentIds]))
    .orderBy(asc(paymentRefunds.requestedAt), asc(paymentRefunds.id));
}

/** What the customer is shown of a payment's refunds (see CustomerRefund). */
export function customerRefundsOf(rows: readonly CustomerRefundRow[], paymentId: string): CustomerRefund[] {
  return rows.flatMap((row) =>
    row.paymentId !== paymentId || row.state === "failed"
      ? []
      : [{ amountCents: row.amountCents, state: row.state, at: row.completedAt ?? row.requestedAt }],
  );
}
