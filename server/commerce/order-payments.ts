// An order paid by card, as the portal's doors use it: the payments engine (server/payments/
// service.ts: attempts, charges, settlement's claims, the reconciler) with commerce's settlement
// plugged in (settlement.ts: what the order becomes as money arrives), and `start`, commerce's
// side of 'Completa l'acquisto': the order's details written, its discount code's use counted,
// and only then an attempt opened at the payments engine.
import { and, eq, isNull } from "drizzle-orm";
import type { Database } from "#server/db/client.ts";
import { lockCustomer } from "#server/db/customer-lock.ts";
import { idempotent } from "#server/db/reconnecting-pool.ts";
import { coupons, orderItems, orders } from "#server/db/schema/index.ts";
import type { JobRunner } from "#server/jobs/runner.ts";
import { systemClock, type Clock } from "#server/lib/clock.ts";
import { isUuid } from "#server/lib/uuid.ts";
import type { Logger } from "#server/logger.ts";
import type { Metrics } from "#server/metrics.ts";
import type { MailService } from "#server/mail/service.ts";
import type { PaymentGateway } from "#server/payments/gateway.ts";
import { createPayments, type AttemptRow } from "#server/payments/service.ts";
import type { RateLimits } from "#server/security/rate-limits.ts";
import { totalsOf } from "#shared/order-totals.ts";
import { couponUsable, type CheckoutDetails } from "./checkout.ts";
import { CouponExhausted, reserveCoupon } from "./coupon-uses.ts";
import { eduForbidsPaying } from "./edu-sold-once.ts";
import { createSettlement } from "./settlement.ts";

export type StartResult =
  | { ok: true; setupId: string; clientSecret: string }
  | { ok: false; reason: "not_found" | "not_new" | "not_card" | "coupon_changed" | "edu_active" }
  | { ok: false; reason: "rate_limited"; retryAfterSeconds: number };

/** Thrown inside start's transaction to undo it: EDU is active, or a subscription of it lives (decision 024). */
class EduForbidsPaying extends Error {}

export type OrderPaymentsOptions = {
  db: Database;
  gateway: PaymentGateway;
  rateLimits: RateLimits;
  mail: MailService;
  runner: JobRunner;
  publicOrigin: string;
  log: Logger;
  now?: Clock;
  /** Where payments started, charged and declined are counted (server/metrics.ts). */
  metrics?: Metrics;
};

