// With JavaScript the checkout's form is refused without leaving the page where the customer
// pressed 'Completa l'acquisto': the dialog 'Errore' must come to them, in view and focused, and
// give the focus back when closed.
import { expect, test } from "@playwright/test";
import { giveEachTestItsOwnAddress } from "./identity-support";
import { complete, errorDialog, newStudent, openEduCheckout } from "./checkout-support";
import { tabTo } from "./keyboard";
import { waitForHydration } from "./support";

giveEachTestItsOwnAddress();

test("a refused 'Completa l'acquisto' shows 'Errore' where the customer is looking, with the focus", async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 700 });
  await newStudent(page);
  await openEduCheckout(page);
  await waitForHydration(page);
  // The terms are not accepted: pressed at the bottom of the page, the button is refused.
  const button = page.getByRole("button", { name: "Completa l'acquisto" });
  await button.scrollIntoViewIfNeeded();
  await complete(page);
  const dialog = errorDialog(page);
  await expect(dialog).toContainText("Devi accettare le condizioni di acquisto");
  await expect(dialog).toBeInViewport();
  await expect(dialog).toBeFocused();
});

test("'Errore' closes with Escape or 'Chiudi', and the focus goes back to 'Completa l'acquisto'", async ({ page }) => {
  await newStudent(page);
  await openEduCheckout(page);
  await waitForHydration(page);
  const button = page.getByRole("button", { name: "Completa l'acquisto" });
  const dialog = errorDialog(page);

  // Refused first for the terms of sale, then (those ticked) for the terms of cancellation.
  await tabTo(page, button, { max: 80 });
  await page.keyboard.press("Enter");
  await expect(dialog).toContainText("Devi accettare le condizioni di acquisto");
  await expect(dialog).toBeFocused();
  await page.keyboard.press("Escape");
  await expect(dialog).toBeHidden();
  await expect(button).toBeFocused();

  await tabTo(page, page.getByLabel("Ho letto e accetto le condizioni di vendita"), { max: 5, key: "Shift+Tab" });
  await page.keyboard.press("Space");
  await tabTo(page, button, { max: 5 });
  await page.keyboard.press("Enter");
  await expect(dialog).toContainText("Devi accettare le condizioni di cancellazione");
  await tabTo(page, dialog.getByRole("button", { name: "Chiudi" }), { max: 5 });
  await page.keyboard.press("Enter");
  await expect(dialog).toBeHidden();
  await expect(button).toBeFocused();
});

test("the same refusal twice: 'Errore', closed, comes back at the second 'Completa l'acquisto'", async ({ page }) => {
  await newStudent(page);
  await openEduCheckout(page);
  await waitForHydration(page);
  const button = page.getByRole("button", { name: "Completa l'acquisto" });
  const dialog = errorDialog(page);
  for (let press = 0; press < 2; press++) {
    await button.focus();
    await page.keyboard.press("Enter");
    await expect(dialog).toContainText("Devi accettare le condizioni di acquisto");
    await expect(dialog).toBeFocused();
    await page.keyboard.press("Escape");
    await expect(dialog).toBeHidden();
  }
});
