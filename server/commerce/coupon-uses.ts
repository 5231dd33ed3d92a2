// A discount code's uses as orders hold them: counted when a payment starts (order-payments.ts,
// under the code's caps), given back when that payment ends without the money being kept
// (settlement.ts), and when an operator refunds the order (order-refunds.ts).
import { and, count, eq, isNull, sql } from "drizzle-orm";
import type { Queryable, Transaction } from "#server/db/client.ts";
import { couponRedemptions, coupons } from "#server/db/schema/index.ts";

/** Thrown by reserveCoupon, to undo the transaction it runs in: the code's caps were reached meanwhile. */
export class CouponExhausted extends Error {}

/**
 * Counts the order's coupon against its caps, in the transaction that starts its payment (the
 * customer locked, so their own orders take their uses one at a time): a use in all (one
 * conditional UPDATE) and the customer's own. Throws CouponExhausted when either cap is reached.
 */
export async function reserveCoupon(
  tx: Transaction,
  coupon: typeof coupons.$inferSelect,
  { orderId, userId }: { orderId: string; userId: string },
  at: Date,
): Promise<void> {
  const counted = await tx
    .update(coupons)
    .set({ redemptions: sql`${coupons.redemptions} + 1` })
    .where(
      and(
        eq(coupons.id, coupon.id),
        isNull(coupons.disabledAt),
        sql`(${coupons.maxRedemptions} is null or ${coupons.redemptions} < ${coupons.maxRedemptions})`,
      ),
    )
    .returning({ id: coupons.id });
  if (counted.length === 0) throw new CouponExhausted();
  const [mine] = await tx
    .select({ n: count() })
    .from(couponRedemptions)
    .where(and(eq(couponRedemptions.couponId, coupon.id), eq(couponRedemptions.userId, userId)));
  if ((mine?.n ?? 0) >= coupon.maxPerCustomer) throw new CouponExhausted();
  await tx.insert(couponRedemptions).values({ couponId: coupon.id, orderId, userId, createdAt: at });
}

/** Gives back the coupon use an order held (its payment failed, was given up, or was refused; the order was refunded). */
export async function releaseCoupon(tx: Queryable, orderId: string): Promise<void> {
  const [released] = await tx
    .delete(couponRedemptions)
    .where(eq(couponRedemptions.orderId, orderId))
    .returning({ couponId: couponRedemptions.couponId });
  if (!released) return;
  await tx
    .update(coupons)
    .set({ redemptions: sql`${coupons.redemptions} - 1` })
    .where(and(eq(coupons.id, released.couponId), sql`${coupons.redemptions} > 0`));
}
