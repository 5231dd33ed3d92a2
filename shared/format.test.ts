import { describe, expect, it } from "vitest";
import { formatDate, formatEuro, formatLongDate, formatLongDateTime } from "./format.ts";

describe("Italian formatting", () => {
  it("formats cents as euro with a decimal comma", () => {
    expect(formatEuro(3200).replace(/\s/g, " ")).toBe("32,00 €");
    expect(formatEuro(450).replace(/\s/g, " ")).toBe("4,50 €");
    // Italian groups thousands from five digits on.
    expect(formatEuro(123456).replace(/\s/g, " ")).toBe("1234,56 €");
    expect(formatEuro(1234567).replace(/\s/g, " ")).toBe("12.345,67 €");
  });

  it("formats any amount the same however many others were formatted before it", () => {
    const expected = new Intl.NumberFormat("it-IT", { style: "currency", currency: "EUR" });
    for (let cents = 0; cents < 1200; cents += 1) expect(formatEuro(cents)).toBe(expected.format(cents / 100));
    for (const cents of [0, 450, 1199, -250]) expect(formatEuro(cents)).toBe(expected.format(cents / 100));
  });

  it("formats dates in Europe/Rome", () => {
    // 23:30 UTC on 11 March is already 12 March in Rome.
    expect(formatDate("2026-03-11T23:30:00Z")).toBe("12/03/2026");
    expect(formatLongDate("2026-03-11T23:30:00Z")).toBe("12 marzo 2026");
    expect(formatLongDateTime("2026-03-11T23:30:00Z")).toBe("12 marzo 2026 alle 00:30");
    // Summer time: 08:15 UTC is 10:15 in Rome.
    expect(formatLongDateTime("2026-07-01T08:15:00Z")).toBe("1 luglio 2026 alle 10:15");
  });
});
