// Activation codes as printed in the books: XXXX-XXXX-XXXX-XXXX over Crockford's base32, 80
// random bits. No database here: generation, the lenient reading of what a customer types,
// and the keyed hash that is all the database ever stores.
import { createHmac, randomBytes } from "node:crypto";

/** Crockford's base32: no I, L, O or U, so nothing printed is misread. */
export const CODE_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
/** Characters of a code without its dashes: 16 × 5 bits = 80 bits. */
const CODE_LENGTH = 16;
const GROUP = 4;

/** Anything longer than this cannot be a code, however it is spaced: refused before any work. */
const MAX_INPUT_LENGTH = 64;
const WELL_FORMED = new RegExp(`^[${CODE_ALPHABET}]{${CODE_LENGTH}}$`);
/** Whitespace and the dashes a PDF or a word processor puts in place of '-'. */
const SEPARATORS = /[\s\u2010-\u2015\u2212-]/g;

/** A new code, normalised (16 characters, no dashes). Every character is exactly 5 random bits, so there is no modulo bias. */
export function generateCode(): string {
  const bytes = randomBytes((CODE_LENGTH * 5) / 8);
  let code = "";
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      code += CODE_ALPHABET[(buffer >> bits) & 31];
    }
    buffer &= (1 << bits) - 1;
  }
  return code;
}

/**
 * The code a customer typed, as stored: trimmed, upper-cased, without spaces and dashes, with
 * the letters Crockford reads as digits mapped (O → 0, I and L → 1). Null when the result is
 * not exactly 16 characters of the alphabet, so malformed input never reaches the database.
 */
export function normalizeCode(input: string): string | null {
  if (input.length > MAX_INPUT_LENGTH) return null;
  const code = input.trim().toUpperCase().replace(SEPARATORS, "").replace(/O/g, "0").replace(/[IL]/g, "1");
  return WELL_FORMED.test(code) ? code : null;
}

/** A normalised code as printed: XXXX-XXXX-XXXX-XXXX. */
export function formatCode(normalized: string): string {
  const groups: string[] = [];
  for (let i = 0; i < normalized.length; i += GROUP) groups.push(normalized.slice(i, i + GROUP));
  return groups.join("-");
}

/**
 * What the database stores of a code: HMAC-SHA-256 (hex) under the activation code key. Without
 * the key a leaked table gives no usable codes, and 80 bits cannot be guessed offline either.
 * Pass a normalised code, so every way of typing it hashes the same.
 */
export function hashCode(key: string, normalized: string): string {
  return createHmac("sha256", key).update(normalized).digest("hex");
}
