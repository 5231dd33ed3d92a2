// Giving money back (README, "Operators' commands"): the whole of a charge goes back to the card it
// came from. Two reasons: a charge that succeeded for an order that could no longer take it (the
// payment is recorded, then refunded: never only logged), and an operator's refund of an order
// (`npm run admin -- orders:refund`). A refund is decided in a transaction, which enqueues a job
// for it (queue `refunds`, keyed by the charge): the job calls the gateway with an idempotency key
// derived from the charge and records the refund on the payment, so however often it runs, and
// whoever runs it (an instance's tick, the operator's command), the charge is refunded once.
import { and, eq } from "drizzle-orm";
import type { Database, Queryable } from "../db/client.ts";
import { payments } from "../db/schema.ts";
import { enqueueJob, type JobRunner, type NewJob } from "../jobs/runner.ts";
import { systemClock, type Clock } from "../lib/clock.ts";
import type { Logger } from "../logger.ts";
import type { PaymentGateway } from "./gateway.ts";

const REFUND_QUEUE = "refunds";

/**
 * Why money goes back: `order_closed`, a checkout's charge succeeded after its order had left
 * `waitforpayment`; `edu_already_active`, an EDU checkout's charge succeeded after EDU became
 * active (decision 024); `stray_charge`, a subscription month's charge succeeded after its try was
 * recorded as failed (never recorded as a payment); `operator`, an operator's refund.
 */
type RefundReason = "order_closed" | "edu_already_active" | "stray_charge" | "operator";

/** A recorded payment to refund, or a charge that was never recorded as one. */
export type RefundJob = { paymentId: string; reason: RefundReason } | { chargeId: string; reason: RefundReason };

/** The job that refunds a payment (or a charge), enqueued in the caller's transaction. */
export async function enqueueRefund(tx: Queryable, job: RefundJob, at: Date): Promise<void> {
  const target = "paymentId" in job ? `payment:${job.paymentId}` : `charge:${job.chargeId}`;
  const spec: NewJob = { queue: REFUND_QUEUE, key: `${REFUND_QUEUE}:${target}`, payload: job, runAt: at };
  await enqueueJob(tx, spec, at);
}

const refundKey = (chargeId: string) => `portal:refund:${chargeId}`;

export type RefundOutcome = { state: "refunded"; refundRef: string } | { state: "not_found" };

export function createRefunds({
  db,
  gateway,
  runner,
  log,
  now = systemClock,
}: {
  db: Database;
  gateway: PaymentGateway;
  runner: JobRunner;
  log: Logger;
  now?: Clock;
}) {
  /** The whole charge given back at the gateway, once per charge; throws when the gateway refuses (the job is tried again). */
  async function refundCharge(chargeId: string, metadata: Record<string, string>) {
    const refund = await gateway.refundCharge(chargeId, { idempotencyKey: refundKey(chargeId), metadata });
    if (refund.status === "failed") throw new Error(`The gateway refused the refund of charge ${chargeId}`);
    return refund;
  }

  /**
   * Refunds a recorded payment at the gateway and records it (status `refunded`, when, the
   * provider's refund). A payment refunded already answers as it stands. Throws when the gateway
   * refuses: the job is tried again, then reported to an operator.
   */
  async function refundPayment(paymentId: string): Promise<RefundOutcome> {
    const [payment] = await db.select().from(payments).where(eq(payments.id, paymentId));
    if (!payment) return { state: "not_found" };
    if (payment.status === "refunded" && payment.refundRef) return { state: "refunded", refundRef: payment.refundRef };
    const refund = await refundCharge(payment.chargeId, { payment_id: payment.id, order_id: payment.orderId });
    await db
      .update(payments)
      .set({ status: "refunded", refundedAt: now(), refundRef: refund.id })
      .where(and(eq(payments.id, payment.id), eq(payments.status, "payed")));
    log.info({ paymentId: payment.id, orderId: payment.orderId, refundRef: refund.id }, "payment refunded");
    return { state: "refunded", refundRef: refund.id };
  }

  runner.handle(REFUND_QUEUE, async (job: RefundJob) => {
    if ("paymentId" in job) {
      await refundPayment(job.paymentId);
      return;
    }
    const refund = await refundCharge(job.chargeId, {});
    log.warn({ chargeId: job.chargeId, refundRef: refund.id, reason: job.reason }, "a charge no payment records was refunded");
  });

  return { refundPayment };
}
