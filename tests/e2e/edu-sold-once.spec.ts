// EDU is sold once (decision 024), in the browser, with and without JavaScript: the customer
// starts paying for EDU with a card that asks for 3-D Secure, activates an eBook+EDU code in
// another tab, then presses 'Autorizza'. Nothing is charged: the order is closed and its page
// says why. axe on the page.
import { expect, test } from "@playwright/test";
import { CHECKOUT_MESSAGES as M } from "#shared/checkout-messages.ts";
import { acceptTerms, complete, confirmed, fillSandboxCard, newStudent, openEduCheckout } from "./checkout-support";
import { fixtures } from "./fixtures";
import { giveEachTestItsOwnAddress } from "./identity-support";
import { activateFromDashboard, expectAccessible, waitForHydration } from "./support";

giveEachTestItsOwnAddress();

test("a code activated in another tab while 3-D Secure waits: 'Autorizza' charges nothing, and the order says why", async ({
  page,
  context,
}) => {
  await newStudent(page);
  await openEduCheckout(page);
  await waitForHydration(page);
  await acceptTerms(page);
  await fillSandboxCard(page.locator("form#checkout"), "4000 0025 0000 3155");
  await complete(page);
  await expect(page.getByRole("heading", { name: "Autenticazione 3-D Secure" })).toBeVisible();

  const otherTab = await context.newPage();
  await activateFromDashboard(otherTab, fixtures().codes.ebookEdu);
  await otherTab.close();

  await page.getByRole("button", { name: "Autorizza" }).click();
  await expect(page.getByRole("heading", { name: M.closedTitle })).toBeVisible();
  await expect(page.getByText(M.eduOrderClosed, { exact: false })).toBeVisible();
  await expect(page.getByText(/Il tuo accesso a EDU è attivo fino (al |all')\d{2}\/\d{2}\/\d{4}\./)).toBeVisible();
  await expect(page.getByText(M.eduOrderClosedNothingCharged)).toBeVisible();
  await expect(confirmed(page)).toBeHidden();
  await expectAccessible(page);

  // Nothing was bought: the EDU page knows EDU is active, from the code.
  await page.goto("/edu/");
  await expect(page.getByRole("link", { name: "Acquista ora" }).first()).toHaveAttribute("aria-disabled", "true");
  await expect(page.getByText(/Il tuo abbonamento EDU è attivo fino (al |all')\d{2}\/\d{2}\/\d{4}\./)).toBeVisible();
});
