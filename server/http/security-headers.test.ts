import type { AddressInfo } from "node:net";
import express from "express";
import { describe, expect, it } from "vitest";
import { testConfig } from "../../tests/support/config.ts";
import { securityHeaders } from "./security-headers.ts";

async function headersFor(publicOrigin: string) {
  const app = express();
  app.use((_req, res, next) => {
    res.locals.cspNonce = "abc123";
    next();
  });
  app.use(securityHeaders(testConfig({ PUBLIC_ORIGIN: publicOrigin })));
  app.get("/", (_req, res) => res.send("ok"));
  const server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  try {
    const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    return response.headers;
  } finally {
    server.close();
  }
}

describe("securityHeaders", () => {
  it("sends a nonce-based CSP that lets forms reach only us and the catalogue search", async () => {
    const headers = await headersFor("http://localhost:3000");
    const csp = headers.get("content-security-policy")!;
    expect(csp).toContain("script-src 'nonce-abc123' 'strict-dynamic'");
    expect(csp).toContain("object-src 'none'");
    expect(csp).toContain("base-uri 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("form-action 'self' https://www.novalex.example");
    expect(headers.get("x-content-type-options")).toBe("nosniff");
    expect(headers.get("referrer-policy")).toBe("strict-origin-when-cross-origin");
    expect(headers.get("strict-transport-security")).toBeNull();
  });

  it("adds HSTS and upgrades insecure requests when customers come over HTTPS", async () => {
    const headers = await headersFor("https://account.novalex.example");
    expect(headers.get("strict-transport-security")).toBe("max-age=63072000; includeSubDomains");
    expect(headers.get("content-security-policy")).toContain("upgrade-insecure-requests");
  });
});