export function createOrderPayments({
  db,
  gateway,
  rateLimits,
  mail,
  runner,
  publicOrigin,
  log,
  now = systemClock,
  metrics,
}: OrderPaymentsOptions) {
  const settlement = createSettlement({ db, mail, runner, publicOrigin, log });
  const payments = createPayments({ db, gateway, settlement, publicOrigin, log, now, metrics });

  /** Takes a code that no longer applies off an order still `new`, with the totals without it. */
  async function dropCoupon(orderId: string, couponId: string, lines: { productId: string; totalCents: number }[]) {
    await db
      .update(orders)
      .set({ ...totalsOf(lines, null), couponId: null, couponCode: null, updatedAt: now() })
      .where(and(eq(orders.id, orderId), eq(orders.status, "new"), eq(orders.couponId, couponId)));
  }

  return {
    ...payments,

    /**
     * 'Completa l'acquisto' with the card: the details (validated by the page) are written and the
     * order moves to waitforpayment in one conditional UPDATE, so of two submits one goes on, and
     * only if its discount code is still the one this request read (a 'Rimuovi' or 'Applica' racing
     * it makes it start again from the page). The discount is recomputed now: a code that no longer
     * applies is dropped and the customer sees the new total before paying. The code's use is
     * counted against its caps in the same transaction (given back if the payment fails), and only
     * a request that starts a payment spends one of the customer's card payments of the hour.
     */
    async start(userId: string, orderId: string, details: CheckoutDetails): Promise<StartResult> {
      if (details.paymentHub !== "card") return { ok: false, reason: "not_card" };
      if (!isUuid(orderId)) return { ok: false, reason: "not_found" };
      const [order] = await db
        .select({ status: orders.status, couponId: orders.couponId })
        .from(orders)
        .where(and(eq(orders.id, orderId), eq(orders.userId, userId)));
      if (!order) return { ok: false, reason: "not_found" };
      if (order.status !== "new") return { ok: false, reason: "not_new" };

      const lines = await db
        .select({ productId: orderItems.productId, totalCents: orderItems.totalCents })
        .from(orderItems)
        .where(eq(orderItems.orderId, orderId));
      const at = now();
      const [applied] = order.couponId ? await db.select().from(coupons).where(eq(coupons.id, order.couponId)) : [];
      const coupon = applied && (await couponUsable(db, applied, { userId, lines, now: at })) ? applied : null;
      if (order.couponId && !coupon) {
        await dropCoupon(orderId, order.couponId, lines);
        return { ok: false, reason: "coupon_changed" };
      }
      const limit = await rateLimits.checkCardPayment(userId);
      if (!limit.ok) return { ok: false, reason: "rate_limited", retryAfterSeconds: limit.retryAfterSeconds };

      const totals = totalsOf(lines, coupon);
      let attempt: AttemptRow | null;
      try {
        // Repeated by the pool when PostgreSQL goes away under it (a crash): its work is only its
        // statements, and its UPDATE moves the order only from `new`. Rolled back, it runs again
        // and the payment goes on; committed before the answer was lost, the repeat finds the
        // order moved and opens nothing (the customer is told a payment is under way, as after a
        // second submit, and the attempt left unstarted is closed by the reconciler).
        attempt = await idempotent(db, () =>
          db.transaction(async (tx) => {
            await lockCustomer(tx, userId);
            // EDU that became active after the order was opened (an eBook+EDU code) is not sold
            // twice; settlement checks again, should it become active while the card step runs.
            if (await eduForbidsPaying(tx, { id: orderId, userId }, at)) throw new EduForbidsPaying();
            const moved = await tx
              .update(orders)
              .set({
                status: "waitforpayment",
                ...totals,
                paymentHub: "card",
                customerFirstname: details.customer.firstname,
                customerLastname: details.customer.lastname,
                customerEmail: details.customer.email,
                shipment: details.shipment,
                shipmentSave: details.shipmentSave && details.shipment !== null,
                hasBilling: details.billing !== null,
                billing: details.billing,
                billingSave: details.billingSave && details.billing !== null,
                termsSalesAt: at,
                termsCancelAt: at,
                updatedAt: at,
              })
              .where(
                and(
                  eq(orders.id, orderId),
                  eq(orders.userId, userId),
                  eq(orders.status, "new"),
                  order.couponId ? eq(orders.couponId, order.couponId) : isNull(orders.couponId),
                ),
              )
              .returning({ shipmentPriceCents: orders.shipmentPriceCents });
            if (moved.length === 0) return null;
            if (coupon) await reserveCoupon(tx, coupon, { orderId, userId }, at);
            return payments.openAttempt(tx, { orderId, amountCents: totals.totalCents + moved[0]!.shipmentPriceCents }, at);
          }),
        );
      } catch (error) {
        if (error instanceof EduForbidsPaying) return { ok: false, reason: "edu_active" };
        if (!(error instanceof CouponExhausted)) throw error;
        // Its last use went to another order meanwhile: the code no longer applies.
        await dropCoupon(orderId, coupon!.id, lines);
        return { ok: false, reason: "coupon_changed" };
      }
      if (!attempt) {
        // Another submit moved the order, or the discount code changed under this one.
        const [current] = await db.select({ status: orders.status }).from(orders).where(eq(orders.id, orderId));
        return { ok: false, reason: current?.status === "new" ? "coupon_changed" : "not_new" };
      }
      // The point is spent once the payment has started; a customer's other payment that took the
      // hour's last point meanwhile undoes this one.
      const claimed = await rateLimits.claimCardPayment(userId);
      if (!claimed.ok) {
        await payments.cancelUnstarted(attempt);
        return { ok: false, reason: "rate_limited", retryAfterSeconds: claimed.retryAfterSeconds };
      }
      const { firstname, lastname, email } = details.customer;
      const cardStep = await payments.openCardStep(attempt, { userId, email, name: `${firstname} ${lastname}` });
      // Null: given up ('Annulla') while the card step was being opened.
      if (!cardStep) return { ok: false, reason: "not_new" };
      metrics?.payments.started.inc({ gateway: gateway.name });
      return { ok: true, ...cardStep };
    },
  };
}
