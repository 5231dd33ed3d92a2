// The browser tests of the portal with Stripe configured (the stripe-js and stripe-no-js projects,
// playwright.config.ts). There is no network to Stripe here: the browser's requests to Stripe's
// origins — js.stripe.com (Stripe.js), api.stripe.com (its calls with the publishable key) and
// checkout.stripe.com (the hosted card page) — are answered by the stand-in of Stripe's API that
// the portal's server also talks to (tests/support/fake-stripe.ts, started by global-setup.ts).
// The page's Content-Security-Policy is checked by the browser before any of them goes out, as
// with Stripe's real origins.
import { expect, type BrowserContext, type Page } from "@playwright/test";

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

/** From /edu/, 'Acquista ora' to the checkout of EDU. */
export async function openEduCheckout(page: Page) {
  await page.goto("/edu/");
  await page.getByRole("button", { name: "Acquista ora" }).first().click();
  await expect(page).toHaveURL(/\/checkout\/[0-9a-f-]{36}\/$/);
  await expect(page.getByRole("heading", { name: "Checkout", level: 1 })).toBeVisible();
}

export async function acceptTerms(page: Page) {
  await page.getByLabel("Ho letto e accetto le condizioni di vendita").check();
  await page.getByLabel("Ho letto e accetto le condizioni di recesso e cancellazione").check();
}

export const complete = (page: Page) => page.getByRole("button", { name: "Completa l'acquisto" }).click();
export const errorDialog = (page: Page) => page.getByRole("dialog", { name: "Errore" });
export const confirmed = (page: Page) => page.getByRole("heading", { name: "Ordine confermato" });
