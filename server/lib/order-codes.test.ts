import { describe, expect, it } from "vitest";
import { newOrderCode, newPaymentCode } from "./order-codes.ts";

describe("order and payment codes", () => {
  const now = new Date("2026-11-22T23:30:00Z");

  it("carry their prefix, the UTC date and 6 characters of Crockford's base32", () => {
    expect(newOrderCode(now)).toMatch(/^NX261122-[0-9A-HJKMNP-TV-Z]{6}$/);
    expect(newPaymentCode(now)).toMatch(/^PX261122-[0-9A-HJKMNP-TV-Z]{6}$/);
  });

  it("differ from one another", () => {
    const codes = new Set(Array.from({ length: 100 }, () => newPaymentCode(now)));
    expect(codes.size).toBe(100);
  });
});
