import { describe, expect, it } from "vitest";
import { cardDigits, isCardNumber, isExpired, parseCardExpiry, SANDBOX_TEST_CARDS } from "./payment-cards";

describe("card numbers", () => {
  it("checks the Luhn digit of the test cards and refuses a changed digit", () => {
    for (const number of Object.keys(SANDBOX_TEST_CARDS)) expect(isCardNumber(number)).toBe(true);
    expect(isCardNumber(cardDigits("4242 4242 4242 4242"))).toBe(true);
    expect(isCardNumber("4242424242424241")).toBe(false);
    expect(isCardNumber("42424242")).toBe(false);
    expect(isCardNumber("4242a24242424242")).toBe(false);
  });

  it("reads MM/AA and MM/AAAA expiries, and a card is good through its month", () => {
    expect(parseCardExpiry("12/30")).toEqual({ month: 12, year: 2030 });
    expect(parseCardExpiry(" 3 / 2031 ")).toEqual({ month: 3, year: 2031 });
    expect(parseCardExpiry("13/30")).toBeNull();
    expect(parseCardExpiry("1230")).toBeNull();
    const now = new Date("2026-11-30T23:00:00Z");
    expect(isExpired({ month: 11, year: 2026 }, now)).toBe(false);
    expect(isExpired({ month: 10, year: 2026 }, now)).toBe(true);
  });
});
