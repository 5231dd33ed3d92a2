// What the e-invoice of a payment says, read from the order it paid: who it is made out to (the
// order's billing details) and its lines. A checkout's payment pays the order's lines (after the
// discount) and its shipping; a month of the EDU subscription pays that month, at the line's VAT
// rate, with the month's dates. The split is the receipt's (orderParts, sharesOf): one rule.
import { asc, eq } from "drizzle-orm";
import type { Queryable } from "#server/db/client.ts";
import {
  orderItems,
  orders,
  paymentRefunds,
  payments,
  subscriptionPeriods,
  type BillingDetails,
  type PostalAddress,
} from "#server/db/schema/index.ts";
import { billingAddress } from "./billing-address.ts";
import { orderParts, sharesOf } from "#shared/order-totals.ts";
import { formatDate, withArticle } from "#shared/format.ts";
import { isBodyFiscalCode } from "#shared/italian-ids.ts";
import { DAY_MS } from "#shared/subscription.ts";
import { romeDay } from "#shared/rome-clock.ts";
import type { InvoiceBuyer, InvoiceLine } from "./fatturapa.ts";

export type InvoiceData = {
  paymentId: string;
  orderId: string;
  userId: string;
  buyer: InvoiceBuyer;
  lines: InvoiceLine[];
  notes: string[];
};

/**
 * The buyer as the checkout took it: a company (Partita IVA, name, SDI code or PEC); a body with a
 * Codice Fiscale of 11 digits (an association: its name); or a person (Codice Fiscale, and the
 * name typed for the invoice, never the shipping recipient's), at the billing address or the
 * shipping address's place (billingAddress).
 */
function buyerOf(billing: BillingDetails, shipment: PostalAddress | null): InvoiceBuyer {
  const postal = billingAddress(billing, shipment);
  if (!postal) throw new Error("The billing details lack an address");
  const address = { street: postal.address, postcode: postal.postcode, city: postal.city, province: postal.province };
  const delivery = { address, sdiCode: billing.sdi?.toUpperCase() || null, pec: billing.pec || null };
  if (billing.isCompany) {
    if (!billing.vat || !billing.name) throw new Error("A company's billing details lack the Partita IVA or the name");
    return { kind: "company", vat: billing.vat, name: billing.name, ...delivery };
  }
  if (!billing.ssn) throw new Error("A person's billing details lack the Codice Fiscale");
  const fiscalCode = billing.ssn.toUpperCase();
  if (isBodyFiscalCode(fiscalCode)) {
    if (!billing.name) throw new Error("A body's billing details lack its name");
    return { kind: "body", fiscalCode, name: billing.name, ...delivery };
  }
  return { kind: "person", fiscalCode, firstname: postal.firstname, lastname: postal.lastname, ...delivery };
}

/** "2027-01-23" → "2027-01-22" */
function dayBefore(day: string): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) - DAY_MS).toISOString().slice(0, 10);
}

type Item = { id: string; description: string; quantity: number; totalCents: number; vatRateBps: number | null };
type Period = { number: number; startsAt: Date; endsAt: Date };

/** A payment as its documents read it: its order (buyer, discount, shipping), the order's lines and the month it paid. */
async function paymentOf(db: Queryable, paymentId: string) {
  const [row] = await db
    .select({
      payment: {
        id: payments.id,
        code: payments.paymentCode,
        status: payments.status,
        amountCents: payments.amountCents,
        periodId: payments.subscriptionPeriodId,
      },
      order: {
        id: orders.id,
        code: orders.orderCode,
        userId: orders.userId,
        status: orders.status,
        discountCents: orders.discountCents,
        couponCode: orders.couponCode,
        shipmentPriceCents: orders.shipmentPriceCents,
        hasBilling: orders.hasBilling,
        billing: orders.billing,
        shipment: orders.shipment,
      },
    })
    .from(payments)
    .innerJoin(orders, eq(orders.id, payments.orderId))
    .where(eq(payments.id, paymentId));
  if (!row) return null;
  const items: Item[] = await db
    .select({
      id: orderItems.id,
      description: orderItems.description,
      quantity: orderItems.quantity,
      totalCents: orderItems.totalCents,
      vatRateBps: orderItems.vatRateBps,
    })
    .from(orderItems)
    .where(eq(orderItems.orderId, row.order.id))
    .orderBy(asc(orderItems.description), asc(orderItems.id));
  const [period]: (Period | undefined)[] = row.payment.periodId
    ? await db
        .select({
          number: subscriptionPeriods.number,
          startsAt: subscriptionPeriods.startsAt,
          endsAt: subscriptionPeriods.endsAt,
        })
        .from(subscriptionPeriods)
        .where(eq(subscriptionPeriods.id, row.payment.periodId))
    : [];
  const subtotalCents = items.reduce((sum, item) => sum + item.totalCents, 0);
  const parts = orderParts(items, Math.min(row.order.discountCents, subtotalCents), row.order.shipmentPriceCents);
  // What the payment paid of each line, then of the shipping: the receipt's split.
  const shares = sharesOf(row.payment.amountCents, parts).map((share) => share.cents);
  return { ...row, items, period, shares };
}

