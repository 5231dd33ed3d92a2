import { describe, expect, it } from "vitest";
import { couponFits, discountOf, totalsOf, vatIncluded, type CouponTerms } from "./order-totals.ts";

const lines = [
  { productId: "a", totalCents: 3200 },
  { productId: "b", totalCents: 450 },
];
const percent = (percentOff: number, productId: string | null = null): CouponTerms => ({
  kind: "percent",
  percentOff,
  amountOffCents: null,
  productId,
});
const amount = (amountOffCents: number, productId: string | null = null): CouponTerms => ({
  kind: "amount",
  percentOff: null,
  amountOffCents,
  productId,
});

describe("order totals", () => {
  it("sums the lines and takes the coupon's discount off", () => {
    expect(totalsOf(lines, null)).toEqual({ subtotalCents: 3650, discountCents: 0, totalCents: 3650 });
    expect(totalsOf(lines, percent(10))).toEqual({ subtotalCents: 3650, discountCents: 365, totalCents: 3285 });
    expect(totalsOf(lines, amount(500))).toEqual({ subtotalCents: 3650, discountCents: 500, totalCents: 3150 });
  });

  it("rounds a percentage to the cent and discounts only the coupon's product", () => {
    expect(discountOf(percent(15, "b"), lines)).toBe(68); // 67.5 → 68
    expect(discountOf(amount(1000, "b"), lines)).toBe(450);
    expect(discountOf(percent(50, "z"), lines)).toBe(0);
  });

  it("lets a coupon apply only when it discounts something and leaves a chargeable amount", () => {
    expect(couponFits(percent(10), lines)).toBe(true);
    expect(couponFits(percent(50, "z"), lines)).toBe(false);
    expect(couponFits(percent(100), lines)).toBe(false);
    expect(couponFits(amount(3600), lines)).toBe(true); // 50 cents left
    expect(couponFits(amount(3601), lines)).toBe(false);
  });

  it("finds the VAT contained in a price", () => {
    expect(vatIncluded(450, 400)).toBe(17);
    expect(vatIncluded(450, 2200)).toBe(81);
    expect(vatIncluded(3200, 400)).toBe(123);
  });
});
