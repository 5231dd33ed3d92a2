// The browser tests of the portal with Stripe configured (the stripe-js and stripe-no-js projects,
// playwright.config.ts). There is no network to Stripe here: the browser's requests to Stripe's
// origins — js.stripe.com (Stripe.js), api.stripe.com (its calls with the publishable key) and
// checkout.stripe.com (the hosted card page) — are answered by the stand-in of Stripe's API that
// the portal's server also talks to (tests/support/fake-stripe.ts, started by global-setup.ts).
// The page's Content-Security-Policy is checked by the browser before any of them goes out, as
// with Stripe's real origins.
import type { BrowserContext } from "@playwright/test";

export const STRIPE_ORIGINS = /^https:\/\/(js|api|checkout)\.stripe\.com\//;

/** Stripe's origins answered by the stand-in; `gate` may hold Stripe.js back (or drop it: false). */
export async function routeStripeToFake(context: BrowserContext, { gate }: { gate?: () => Promise<boolean> } = {}) {
  const fake = `http://127.0.0.1:${process.env.E2E_STRIPE_API_PORT}`;
  await context.route(STRIPE_ORIGINS, async (route) => {
    const url = new URL(route.request().url());
    if (url.hostname === "js.stripe.com" && gate && !(await gate())) return route.abort("failed");
    const response = await route.fetch({ url: `${fake}${url.pathname}${url.search}`, maxRedirects: 0 });
    await route.fulfill({ response });
  });
}
