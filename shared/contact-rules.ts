// The rules of the contact fields, an e-mail address and a mobile number, for every form and
// service that takes one: registration, sign-in, the password reset request, the account page,
// the checkout (the customer's address, the PEC, the addresses' mobile) and the API. Pure and
// without zod, like password-rule.ts: the zod schemas of the server refine with these.

/** The longest e-mail address (the forward path limit of RFC 5321). */
export const EMAIL_MAX_LENGTH = 254;

/**
 * A standard address (spec §5): dot-separated runs of letters, digits and _ ' + - before the @,
 * then domain labels and a top-level domain of two letters or more. The pattern zod's `z.email()`
 * applies, which the forms used before; the unit test checks they still agree.
 */
const EMAIL_PATTERN = /^(?:[A-Za-z0-9_'+-]+\.)*[A-Za-z0-9_'+-]*[A-Za-z0-9_+-]@(?:[A-Za-z0-9][A-Za-z0-9-]*\.)+[A-Za-z]{2,}$/;

/** An e-mail address as typed (trimmed by the caller), at most 254 characters. */
export function isEmail(value: string): boolean {
  return value.length <= EMAIL_MAX_LENGTH && EMAIL_PATTERN.test(value);
}

/** The longest mobile number, as stored (blanks included). */
export const MOBILE_MAX_LENGTH = 20;

/** A mobile number as it is stored: trimmed, each run of blanks one space. */
export function normalizeMobile(value: string): string {
  return value.trim().replace(/\s+/g, " ");
}

const MOBILE_PATTERN = /^\+?[0-9][0-9 ]{5,}$/;

/**
 * A mobile number (optional wherever it is asked, spec §3 and §5): once normalized, an optional
 * +, a digit, then digits and spaces, 6 digits or spaces at least and 20 characters at most.
 */
export function isMobile(value: string): boolean {
  const mobile = normalizeMobile(value);
  return mobile.length <= MOBILE_MAX_LENGTH && MOBILE_PATTERN.test(mobile);
}
