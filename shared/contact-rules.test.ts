import { describe, expect, it } from "vitest";
import { z } from "zod";
import { EMAIL_MAX_LENGTH, isEmail, isMobile, MOBILE_MAX_LENGTH, normalizeMobile } from "./contact-rules.ts";

const GOOD_EMAILS = [
  "maria.rossi@example.it",
  "anna+novalex@studio-legale.example",
  "o'brien@example.com",
  "a_b-c@sub.dominio.example",
  "x@y.co",
];
const BAD_EMAILS = ["", "non-una-email", "anna@", "@example.it", "anna@example", "anna@@example.it", "anna rossi@example.it"];
const BAD_EMAILS_TOO = [".anna@example.it", "anna.@example.it", "anna..rossi@example.it", "anna@-example.it", "anna@example.i"];

describe("e-mail rule", () => {
  it.each(GOOD_EMAILS)("accepts %s", (email) => expect(isEmail(email)).toBe(true));

  it.each([...BAD_EMAILS, ...BAD_EMAILS_TOO])("refuses %j", (email) => expect(isEmail(email)).toBe(false));

  it("takes at most 254 characters", () => {
    const at = (length: number) => `${"a".repeat(length - "@example.it".length)}@example.it`;
    expect(isEmail(at(EMAIL_MAX_LENGTH))).toBe(true);
    expect(isEmail(at(EMAIL_MAX_LENGTH + 1))).toBe(false);
  });

  it("agrees with zod's z.email(), the pattern the forms used before", () => {
    for (const email of [...GOOD_EMAILS, ...BAD_EMAILS, ...BAD_EMAILS_TOO, "ÀNNA@example.it", "anna@exämple.it", "a@b.c1"]) {
      expect(isEmail(email), email).toBe(z.email().safeParse(email).success);
    }
  });
});

describe("mobile rule", () => {
  it.each(["3331234567", "+39 333 1234567", "+393331234567", "333 123 4567", "06 1234567", "123456"])("accepts %s", (mobile) =>
    expect(isMobile(mobile)).toBe(true),
  );

  it.each([
    ["", "empty (the field is optional: the caller skips it)"],
    ["chiamami", "letters"],
    ["12345", "fewer than 6 digits"],
    ["+ 333 1234567", "a space after the +"],
    ["333-1234567", "a dash"],
    ["++39 333 1234567", "two +"],
    ["+39 333 1234567 00000", "more than 20 characters"],
  ])("refuses %j (%s)", (mobile) => expect(isMobile(mobile)).toBe(false));

  it("is stored trimmed with one space between groups, and checked as stored", () => {
    expect(normalizeMobile("  333  1234567 ")).toBe("333 1234567");
    expect(normalizeMobile("+39\t333\n1234567")).toBe("+39 333 1234567");
    expect(isMobile("  333     1234567  ")).toBe(true);
    const longest = "+39 333 123 4567 890";
    expect(longest).toHaveLength(MOBILE_MAX_LENGTH);
    expect(isMobile(longest)).toBe(true);
    expect(isMobile(`${longest}1`)).toBe(false);
  });
});
