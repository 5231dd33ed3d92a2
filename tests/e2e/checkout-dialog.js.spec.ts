// With JavaScript the checkout's form is refused without leaving the page where the customer
// pressed 'Completa l'acquisto': the dialog 'Errore' must come to them, in view and focused.
import { expect, test } from "@playwright/test";
import { giveEachTestItsOwnAddress } from "./identity-support";
import { complete, errorDialog, newStudent, openEduCheckout } from "./checkout-support";

giveEachTestItsOwnAddress();

test("a refused 'Completa l'acquisto' shows 'Errore' where the customer is looking, with the focus", async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 700 });
  await newStudent(page);
  await openEduCheckout(page);
  await page.waitForLoadState("networkidle");
  // The terms are not accepted: pressed at the bottom of the page, the button is refused.
  const button = page.getByRole("button", { name: "Completa l'acquisto" });
  await button.scrollIntoViewIfNeeded();
  await complete(page);
  const dialog = errorDialog(page);
  await expect(dialog).toContainText("Devi accettare le condizioni di acquisto");
  await expect(dialog).toBeInViewport();
  await expect(dialog).toBeFocused();
});
