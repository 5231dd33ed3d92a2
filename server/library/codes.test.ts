import { describe, expect, it } from "vitest";
import { CODE_ALPHABET, formatCode, generateCode, hashCode, normalizeCode } from "./codes.ts";

describe("generateCode", () => {
  it("gives 16 characters of Crockford's base32", () => {
    for (let i = 0; i < 200; i++) expect(generateCode()).toMatch(/^[0-9ABCDEFGHJKMNPQRSTVWXYZ]{16}$/);
  });

  it("uses every character of the alphabet about equally in every position (no bias, no fixed bits)", () => {
    const samples = 4000;
    const counts = Array.from({ length: 16 }, () => new Map<string, number>());
    for (let i = 0; i < samples; i++) {
      const code = generateCode();
      for (let p = 0; p < 16; p++) counts[p]!.set(code[p]!, (counts[p]!.get(code[p]!) ?? 0) + 1);
    }
    // 125 expected per character and position; 50 and 220 are over 6 standard deviations away.
    for (const position of counts) {
      expect(position.size).toBe(32);
      for (const n of position.values()) {
        expect(n).toBeGreaterThan(50);
        expect(n).toBeLessThan(220);
      }
    }
  });

  it("does not repeat itself", () => {
    const codes = new Set(Array.from({ length: 10_000 }, generateCode));
    expect(codes.size).toBe(10_000);
  });
});

describe("normalizeCode", () => {
  it("reads a code however it is spaced, dashed or capitalised", () => {
    expect(normalizeCode("7K3M-9QAB-CDEF-GHJK")).toBe("7K3M9QABCDEFGHJK");
    expect(normalizeCode("  7k3m 9qab cdef ghjk ")).toBe("7K3M9QABCDEFGHJK");
    expect(normalizeCode("7k3m9qabcdefghjk")).toBe("7K3M9QABCDEFGHJK");
    expect(normalizeCode("7K3M–9QAB—CDEF‐GHJK")).toBe("7K3M9QABCDEFGHJK");
  });

  it("maps the letters Crockford reads as digits: O to 0, I and L to 1", () => {
    expect(normalizeCode("DEMO-EBKO-OOOO-OOOI")).toBe("DEM0EBK000000001");
    expect(normalizeCode("iiii-llll-IIII-LLLL")).toBe("1111111111111111");
  });

  it("refuses anything that is not exactly 16 characters of the alphabet", () => {
    expect(normalizeCode("")).toBeNull();
    expect(normalizeCode("   ")).toBeNull();
    expect(normalizeCode("7K3M-9QAB-CDEF-GHJ")).toBeNull();
    expect(normalizeCode("7K3M-9QAB-CDEF-GHJKM")).toBeNull();
    expect(normalizeCode("7K3M-9QAB-CDEF-GHJU")).toBeNull(); // U is not in the alphabet
    expect(normalizeCode("7K3M_9QAB_CDEF_GHJK")).toBeNull();
    expect(normalizeCode("7K3M-9QAB-CDEF-GHJ*")).toBeNull();
    expect(normalizeCode(`${"A".repeat(16)}${" ".repeat(60)}`)).toBeNull(); // too long to be typed as a code
  });

  it("accepts every character of the alphabet", () => {
    expect(normalizeCode(CODE_ALPHABET.slice(0, 16))).toBe(CODE_ALPHABET.slice(0, 16));
    expect(normalizeCode(CODE_ALPHABET.slice(16).toLowerCase())).toBe(CODE_ALPHABET.slice(16));
  });
});

describe("formatCode", () => {
  it("prints four groups of four, and reads back as the same code", () => {
    const code = generateCode();
    const printed = formatCode(code);
    expect(printed).toMatch(/^[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}$/);
    expect(normalizeCode(printed)).toBe(code);
  });
});

describe("hashCode", () => {
  it("is HMAC-SHA-256 in hex, different under another key and for another code", () => {
    const hash = hashCode("key-one", "7K3M9QABCDEFGHJK");
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    // The well-known HMAC-SHA-256 example, as `openssl dgst -sha256 -hmac key` computes it.
    expect(hashCode("key", "The quick brown fox jumps over the lazy dog")).toBe(
      "f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8",
    );
    expect(hashCode("key-two", "7K3M9QABCDEFGHJK")).not.toBe(hash);
    expect(hashCode("key-one", "7K3M9QABCDEFGHJM")).not.toBe(hash);
    expect(hashCode("key-one", normalizeCode("7k3m 9qab cdef ghjk")!)).toBe(hash);
  });
});
