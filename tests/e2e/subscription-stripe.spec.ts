// 'Aggiorna carta' of the EDU subscription with Stripe configured (the stripe-js and stripe-no-js
// projects): with JavaScript in Stripe's Payment Element, confirmed by Stripe.js, which comes back
// to the card page; without it on Stripe's hosted page, whose return the card page reads. Either
// way the subscription then shows the new card. (EDU itself is bought first, as the checkout's
// Stripe specs do.)
import { futureExpiry } from "#tests/support/cards.ts";
import { expect, test, type Page } from "@playwright/test";
import { SUBSCRIPTION_MESSAGES as M } from "#shared/subscription-messages.ts";
import { acceptTerms, complete, confirmed, newStudent, openEduCheckout } from "./checkout-support";
import { expectToast, giveEachTestItsOwnAddress } from "./identity-support";
import { routeStripeToFake } from "./stripe-support";
import { expectAccessible } from "./support";

giveEachTestItsOwnAddress();

const withJavaScript = () => test.info().project.use.javaScriptEnabled !== false;

/** Types a card in Stripe's Payment Element (the stand-in's Stripe.js), or on its hosted page. */
async function typeCard(page: Page, number: string) {
  await page.getByLabel("Numero carta").fill(number);
  if (!withJavaScript()) return;
  await page.getByLabel("Data di scadenza").fill(futureExpiry(" / "));
  await page.getByLabel("Codice di sicurezza").fill("123");
}

/** EDU bought with Stripe's test card 4242. */
async function subscriber(page: Page) {
  await newStudent(page);
  await openEduCheckout(page);
  await acceptTerms(page);
  if (withJavaScript()) {
    await expect(page.getByLabel("Numero carta")).toBeVisible();
    await typeCard(page, "4242 4242 4242 4242");
    await complete(page);
  } else {
    await complete(page);
    await typeCard(page, "4242 4242 4242 4242");
    await page.getByRole("button", { name: "Paga" }).click();
    await page.getByRole("button", { name: "Verifica il pagamento" }).click();
  }
  await expect(confirmed(page)).toBeVisible();
}

test("'Aggiorna carta' through Stripe: the subscription charges the new card", async ({ page, context }) => {
  test.slow();
  await routeStripeToFake(context);
  await subscriber(page);
  await page.goto("/my-products/abbonamento/carta/");
  await expect(page.getByText(/Carta attuale: Visa •••• 4242/)).toBeVisible();
  await expectAccessible(page);

  if (withJavaScript()) {
    await expect(page.getByLabel("Numero carta")).toBeVisible();
    await typeCard(page, "4000 0000 0000 9995");
    await page.getByRole("button", { name: M.cardSave }).click();
  } else {
    await page.getByRole("button", { name: M.cardHostedPage }).click();
    await expect(page).toHaveURL(/^https:\/\/checkout\.stripe\.com\/c\/pay\/cs_test_/);
    await typeCard(page, "4000 0000 0000 9995");
    await page.getByRole("button", { name: "Paga" }).click();
  }

  await expect(page).toHaveURL(/\/my-products\/abbonamento\/$/);
  await expectToast(page, M.cardUpdated);
  await expect(page.getByRole("region", { name: "EDU - Abbonamento 6 mesi" })).toContainText("Visa •••• 9995");
});
