import { describe, expect, it } from "vitest";
import { euroCents, OperatorError } from "./context.ts";

describe("euroCents (--amount)", () => {
  it("reads euros as Italians write them, with a decimal comma", () => {
    expect(euroCents("12,50", "--amount")).toBe(1250);
    expect(euroCents(" 12,5 ", "--amount")).toBe(1250);
    expect(euroCents("12", "--amount")).toBe(1200);
    expect(euroCents("0,05", "--amount")).toBe(5);
  });

  it("refuses a dot (Italian thousands), more than two decimals, nothing and negatives", () => {
    for (const wrong of ["12.50", "1.250,00", "12,505", "", "-3", "0,00", "12 €"]) {
      expect(() => euroCents(wrong, "--amount"), wrong).toThrow(OperatorError);
    }
  });
});
