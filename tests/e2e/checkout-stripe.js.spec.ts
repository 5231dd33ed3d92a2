// Paying with Stripe with JavaScript: Stripe.js (the stand-in served at js.stripe.com's address)
// mounts its Payment Element on the checkout page only; 'Completa l'acquisto' checks the card,
// then the form, then Stripe.js confirms the card and comes back to the checkout address, which
// checks the payment: EDU to 'Ordine confermato'; a card declined at setup (the provider's
// message in the dialog 'Errore', then another card); 3-D Secure on the charge completed with
// handleNextAction; the widget's messages when Stripe.js is late or does not load; public pages
// that never ask for Stripe; the checkout's JavaScript within its budget.
import { gzipSync } from "node:zlib";
import { futureExpiry } from "#tests/support/cards.ts";
import { expect, test, type Page } from "@playwright/test";
import { CHECKOUT_MESSAGES as M } from "#shared/checkout-messages.ts";
import { completeFirstAccess, giveEachTestItsOwnAddress, newEmail, registerAndSignIn } from "./identity-support";
import { acceptTerms, complete, confirmed, errorDialog, newStudent, openEduCheckout } from "./checkout-support";
import { routeStripeToFake, STRIPE_ORIGINS } from "./stripe-support";

giveEachTestItsOwnAddress();

/** The public pages' JavaScript budget (scripts/bench.ts), and the checkout's: 60 KB more. */
const PUBLIC_JS_BUDGET = 120_000;
const CHECKOUT_JS_BUDGET = PUBLIC_JS_BUDGET + 60_000;

async function newStudentAtCheckout(page: Page) {
  await newStudent(page);
  await openEduCheckout(page);
}

/** Stripe's widget is on the page: it is hydrated (a box ticked before could be unticked again). */
const widgetShown = (page: Page) => expect(page.getByLabel("Numero carta")).toBeVisible();

/** Types a card in Stripe's Payment Element (its fields, once it is ready). */
async function typeCard(page: Page, number: string) {
  await page.getByLabel("Numero carta").fill(number);
  await page.getByLabel("Data di scadenza").fill(futureExpiry(" / "));
  await page.getByLabel("Codice di sicurezza").fill("123");
}

/** Every request the browser sends to the portal's own origin with a body. */
function portalPosts(page: Page) {
  const bodies: string[] = [];
  page.on("request", (request) => {
    if (!STRIPE_ORIGINS.test(request.url()) && request.method() === "POST") bodies.push(request.postData() ?? "");
  });
  return bodies;
}

