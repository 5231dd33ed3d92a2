// Card numbers as the sandbox card form takes them: the checks a card form makes before anything
// is sent (the number's check digit, an expiry in the future), and the sandbox's test cards.
// Pure: the checkout's form schema and the sandbox gateway both use it.

/** Digits only: "4242 4242-4242 4242" → "4242424242424242". */
export function cardDigits(value: string): string {
  return value.replace(/[\s-]/g, "");
}

/** A card number's Luhn check digit holds (12–19 digits). */
export function isCardNumber(digits: string): boolean {
  if (!/^\d{12,19}$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let digit = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) digit = digit * 2 > 9 ? digit * 2 - 9 : digit * 2;
    sum += digit;
  }
  return sum % 10 === 0;
}

/** "MM/AA" or "MM/AAAA" (spaces allowed) → month and full year, or null. */
export function parseCardExpiry(value: string): { month: number; year: number } | null {
  const match = /^\s*(\d{1,2})\s*\/\s*(\d{2}|\d{4})\s*$/.exec(value);
  if (!match) return null;
  const month = Number(match[1]);
  const year = match[2]!.length === 2 ? 2000 + Number(match[2]) : Number(match[2]);
  return month >= 1 && month <= 12 ? { month, year } : null;
}

/** A card works until the end of its expiry month. */
export function isExpired(expiry: { month: number; year: number }, now: Date): boolean {
  return expiry.year * 12 + expiry.month < now.getUTCFullYear() * 12 + now.getUTCMonth() + 1;
}

/** What the sandbox does with a test card (docs/payments.md, "Payments"). */
export type SandboxCardBehaviour = "succeeds" | "declined" | "authentication";

/** Stripe's test numbers for these behaviours, so the same cards work on both gateways. */
export const SANDBOX_TEST_CARDS: Readonly<Record<string, { brand: string; behaviour: SandboxCardBehaviour }>> = {
  "4242424242424242": { brand: "visa", behaviour: "succeeds" },
  "4000000000009995": { brand: "visa", behaviour: "declined" },
  "4000002500003155": { brand: "visa", behaviour: "authentication" },
};
