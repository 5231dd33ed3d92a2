import type { AddressInfo } from "node:net";
import express from "express";
import { describe, expect, it } from "vitest";
import { testConfig } from "#tests/support/config.ts";
import { securityHeaders, STRIPE_CSP } from "./security-headers.ts";

const STRIPE_KEYS = {
  STRIPE_SECRET_KEY: "sk_test_csp",
  STRIPE_PUBLISHABLE_KEY: "pk_test_csp",
  STRIPE_WEBHOOK_SECRET: "whsec_csp",
};

async function headersFor(publicOrigin: string, { path = "/", env = {} }: { path?: string; env?: Record<string, string> } = {}) {
  const app = express();
  app.use((_req, res, next) => {
    res.locals.cspNonce = "abc123";
    next();
  });
  app.use(securityHeaders(testConfig({ PUBLIC_ORIGIN: publicOrigin, ...env })));
  app.get("/{*splat}", (_req, res) => res.send("ok"));
  const server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  try {
    const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`);
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

  /** The policy's directives by name, each with its sources. */
  async function directives(path: string, env: Record<string, string>) {
    const csp = (await headersFor("http://localhost:3000", { path, env })).get("content-security-policy")!;
    return new Map(
      csp.split(";").map((part) => {
        const [name, ...sources] = part.trim().split(/\s+/);
        return [name!, sources];
      }),
    );
  }
  const stripeSources = Object.values(STRIPE_CSP).flat();

  it("opens Stripe's origins on the pages that pay when Stripe is configured, and only there", async () => {
    const checkout = await directives("/checkout/0b7c9f5e-8a0e-4c4e-9d61-1d2b8a7f0c11/?setup_intent=seti_1", STRIPE_KEYS);
    expect(checkout.get("script-src")).toEqual([
      "'nonce-abc123'",
      "'strict-dynamic'",
      "https://js.stripe.com",
      "https://*.js.stripe.com",
    ]);
    expect(checkout.get("frame-src")).toEqual(["https://js.stripe.com", "https://*.js.stripe.com", "https://hooks.stripe.com"]);
    expect(checkout.get("connect-src")).toEqual(["'self'", "ws:", "wss:", "https://api.stripe.com"]);
    expect(checkout.get("form-action")).toEqual([
      "'self'",
      "https://www.novalex.example",
      "https://checkout.stripe.com",
      "https://hooks.stripe.com",
    ]);
    expect(checkout.get("default-src")).toEqual(["'self'"]);
    for (const path of ["/my-products/abbonamento/", "/my-products/abbonamento/carta/?setup_intent=seti_1"]) {
      expect(await directives(path, STRIPE_KEYS)).toEqual(checkout);
    }

    for (const path of [
      "/",
      "/edu/",
      "/dashboard/",
      "/my-products/",
      "/create-checkout/abbonamentoedu/",
      "/pagamenti/carta/ritorno/",
    ]) {
      const policy = [...(await directives(path, STRIPE_KEYS)).values()].flat();
      for (const source of stripeSources) expect(policy, `${path} ${source}`).not.toContain(source);
      expect((await directives(path, STRIPE_KEYS)).has("frame-src")).toBe(false);
    }
  });

  it("keeps the checkout page closed to Stripe without Stripe's keys (the sandbox)", async () => {
    const checkout = await directives("/checkout/0b7c9f5e-8a0e-4c4e-9d61-1d2b8a7f0c11/", {});
    const policy = [...checkout.values()].flat();
    for (const source of stripeSources) expect(policy).not.toContain(source);
    expect(checkout.has("frame-src")).toBe(false);
  });
});
