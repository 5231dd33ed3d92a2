// EDU is sold once (decision 024). A customer may not buy EDU while EDU is active (an eBook+EDU
// code, an operator's grant) or while a subscription of it lives: the order cannot be opened, nor
// a payment started. But EDU can become active while a payment is under way (the code activated
// in another tab while the card step waits), so the rule is checked again wherever a payment
// settles, inside the settling transaction with the customer locked: before the charge (the
// payment is stopped: nothing is charged) and when the charge is recorded (the charge is recorded
// and given back by the refunds job). Either way the order ends `cancelled` with its reason, its
// discount code's use is given back, and a mail tells the customer; the checkout page says the
// same.
import { and, eq, ne } from "drizzle-orm";
import type { Database, Queryable } from "#server/db/client.ts";
import { orderItems, orders, payments, products, subscriptions, users } from "#server/db/schema/index.ts";
import { enqueueJob, type JobRunner } from "#server/jobs/runner.ts";
import { eduActiveUntil } from "#server/library/entitlements.ts";
import type { Logger } from "#server/logger.ts";
import type { MailService } from "#server/mail/service.ts";
import { orderRefusedForActiveEduMail } from "#server/mail/templates.ts";
import { formatDate } from "#shared/format.ts";
import { formatEuro } from "#shared/euro.ts";
import { EDU_PRODUCT_CODE } from "#shared/library-constants.ts";
import { checkoutOrderPath } from "#shared/links.ts";
import { releaseCoupon } from "./coupon-uses.ts";

const MAIL_QUEUE = "order-mails.edu-already-active";

/**
 * Whether the customer may not buy this product now because it is a subscription's plan they
 * hold: EDU still running (however it was granted: a purchase, an eBook+EDU code), or a
 * subscription of the plan not yet ended (a charge being retried, a cancellation still running),
 * which is theirs to resume or mend: a second one would charge them twice. Checked when the order
 * is opened, when its payment starts and wherever it settles.
 */
export async function purchaseBlockedBySubscription(db: Queryable, userId: string, productId: string, now: Date) {
  const [product] = await db
    .select({ code: products.code, monthlyPriceCents: products.monthlyPriceCents })
    .from(products)
    .where(eq(products.id, productId));
  if (!product) return false;
  if (product.code === EDU_PRODUCT_CODE) {
    const until = await eduActiveUntil(db, userId);
    if (until && until > now) return true;
  }
  if (product.monthlyPriceCents === null) return false;
  const [live] = await db
    .select({ id: subscriptions.id })
    .from(subscriptions)
    .where(and(eq(subscriptions.userId, userId), eq(subscriptions.productId, productId), ne(subscriptions.status, "ended")));
  return live !== undefined;
}

/**
 * Whether EDU forbids paying this order now: one of its lines is EDU while EDU is active or a
 * subscription of it lives. Called in the settling transaction, after the customer's lock.
 */
export async function eduForbidsPaying(tx: Queryable, order: { id: string; userId: string }, at: Date): Promise<boolean> {
  const lines = await tx.select({ productId: orderItems.productId }).from(orderItems).where(eq(orderItems.orderId, order.id));
  for (const line of lines) {
    if (await purchaseBlockedBySubscription(tx, order.userId, line.productId, at)) return true;
  }
  return false;
}

/**
 * Closes the order whose payment EDU forbids: `cancelled`, reason `edu_already_active`, the
 * discount code's use given back and the customer's mail queued, all in the caller's
 * transaction. Only from `waitforpayment`: false when the order had moved (paid, closed).
 */
export async function closeOrderForActiveEdu(tx: Queryable, orderId: string, at: Date): Promise<boolean> {
  const closed = await tx
    .update(orders)
    .set({ status: "cancelled", closedReason: "edu_already_active", updatedAt: at })
    .where(and(eq(orders.id, orderId), eq(orders.status, "waitforpayment")))
    .returning({ id: orders.id });
  if (closed.length === 0) return false;
  await releaseCoupon(tx, orderId);
  await enqueueJob(tx, { queue: MAIL_QUEUE, key: `${MAIL_QUEUE}:${orderId}`, payload: { orderId }, runAt: at }, at);
  return true;
}

/** What the customer is told of an order closed so: until when EDU runs, and the money given back (if any was taken). */
export async function activeEduClosure(db: Queryable, order: { id: string; userId: string }) {
  const [eduUntil, charged] = await Promise.all([
    eduActiveUntil(db, order.userId),
    db.select({ amountCents: payments.amountCents }).from(payments).where(eq(payments.orderId, order.id)),
  ]);
  const refundedCents = charged.reduce((sum, p) => sum + p.amountCents, 0);
  return { eduUntil, refundedCents: refundedCents > 0 ? refundedCents : null };
}

/** Sends the mails of orders closed so (a job per order, composed when sent). */
export function handleActiveEduMails({
  runner,
  db,
  mail,
  publicOrigin,
  log,
}: {
  runner: JobRunner;
  db: Database;
  mail: MailService;
  publicOrigin: string;
  log: Logger;
}) {
  runner.handle(MAIL_QUEUE, async ({ orderId }: { orderId: string }) => {
    const [row] = await db
      .select({
        id: orders.id,
        userId: orders.userId,
        orderCode: orders.orderCode,
        email: users.email,
        firstname: users.firstname,
      })
      .from(orders)
      .innerJoin(users, eq(users.id, orders.userId))
      .where(eq(orders.id, orderId));
    // An erased account has no address: its mail is dropped.
    if (!row?.email) return;
    const { eduUntil, refundedCents } = await activeEduClosure(db, row);
    await mail.send({
      to: row.email,
      userId: row.userId,
      ...orderRefusedForActiveEduMail({
        firstname: row.firstname,
        orderCode: row.orderCode,
        eduUntil: eduUntil ? formatDate(eduUntil) : null,
        refunded: refundedCents ? formatEuro(refundedCents) : null,
        orderUrl: `${publicOrigin}${checkoutOrderPath(row.id)}`,
      }),
    });
    log.info({ orderCode: row.orderCode }, "the customer was told their EDU order was closed: EDU is already active");
  });
}
