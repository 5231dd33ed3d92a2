import { describe, expect, it } from "vitest";
import { redactUrl } from "./log-redaction.ts";

describe("redactUrl", () => {
  it.each([
    ["/oidc/auth?state=s&code_challenge=c", "/oidc/auth?[redacted]"],
    ["/oidc?x=1", "/oidc?[redacted]"],
    ["http://localhost:3000/oauthcb?code=c#f", "http://localhost:3000/oauthcb?[redacted]"],
    ["/accedi/uid/social?token=t", "/accedi/uid/social?[redacted]"],
    ["/oauthcb#code=c", "/oauthcb?[redacted]"],
  ])("hides the query of the identity route %s", (url, expected) => expect(redactUrl(url)).toBe(expected));

  it.each([
    [
      "/checkout/0b7c9f5e/?setup_intent=seti_1&setup_intent_client_secret=seti_1_secret_abc&redirect_status=succeeded",
      "/checkout/0b7c9f5e/?setup_intent=seti_1&setup_intent_client_secret=[redacted]&redirect_status=succeeded",
    ],
    [
      "http://localhost:3000/checkout/x/.data?payment_intent_client_secret=pi_1_secret_x",
      "http://localhost:3000/checkout/x/.data?payment_intent_client_secret=[redacted]",
    ],
  ])("hides the client secret Stripe.js brings back in %s", (url, expected) => expect(redactUrl(url)).toBe(expected));

  it.each(["/login/?redirect=/profile/", "/oidcx?a=1", "/dashboard/", "https://evil.example/?q=1", undefined])(
    "keeps %s as it is",
    (url) => expect(redactUrl(url)).toBe(url),
  );
});
