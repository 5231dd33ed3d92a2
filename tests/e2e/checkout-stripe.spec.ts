// The checkout with Stripe configured, with and without JavaScript (the stripe-js and stripe-no-js
// projects): axe on the page, its card panel as each browser gets it. The card step itself:
// checkout-stripe.js.spec.ts (Stripe.js) and checkout-stripe.nojs.spec.ts (the hosted page).
import { expect, test } from "@playwright/test";
import { CHECKOUT_MESSAGES as M } from "#shared/checkout-messages.ts";
import { giveEachTestItsOwnAddress } from "./identity-support";
import { newStudent, openEduCheckout } from "./checkout-support";
import { routeStripeToFake } from "./stripe-support";
import { expectAccessible } from "./support";

giveEachTestItsOwnAddress();

test("the checkout page with Stripe is accessible, its card panel Stripe's widget or its hosted page", async ({
  page,
  context,
}) => {
  await routeStripeToFake(context);
  await newStudent(page);
  await openEduCheckout(page);
  // Real payments: no test-environment notice.
  await expect(page.getByText(M.sandboxNotice)).toHaveCount(0);
  if (test.info().project.use.javaScriptEnabled === false) {
    await expect(page.getByText(M.cardOnStripePage)).toBeVisible();
    // No card field of the portal's own: the card is typed on Stripe's page.
    await expect(page.locator("input[autocomplete='cc-number']")).toHaveCount(0);
  } else {
    await expect(page.getByLabel("Numero carta")).toBeVisible();
    await expect(page.getByText(M.cardOnStripePage)).toHaveCount(0);
  }
  await expectAccessible(page);
});
