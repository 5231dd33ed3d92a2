// Where an order becomes paid. Card payments (server/payments/service.ts) move and record the
// money and ask this module, through the hooks of OrderSettlement, what becomes of the order, in
// the payment's own transaction with the customer locked:
//   paid     — the order moves waitforpayment → payed (once: a conditional UPDATE), gets what it
//              bought (access for the product's time from the library; EDU's subscription, whose
//              first month this payment paid), keeps the customer's details for next time, and
//              owes its 'Ordine confermato' mail. An order that no longer waits is answered null:
//              the payment gives the charge back.
//   closed   — an attempt ended without a charge: the order is new again (editable, payable) and
//              its discount code's use is given back.
//   EDU sold once (decision 024) — an order of EDU while EDU is active is never charged, and one
//              charged meanwhile is closed and its charge given back (edu-sold-once.ts).
// The money going back the other way (an operator's refund) is order-refunds.ts; a subscription's
// months are subscription-charging.ts.
import { and, eq } from "drizzle-orm";
import type { Database, Transaction } from "#server/db/client.ts";
import { orderItems, orders, products, users } from "#server/db/schema/index.ts";
import type { JobRunner } from "#server/jobs/runner.ts";
import { grantEntitlement } from "#server/library/entitlements.ts";
import type { Logger } from "#server/logger.ts";
import type { MailService } from "#server/mail/service.ts";
import { orderConfirmationMail } from "#server/mail/templates.ts";
import type { OrderSettlement, PaidOrder } from "#server/payments/order-settlement.ts";
import { formatEuro } from "#shared/euro.ts";
import { addMonths } from "#shared/library-constants.ts";
import { receiptPath } from "#shared/links.ts";
import { saveDetailsForNextTime } from "./checkout.ts";
import { releaseCoupon } from "./coupon-uses.ts";
import { closeOrderForActiveEdu, eduForbidsPaying, handleActiveEduMails } from "./edu-sold-once.ts";
import { openSubscription } from "./subscription-records.ts";

export type SettlementOptions = {
  db: Database;
  mail: MailService;
  runner: JobRunner;
  publicOrigin: string;
  log: Logger;
};

export function createSettlement({ db, mail, runner, publicOrigin, log }: SettlementOptions): OrderSettlement {
  // The mail of an order closed because EDU was already active is sent by a job of its own.
  handleActiveEduMails({ runner, db, mail, publicOrigin, log });

  /**
   * What an order's lines give: access for the product's time; a subscription's line (EDU, with
   * a monthly price) opens the subscription, whose first month this payment paid.
   */
  async function grantPurchase(tx: Transaction, { order, attempt, payment }: PaidOrder, at: Date) {
    const lines = await tx
      .select({
        productId: products.id,
        grantsAccess: products.grantsAccess,
        accessMonths: products.accessMonths,
        monthlyPriceCents: orderItems.monthlyPriceCents,
      })
      .from(orderItems)
      .innerJoin(products, eq(products.id, orderItems.productId))
      .where(eq(orderItems.orderId, order.id));
    for (const line of lines) {
      if (line.monthlyPriceCents !== null) {
        await openSubscription(tx, {
          userId: order.userId,
          productId: line.productId,
          orderId: order.id,
          paymentId: payment.id,
          paidCents: attempt.amountCents,
          monthlyPriceCents: line.monthlyPriceCents,
          gateway: attempt.gateway,
          setupId: attempt.setupId!,
          card: { brand: attempt.cardBrand, last4: attempt.cardLast4 },
          at,
        });
      } else if (line.grantsAccess) {
        const expiresAt = line.accessMonths === null ? null : addMonths(at, line.accessMonths);
        await grantEntitlement(
          tx,
          { userId: order.userId, productId: line.productId, source: "purchase", startsAt: at, expiresAt, orderId: order.id },
          at,
        );
      }
    }
  }

  /** 'Ordine confermato n° …', owed in the payment's transaction `tx`; the answer sends it (SMTP). */
  async function oweConfirmation(tx: Transaction, { order, payment }: PaidOrder): Promise<() => Promise<void>> {
    const [customer] = await tx
      .select({ email: users.email, firstname: users.firstname })
      .from(users)
      .where(eq(users.id, order.userId));
    if (!customer?.email) return async () => {};
    const lines = await tx
      .select({ description: orderItems.description, quantity: orderItems.quantity, totalCents: orderItems.totalCents })
      .from(orderItems)
      .where(eq(orderItems.orderId, order.id));
    const content = orderConfirmationMail({
      firstname: customer.firstname,
      orderCode: order.orderCode,
      lines: lines.map((line) => `${line.quantity} x ${line.description}: ${formatEuro(line.totalCents)}`),
      total: formatEuro(order.totalCents),
      receiptUrl: `${publicOrigin}${receiptPath(order.orderCode, payment.paymentCode)}`,
    });
    return mail.owe(tx, { to: customer.email, userId: order.userId, ...content });
  }

  return {
    chargeForbidden: eduForbidsPaying,
    closeForbiddenOrder: closeOrderForActiveEdu,

    async orderPaid(tx, paid, at) {
      const moved = await tx
        .update(orders)
        .set({ status: "payed", committedAt: at, updatedAt: at })
        .where(and(eq(orders.id, paid.order.id), eq(orders.status, "waitforpayment")))
        .returning({ id: orders.id });
      if (moved.length === 0) return null;
      await grantPurchase(tx, paid, at);
      await saveDetailsForNextTime(tx, paid.order, at);
      return oweConfirmation(tx, paid);
    },

    async attemptClosed(tx, orderId, at) {
      await tx
        .update(orders)
        .set({ status: "new", updatedAt: at })
        .where(and(eq(orders.id, orderId), eq(orders.status, "waitforpayment")));
      await releaseCoupon(tx, orderId);
    },
  };
}
