import { describe, expect, it } from "vitest";
import { formatEuro } from "./euro.ts";

// What the pages wrote with Intl before they formatted by hand: the reference for every string.
const intl = new Intl.NumberFormat("it-IT", { style: "currency", currency: "EUR" });

describe("Euro amounts", () => {
  it("formats cents as euro with a decimal comma", () => {
    expect(formatEuro(3200)).toBe("32,00\u00a0€");
    expect(formatEuro(450)).toBe("4,50\u00a0€");
    // Italian groups thousands from five digits on.
    expect(formatEuro(123456)).toBe("1234,56\u00a0€");
    expect(formatEuro(1234567)).toBe("12.345,67\u00a0€");
    expect(formatEuro(-250)).toBe("-2,50\u00a0€");
  });

  it("writes every amount as Intl's it-IT euro format does", () => {
    const amounts = [
      ...Array.from({ length: 250_001 }, (_, i) => i - 50_000),
      ...Array.from({ length: 2_000 }, (_, i) => (i + 1) * 99_991),
      99_999_999,
      100_000_000,
      123_456_789_012,
      -12_345_678,
    ];
    for (const cents of amounts)
      if (formatEuro(cents) !== intl.format(cents / 100)) expect(formatEuro(cents)).toBe(intl.format(cents / 100));
  });
});