type PaymentDocumentSource = NonNullable<Awaited<ReturnType<typeof paymentOf>>>;

/**
 * A document's lines: for each order line the amount in `cents` (by index, the shipping last), at
 * the line's VAT rate. The line's quantity when the amount is its whole share of the payment, one
 * otherwise (part of a line refunded). A month of the subscription is that month, with its days.
 * An invoice lists every line of the order (a free one too); a credit note only what it gives back.
 */
function linesOf(
  { items, period, shares }: PaymentDocumentSource,
  cents: readonly number[],
  { omitEmpty }: { omitEmpty: boolean },
): InvoiceLine[] {
  const lines: InvoiceLine[] = [];
  items.forEach((item, i) => {
    const amount = cents[i]!;
    if (!period) {
      if (amount === 0 && omitEmpty) return;
      lines.push({
        description: item.description,
        quantity: amount === shares[i] ? item.quantity : 1,
        grossCents: amount,
        rateBps: item.vatRateBps,
      });
      return;
    }
    // A month of the subscription: the month, one of it.
    if (amount === 0) return;
    // Its days: from the one it starts on to the day before the next month starts.
    const days = { from: romeDay(period.startsAt), to: dayBefore(romeDay(period.endsAt)) };
    const from = withArticle("dal", formatDate(`${days.from}T12:00:00Z`));
    const to = withArticle("al", formatDate(`${days.to}T12:00:00Z`));
    lines.push({
      description: `${item.description}: mese ${period.number}, ${from} ${to}`,
      quantity: 1,
      grossCents: amount,
      rateBps: item.vatRateBps,
      period: days,
    });
  });
  const shipping = cents[items.length]!;
  if (shipping > 0) lines.push({ description: "Spese di spedizione", quantity: 1, grossCents: shipping, rateBps: null });
  return lines;
}

/**
 * The invoice a payment calls for, or null when it calls for none: its order asked for no invoice,
 * or the money is not kept (the payment was refunded, or came for an order no longer buying).
 */
export async function invoiceDataOf(db: Queryable, paymentId: string): Promise<InvoiceData | null> {
  const source = await paymentOf(db, paymentId);
  if (!source) return null;
  const { payment, order } = source;
  if (!order.hasBilling || !order.billing || payment.status !== "payed" || order.status !== "payed") return null;
  const notes = [`Ordine ${order.code}, pagamento ${payment.code} con carta`];
  if (order.discountCents > 0 && order.couponCode) notes.push(`Prezzi al netto dello sconto del codice ${order.couponCode}`);
  return {
    paymentId: payment.id,
    orderId: order.id,
    userId: order.userId,
    buyer: buyerOf(order.billing, order.shipment),
    lines: linesOf(source, source.shares, { omitEmpty: false }),
    notes,
  };
}

/** What a credit note says: an invoice's data for what its refund gave back, and when it went back. */
export type CreditNoteData = InvoiceData & { refundId: string; completedAt: Date };

/**
 * The credit note a refund calls for, or null when it calls for none: the refund has not
 * succeeded, or its payment's order asked for no invoice. Its lines are the invoice's, each for
 * what the refund took of it (refund parts split the amount as the invoice split the payment, so
 * the VAT is split as the invoice's); its buyer is the invoice's.
 */
export async function creditNoteDataOf(db: Queryable, refundId: string): Promise<CreditNoteData | null> {
  const [refund] = await db
    .select({
      id: paymentRefunds.id,
      paymentId: paymentRefunds.paymentId,
      state: paymentRefunds.state,
      parts: paymentRefunds.parts,
      completedAt: paymentRefunds.completedAt,
    })
    .from(paymentRefunds)
    .where(eq(paymentRefunds.id, refundId));
  if (!refund || refund.state !== "succeeded" || !refund.completedAt) return null;
  const source = await paymentOf(db, refund.paymentId);
  if (!source) return null;
  const { payment, order, items } = source;
  if (!order.hasBilling || !order.billing) return null;
  // Recorded before refunds had parts: the whole payment.
  const cents = refund.parts
    ? [...items.map((item) => item.id), null].map((id) =>
        refund.parts!.filter((part) => part.orderItemId === id).reduce((sum, part) => sum + part.cents, 0),
      )
    : source.shares;
  return {
    paymentId: payment.id,
    orderId: order.id,
    userId: order.userId,
    refundId: refund.id,
    completedAt: refund.completedAt,
    buyer: buyerOf(order.billing, order.shipment),
    lines: linesOf(source, cents, { omitEmpty: true }),
    notes: [`Ordine ${order.code}, rimborso sulla carta del pagamento ${payment.code}`],
  };
}
