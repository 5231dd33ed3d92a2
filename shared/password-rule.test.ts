import { describe, expect, it } from "vitest";
import { checkPassword, isValidPassword } from "./password-rule.ts";

describe("password rule", () => {
  it.each(["Abcdef1!", "Zz9#aaaa", "Lungapassword1-", "Aa1$Aa1$", "Xy7@xxxx", "Qw3?qwer", "Er4%erty", "Rt5&rtyu"])(
    "accepts %s",
    (pw) => expect(isValidPassword(pw)).toBe(true),
  );

  it.each([
    ["Abcde1!", "too short"],
    ["abcdef1!", "no uppercase"],
    ["ABCDEF1!", "no lowercase"],
    ["Abcdefg!", "no digit"],
    ["Abcdefg1", "no special character"],
    ["Abcdefg1*", "a special character outside the rule's set"],
  ])("refuses %s (%s)", (pw) => expect(isValidPassword(pw)).toBe(false));

  it("tells which parts are met, for the hint list", () => {
    expect(checkPassword("abc")).toEqual({ length: false, lowercase: true, uppercase: false, digit: false, special: false });
  });
});
