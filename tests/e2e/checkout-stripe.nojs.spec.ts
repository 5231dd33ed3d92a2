// Paying with Stripe without JavaScript: 'Completa l'acquisto' goes to Stripe's hosted card page in
// setup mode; 'Annulla' comes back to the checkout with the card step waiting, 'Paga' comes back
// through /pagamenti/carta/ritorno/ to the checkout's return, where 'Verifica il pagamento' settles
// it: 'Ordine confermato'. axe on the pages the portal serves.
import { expect, test } from "@playwright/test";
import { CHECKOUT_MESSAGES as M } from "#shared/checkout-messages.ts";
import { giveEachTestItsOwnAddress } from "./identity-support";
import { acceptTerms, complete, confirmed, newStudent, openEduCheckout } from "./checkout-support";
import { routeStripeToFake } from "./stripe-support";
import { expectAccessible } from "./support";

giveEachTestItsOwnAddress();

test("EDU bought on Stripe's hosted page: 'Annulla', then 'Paga', to 'Ordine confermato'", async ({ page, context }) => {
  // A long journey (two trips to Stripe's page, three pages checked by axe).
  test.slow();
  await routeStripeToFake(context);
  await newStudent(page);
  await openEduCheckout(page);
  const checkout = page.url();
  await acceptTerms(page);
  await complete(page);

  // Stripe's page (the stand-in, at Stripe's address), left with 'Annulla'.
  await expect(page).toHaveURL(/^https:\/\/checkout\.stripe\.com\/c\/pay\/cs_test_/);
  await expect(page.getByRole("button", { name: "Paga" })).toBeVisible();
  await page.getByRole("button", { name: "Annulla" }).click();
  await expect(page).toHaveURL(checkout);
  await expect(page.getByText("Il pagamento non è stato completato: puoi riprovare con un'altra carta.")).toBeVisible();
  await expect(page.getByText(M.cardOnStripePage)).toBeVisible();
  await expectAccessible(page);

  // Again, and 'Paga' with Stripe's test card.
  await complete(page);
  await expect(page).toHaveURL(/^https:\/\/checkout\.stripe\.com\/c\/pay\/cs_test_/);
  await page.getByLabel("Numero carta").fill("4242 4242 4242 4242");
  await page.getByRole("button", { name: "Paga" }).click();

  // Back at the same checkout address, with the parameters Stripe.js would bring.
  await expect(page).toHaveURL(new RegExp(`^${checkout}\\?setup_intent=seti_[0-9a-f]+&redirect_status=succeeded$`));
  await expect(page.getByText(M.paymentInProgress)).toBeVisible();
  await expectAccessible(page);
  await page.getByRole("button", { name: "Verifica il pagamento" }).click();
  await expect(confirmed(page)).toBeVisible();
  await expect(page.getByText(M.confirmedText)).toBeVisible();
  await expectAccessible(page);

  await page.goto("/edu/");
  await expect(page.getByText(/Il tuo abbonamento EDU è attivo fino (al |all')/)).toBeVisible();
});

test("a card the hosted page declines is shown there, and the checkout still waits for a card", async ({ page, context }) => {
  await routeStripeToFake(context);
  await newStudent(page);
  await openEduCheckout(page);
  const checkout = page.url();
  await acceptTerms(page);
  await complete(page);
  await page.getByLabel("Numero carta").fill("4000 0000 0000 0002");
  await page.getByRole("button", { name: "Paga" }).click();
  await expect(page.getByRole("alert")).toHaveText("La carta è stata rifiutata.");
  await page.getByRole("button", { name: "Annulla" }).click();
  await expect(page).toHaveURL(checkout);
  await expect(page.getByRole("button", { name: "Completa l'acquisto" })).toBeVisible();
  await expect(confirmed(page)).toHaveCount(0);
});
