import { describe, expect, it } from "vitest";
import { approximatePlace, describeDevice, keptUserAgent, networkPrefix } from "./session-devices.ts";

describe("networkPrefix", () => {
  it("keeps the /24 of an IPv4 address, also written as IPv6", () => {
    expect(networkPrefix("93.44.12.7")).toBe("93.44.12.0/24");
    expect(networkPrefix("::ffff:151.38.2.9")).toBe("151.38.2.0/24");
  });

  it("keeps the /48 of an IPv6 address, whatever its spelling", () => {
    expect(networkPrefix("2001:db8:12:34::1")).toBe("2001:db8:12::/48");
    expect(networkPrefix("2001:0db8:0012:0034:0000:0000:0000:0001")).toBe("2001:db8:12::/48");
    expect(networkPrefix("2a01:e11::5")).toBe("2a01:e11:0::/48");
    expect(networkPrefix("fe80::1%eth0")).toBe("fe80:0:0::/48");
  });

  it("keeps nothing of what is not an address", () => {
    expect(networkPrefix("")).toBeNull();
    expect(networkPrefix("localhost")).toBeNull();
    expect(networkPrefix("1.2.3")).toBeNull();
  });
});

describe("approximatePlace", () => {
  it("names the country of a public IPv4 network in Italian", () => {
    expect(approximatePlace("93.44.12.0/24")).toBe("Italia");
    expect(approximatePlace("8.8.8.0/24")).toBe("Stati Uniti");
  });

  it("calls private and loopback networks 'Rete locale'", () => {
    for (const ip of ["127.0.0.1", "10.1.2.3", "192.168.1.20", "172.20.0.4", "::1", "fe80::1", "fd12:3456::1"]) {
      expect(approximatePlace(networkPrefix(ip)), ip).toBe("Rete locale");
    }
  });

  it("knows nothing of a public IPv6 network or of no network", () => {
    expect(approximatePlace("2a01:e11:0::/48")).toBeNull();
    expect(approximatePlace(null)).toBeNull();
  });
});

describe("describeDevice", () => {
  it("names the browser, the system and the kind of device", () => {
    expect(describeDevice("Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:132.0) Gecko/20100101 Firefox/132.0")).toBe(
      "Firefox su Windows · Computer",
    );
    expect(
      describeDevice(
        "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
      ),
    ).toBe("Safari su iOS · Smartphone");
    expect(
      describeDevice(
        "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Mobile Safari/537.36",
      ),
    ).toBe("Chrome su Android · Smartphone");
  });

  it("says when it cannot tell", () => {
    expect(describeDevice(null)).toBe("Dispositivo sconosciuto");
    expect(describeDevice("curl/8.0")).toBe("Dispositivo sconosciuto");
  });
});

describe("keptUserAgent", () => {
  it("keeps at most 512 characters, and nothing of an empty header", () => {
    expect(keptUserAgent("x".repeat(600))).toHaveLength(512);
    expect(keptUserAgent("   ")).toBeNull();
    expect(keptUserAgent(null)).toBeNull();
  });
});
