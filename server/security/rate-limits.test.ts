import { describe, expect, it } from "vitest";
import { emailKey, ipKey } from "./rate-limits.ts";

describe("ipKey", () => {
  it("keeps an IPv4 address and unwraps an IPv4-mapped IPv6 one", () => {
    expect(ipKey("203.0.113.7")).toBe("203.0.113.7");
    expect(ipKey("::ffff:203.0.113.7")).toBe("203.0.113.7");
    expect(ipKey("::FFFF:203.0.113.7")).toBe("203.0.113.7");
  });

  it("counts IPv6 addresses per /64, however they are written", () => {
    expect(ipKey("2001:db8:1:2:3:4:5:6")).toBe("2001:db8:1:2::/64");
    expect(ipKey("2001:0DB8:0001:0002:ffff::1")).toBe("2001:db8:1:2::/64");
    expect(ipKey("2001:db8::1")).toBe("2001:db8:0:0::/64");
    expect(ipKey("2001:db8:0:0:abcd::")).toBe("2001:db8:0:0::/64");
    expect(ipKey("fe80::1%eth0")).toBe("fe80:0:0:0::/64");
    expect(ipKey("::1")).toBe("0:0:0:0::/64");
    expect(ipKey("64:ff9b::192.0.2.33")).toBe("64:ff9b:0:0::/64");
  });

  it("gives a missing address a key of its own and bounds anything else", () => {
    expect(ipKey(undefined)).toBe("unknown");
    expect(ipKey("  ")).toBe("unknown");
    expect(ipKey("x".repeat(100))).toHaveLength(45);
  });
});

describe("emailKey", () => {
  it("is a digest of the address trimmed, lower-cased and bounded, never the address itself", () => {
    expect(emailKey("  Mario.Rossi@Example.IT ")).toBe(emailKey("mario.rossi@example.it"));
    expect(emailKey("mario.rossi@example.it")).not.toContain("mario");
    expect(emailKey("mario.rossi@example.it")).not.toBe(emailKey("maria.rossi@example.it"));
    expect(emailKey("a".repeat(300))).toBe(emailKey("a".repeat(254)));
    expect(emailKey("a".repeat(300))).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});
