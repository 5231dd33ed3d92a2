import { describe, expect, it } from "vitest";
import {
  allocateProportionally,
  cardBrandLabel,
  formatVatRate,
  isCardMethod,
  PAYMENT_METHOD_LABELS,
} from "./commerce-constants.ts";

describe("allocateProportionally", () => {
  it("splits an amount in proportion, the shares adding up to it", () => {
    expect(allocateProportionally(810, [3200, 4900])).toEqual([320, 490]);
    expect(allocateProportionally(100, [1, 1, 1])).toEqual([34, 33, 33]);
    expect(allocateProportionally(2, [1, 1, 1])).toEqual([1, 1, 0]);
    expect(allocateProportionally(5, [10, 0, 30])).toEqual([1, 0, 4]); // 1.25, 0, 3.75
  });

  it("gives the cents left over to the largest remainders", () => {
    // 10 × 1/6 = 1.67 and 10 × 5/6 = 8.33: the first part's remainder is larger.
    expect(allocateProportionally(10, [1, 5])).toEqual([2, 8]);
  });

  it("gives everything to the first part when nothing weighs, and nothing to no parts", () => {
    expect(allocateProportionally(450, [0, 0])).toEqual([450, 0]);
    expect(allocateProportionally(450, [])).toEqual([]);
  });

  it("always adds up, for any amounts and weights", () => {
    for (let seed = 1; seed < 200; seed++) {
      const weights = Array.from({ length: (seed % 5) + 1 }, (_, i) => ((seed * 7919 + i * 104729) % 10_000) + (i % 2));
      const amount = (seed * 2654435761) % 100_000;
      const shares = allocateProportionally(amount, weights);
      expect(shares.reduce((a, b) => a + b, 0)).toBe(amount);
      expect(shares.every((s) => Number.isInteger(s) && s >= 0)).toBe(true);
    }
  });
});

describe("payment methods and cards", () => {
  it("names both card codes 'Carta di Credito' and sepa 'Bonifico bancario'", () => {
    expect(PAYMENT_METHOD_LABELS).toEqual({
      card_checkout: "Carta di Credito",
      card_setup: "Carta di Credito",
      sepa: "Bonifico bancario",
    });
    expect(["card_checkout", "card_setup", "sepa"].map(isCardMethod)).toEqual([true, true, false]);
  });

  it("names card brands as customers know them", () => {
    expect(cardBrandLabel("visa")).toBe("Visa");
    expect(cardBrandLabel("amex")).toBe("American Express");
    expect(cardBrandLabel("MasterCard")).toBe("Mastercard");
    expect(cardBrandLabel("newbrand")).toBe("newbrand");
    expect(cardBrandLabel(null)).toBe("Carta");
  });
});

describe("formatVatRate", () => {
  it("shows a rate in Italian", () => {
    expect(formatVatRate(400)).toBe("4 %");
    expect(formatVatRate(2200)).toBe("22 %");
    expect(formatVatRate(550)).toBe("5,5 %");
  });
});
