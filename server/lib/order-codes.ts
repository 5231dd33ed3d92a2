// Order and payment codes: readable on a receipt and over the phone, unique by a constraint
// behind them.
import { randomInt } from "node:crypto";

/** Crockford's base32: no I, L, O or U, so nothing is misread. */
const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/** `<prefix>` + yymmdd (UTC) + `-` + 6 random characters (30 bits). */
function newCode(prefix: string, now: Date): string {
  const date = now.toISOString().slice(2, 10).replaceAll("-", "");
  let suffix = "";
  for (let i = 0; i < 6; i++) suffix += ALPHABET[randomInt(ALPHABET.length)];
  return `${prefix}${date}-${suffix}`;
}

/** `NX` + yymmdd (UTC) + `-` + 6 random characters (30 bits), e.g. NX261122-7K3M9Q. */
export function newOrderCode(now: Date): string {
  return newCode("NX", now);
}

/** `PX` + yymmdd (UTC) + `-` + 6 random characters (30 bits), e.g. PX261122-Q4TB0D: a payment's code. */
export function newPaymentCode(now: Date): string {
  return newCode("PX", now);
}
