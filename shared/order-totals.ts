// An order's money, in integer cents (docs/payments.md, "Checkout and payments"): the subtotal of
// its lines, the discount of its coupon, the total. Pure, so the checkout page, the payment and the
// tests all compute the same figures; and the VAT they contain, for receipts and e-invoices alike.
import { allocateProportionally } from "./commerce-constants.ts";

/** Stripe's (and the card networks') smallest charge in euro: a coupon may not leave less to pay. */
const MIN_CARD_CHARGE_CENTS = 50;

export type Line = { productId: string; totalCents: number };

export type CouponTerms = {
  kind: "percent" | "amount";
  percentOff: number | null;
  amountOffCents: number | null;
  /** Only the lines of this product are discounted; null: the whole order. */
  productId: string | null;
};

export type Totals = { subtotalCents: number; discountCents: number; totalCents: number };

/** The discount a coupon gives on these lines: a percentage rounded to the cent, never more than they cost. */
export function discountOf(coupon: CouponTerms, lines: readonly Line[]): number {
  const base = lines
    .filter((line) => coupon.productId === null || line.productId === coupon.productId)
    .reduce((sum, line) => sum + line.totalCents, 0);
  const off = coupon.kind === "percent" ? Math.round((base * (coupon.percentOff ?? 0)) / 100) : (coupon.amountOffCents ?? 0);
  return Math.min(off, base);
}

export function totalsOf(lines: readonly Line[], coupon: CouponTerms | null): Totals {
  const subtotalCents = lines.reduce((sum, line) => sum + line.totalCents, 0);
  const discountCents = coupon ? discountOf(coupon, lines) : 0;
  return { subtotalCents, discountCents, totalCents: subtotalCents - discountCents };
}

/**
 * Whether a coupon may apply to these lines: it must discount something, and leave at least
 * the smallest card charge to pay (a free order would skip the card the subscription needs).
 */
export function couponFits(coupon: CouponTerms, lines: readonly Line[]): boolean {
  const { discountCents, totalCents } = totalsOf(lines, coupon);
  return discountCents > 0 && totalCents >= MIN_CARD_CHARGE_CENTS;
}

/** The VAT contained in a price that includes it: 450 at 4 % → 17. */
export function vatIncluded(grossCents: number, rateBps: number): number {
  return Math.round((grossCents * rateBps) / (10_000 + rateBps));
}

/** An amount that includes its VAT, and the rate it contains (null: VAT paid at source by the publisher). */
export type TaxedAmount = { cents: number; rateBps: number | null };

/** What amounts of one rate come to: `vatCents` contained in `grossCents`, the rest `taxableCents`. */
export type VatGroup = { rateBps: number | null; grossCents: number; vatCents: number; taxableCents: number };

/**
 * The VAT of a document (a receipt, an invoice): per rate, on the sum of that rate's amounts,
 * rates in ascending order, VAT at source last. Each line's own VAT (vatIncluded) is shown beside
 * it, but a document's VAT is this: an invoice's tax per rate must be its taxable × rate to the
 * cent, which the sum of rounded lines need not be.
 */
export function vatByRate(amounts: readonly TaxedAmount[]): VatGroup[] {
  const gross = new Map<number | null, number>();
  for (const { cents, rateBps } of amounts) gross.set(rateBps, (gross.get(rateBps) ?? 0) + cents);
  return [...gross]
    .sort(([a], [b]) => (a ?? Infinity) - (b ?? Infinity))
    .map(([rateBps, grossCents]) => {
      const vatCents = rateBps === null ? 0 : vatIncluded(grossCents, rateBps);
      return { rateBps, grossCents, vatCents, taxableCents: grossCents - vatCents };
    });
}

/** The VAT a document contains (vatByRate's, added up). */
export function vatOf(amounts: readonly TaxedAmount[]): number {
  return vatByRate(amounts).reduce((sum, group) => sum + group.vatCents, 0);
}

/**
 * What of a payment went to each part of an order (its lines after the discount, its shipping):
 * the amount split in proportion, to the cent. A checkout's payment is the whole order, so each
 * part gets exactly its amount; a month of the subscription gets the month's price.
 */
export function sharesOf(amountCents: number, parts: readonly TaxedAmount[]): TaxedAmount[] {
  const shares = allocateProportionally(
    amountCents,
    parts.map((part) => part.cents),
  );
  return parts.map((part, i) => ({ cents: shares[i]!, rateBps: part.rateBps }));
}

/**
 * The parts an order's money is made of: each line after its share of the discount (split in
 * proportion to the lines' amounts, so each line's VAT is that of what is paid for it), then the
 * shipping (no VAT of its own here), in the lines' order.
 */
export function orderParts(
  lines: readonly { totalCents: number; vatRateBps: number | null }[],
  discountCents: number,
  shipmentCents: number,
): TaxedAmount[] {
  const discounts = allocateProportionally(
    discountCents,
    lines.map((line) => line.totalCents),
  );
  return [
    ...lines.map((line, i) => ({ cents: line.totalCents - discounts[i]!, rateBps: line.vatRateBps })),
    { cents: shipmentCents, rateBps: null },
  ];
}
