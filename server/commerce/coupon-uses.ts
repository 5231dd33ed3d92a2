// A discount code's uses as orders hold them: counted when a payment starts (server/payments/
// service.ts, under the code's caps), given back when that payment ends without the money being
// kept, and when an operator refunds the order (server/commerce/order-refunds.ts).
import { and, eq, sql } from "drizzle-orm";
import type { Queryable } from "../db/client.ts";
import { couponRedemptions, coupons } from "../db/schema.ts";

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
