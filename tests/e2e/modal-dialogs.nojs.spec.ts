// Without JavaScript nothing can keep the focus inside a dialog, but the dialog comes first in the
// page: the first Tab reaches it, not the darkened page behind it.
import { expect, test } from "@playwright/test";
import { SUBSCRIPTION_MESSAGES } from "#shared/subscription-messages.ts";
import { eduSubscriber } from "./checkout-support";
import { signedInCustomer } from "./customers";
import { giveEachTestItsOwnAddress } from "./identity-support";
import { tabTo } from "./keyboard";

giveEachTestItsOwnAddress();

test("'Inserisci codice' by keyboard: the first Tab on the next page reaches the code field", async ({ page }) => {
  await signedInCustomer(page);
  await tabTo(page, page.getByRole("banner").getByRole("link", { name: "Inserisci codice" }));
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/\/dashboard\/\?show=activateProduct$/);
  await page.keyboard.press("Tab");
  await expect(page.getByRole("dialog", { name: "ESPANDI IL LIBRO" }).getByLabel("Codice di attivazione")).toBeFocused();
});

test("the sign-out dialog: the first Tab reaches its 'Annulla'", async ({ page }) => {
  await signedInCustomer(page);
  await page.goto("/dashboard/?show=userLogout");
  await page.keyboard.press("Tab");
  await expect(page.getByRole("dialog", { name: "Disconnessione utente" }).getByRole("link", { name: "Annulla" })).toBeFocused();
});

test("'Disdici' of the subscription, by keyboard: the first Tab on the next page reaches its dialog", async ({ page }) => {
  await eduSubscriber(page);
  await page.goto("/my-products/abbonamento/");
  await tabTo(page, page.getByRole("main").getByRole("link", { name: SUBSCRIPTION_MESSAGES.cancel }));
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/\?disdici/);
  await page.keyboard.press("Tab");
  await expect(
    page
      .getByRole("dialog", { name: SUBSCRIPTION_MESSAGES.cancelTitle })
      .getByRole("link", { name: SUBSCRIPTION_MESSAGES.cancelBack }),
  ).toBeFocused();
});

test("the account deleted: the first Tab on its page reaches the dialog's 'Home Page'", async ({ page }) => {
  await signedInCustomer(page);
  await page.goto("/profile/delete-user/");
  await page.getByRole("main").getByRole("button", { name: "Conferma" }).click();
  const confirmed = page.getByRole("dialog", { name: "Cancellazione utente confermata" });
  await expect(confirmed).toBeVisible();
  await page.keyboard.press("Tab");
  await expect(confirmed.getByRole("link", { name: "Home Page" })).toBeFocused();
});
