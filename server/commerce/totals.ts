// An order's money, in integer cents (README, "Payments"): the subtotal of its lines, the
// discount of its coupon, the total. Pure, so the checkout page, the payment and the tests all
// compute the same figures.

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