test("EDU bought by card through Stripe.js: 'Ordine confermato', the card never sent to the portal", async ({
  page,
  context,
}) => {
  await routeStripeToFake(context);
  await newStudentAtCheckout(page);
  const checkout = page.url();
  const posts = portalPosts(page);
  await widgetShown(page);
  await acceptTerms(page);
  await typeCard(page, "4242 4242 4242 4242");
  await complete(page);

  await expect(confirmed(page)).toBeVisible();
  await expect(page.getByText(M.confirmedText)).toBeVisible();
  await expect(page).toHaveURL(
    new RegExp(`^${checkout}\\?setup_intent=seti_[0-9a-f]+&setup_intent_client_secret=.+&redirect_status=succeeded$`),
  );
  // Stripe.js took the card: no request to the portal carried any of it.
  expect(posts.length).toBeGreaterThan(0);
  for (const body of posts) expect(body).not.toMatch(/4242|card_number|cc_number/);

  await page.goto("/edu/");
  await expect(page.getByText(/Il tuo abbonamento EDU è attivo fino (al |all')/)).toBeVisible();
});

test("a card declined at setup shows the provider's message in 'Errore'; another card then pays", async ({ page, context }) => {
  await routeStripeToFake(context);
  await newStudentAtCheckout(page);
  await widgetShown(page);
  await acceptTerms(page);

  // Another payment method: the server refuses it, whatever the card widget holds.
  await page.getByLabel("Bonifico bancario").check();
  await complete(page);
  await expect(errorDialog(page)).toContainText(M.paymentHubUnsupported);
  await page.getByLabel("Carta di Credito").check();

  // The card's own check first (Stripe wants elements.submit() before anything else).
  await page.getByLabel("Numero carta").fill("4242");
  await complete(page);
  await expect(errorDialog(page)).toContainText("Il numero della carta non è valido.");

  await typeCard(page, "4000 0000 0000 0002");
  await complete(page);
  await expect(errorDialog(page)).toContainText("La carta è stata rifiutata.");
  await expect(page.getByText("Il pagamento non è stato completato: puoi riprovare con un'altra carta.")).toBeVisible();

  // The card step waits for another card, in a new widget.
  await typeCard(page, "4242 4242 4242 4242");
  await complete(page);
  await expect(confirmed(page)).toBeVisible();
});

test("3-D Secure on the charge is completed in the page (handleNextAction), then paid", async ({ page, context }) => {
  await routeStripeToFake(context);
  await newStudentAtCheckout(page);
  await widgetShown(page);
  await acceptTerms(page);
  await typeCard(page, "4000 0027 6000 3184");
  await complete(page);

  // Back from the card step, the check finds the bank asking: Stripe.js shows its page.
  const bank = page.getByRole("dialog", { name: "Autenticazione 3-D Secure" });
  await expect(bank).toBeVisible();
  await expect(page).toHaveURL(/redirect_status=succeeded/);
  await bank.getByRole("button", { name: "Autorizza" }).click();
  await expect(confirmed(page)).toBeVisible();
});

test("3-D Secure refused on the charge: 'Card Payment Failed' with the bank's reason", async ({ page, context }) => {
  await routeStripeToFake(context);
  await newStudentAtCheckout(page);
  await widgetShown(page);
  await acceptTerms(page);
  await typeCard(page, "4000 0027 6000 3184");
  await complete(page);
  await page.getByRole("dialog", { name: "Autenticazione 3-D Secure" }).getByRole("button", { name: "Nega" }).click();
  await expect(errorDialog(page)).toContainText(M.cardPaymentFailed);
  await expect(errorDialog(page)).toContainText("Non è stato possibile autenticare il pagamento.");
  // The order is new again: another try is possible.
  await expect(page.getByRole("button", { name: "Completa l'acquisto" })).toBeVisible();
  await expect(confirmed(page)).toHaveCount(0);
});

test("the widget's messages come after the form's: Stripe.js not loaded yet, then failed to load", async ({ page, context }) => {
  // Stripe.js is held back until the test lets it go, and then does not load at all.
  let release: (load: boolean) => void = () => {};
  const released = new Promise<boolean>((resolve) => (release = resolve));
  await routeStripeToFake(context, { gate: () => released });
  await newStudentAtCheckout(page);
  // The page is hydrated and its widget waits for Stripe.js.
  await expect(page.getByText(M.cardWidgetLoading)).toBeVisible();

  await complete(page);
  await expect(errorDialog(page)).toContainText("Devi accettare le condizioni di acquisto");
  await acceptTerms(page);
  await complete(page);
  await expect(errorDialog(page)).toContainText(M.cardProviderNotReady);

  release(false);
  await expect(page.getByRole("alert").filter({ hasText: M.cardProviderFailed })).toBeVisible();
  await complete(page);
  await expect(errorDialog(page)).toContainText(M.cardProviderFailed);
  await expect(page.getByRole("button", { name: "Completa l'acquisto" })).toBeVisible();
});

/** The portal's JavaScript files the page's document loaded (its entries, imports and lazy parts). */
async function loadedScripts(page: Page): Promise<string[]> {
  await page.waitForLoadState("networkidle");
  return page.evaluate(() =>
    performance
      .getEntriesByType("resource")
      .map((entry) => entry.name)
      .filter((name) => new URL(name).origin === location.origin && /^\/assets\/[^/]+\.js$/.test(new URL(name).pathname)),
  );
}

test("public pages never ask for Stripe, and load none of its code; the checkout does, within its budget", async ({
  page,
  context,
}) => {
  await routeStripeToFake(context);
  const stripeRequests: string[] = [];
  page.on("request", (request) => {
    if (STRIPE_ORIGINS.test(request.url())) stripeRequests.push(request.url());
  });
  const bodies = new Map<string, Buffer>();
  const withStripeCode = async (urls: Iterable<string>) => {
    const found: string[] = [];
    for (const url of new Set(urls)) {
      if (!bodies.has(url)) bodies.set(url, await (await page.request.get(url)).body());
      if (/js\.stripe\.com|react-stripe/.test(bodies.get(url)!.toString())) found.push(url);
    }
    return found;
  };

  const publicScripts: string[] = [];
  for (const path of ["/landingpage/landing/", "/edu/", "/help-center/", "/attivaprodotto/", "/login/"]) {
    await page.goto(path);
    publicScripts.push(...(await loadedScripts(page)));
  }
  await registerAndSignIn(page, newEmail("stripe-public"));
  await completeFirstAccess(page, "Studente");
  for (const path of ["/dashboard/", "/my-products/", "/profile/"]) {
    await page.goto(path);
    publicScripts.push(...(await loadedScripts(page)));
  }
  expect(publicScripts.length).toBeGreaterThan(0);
  expect(stripeRequests).toEqual([]);
  expect(await withStripeCode(publicScripts)).toEqual([]);

  // The checkout loads Stripe.js and the widget's code (the same detector sees them there).
  await openEduCheckout(page);
  await widgetShown(page);
  const checkoutScripts = await loadedScripts(page);
  expect(stripeRequests.some((url) => url.startsWith("https://js.stripe.com/"))).toBe(true);
  expect((await withStripeCode(checkoutScripts)).length).toBeGreaterThan(0);

  // The checkout's own JavaScript, the widget's included (Stripe.js is Stripe's, not counted),
  // each file gzipped as the bench weighs it.
  let gzip = 0;
  for (const url of new Set(checkoutScripts)) gzip += gzipSync(bodies.get(url)!).length;
  test.info().annotations.push({
    type: "checkout JS gzip",
    description: `${(gzip / 1000).toFixed(1)} KB in ${new Set(checkoutScripts).size} files`,
  });
  expect(gzip).toBeLessThanOrEqual(CHECKOUT_JS_BUDGET);
});
