// Forms submitted with JavaScript when the network fails (runs only in the "js" project).
import { expect, test } from "@playwright/test";
import { signedInCustomer } from "./customers";
import { expectToast, giveEachTestItsOwnAddress } from "./identity-support";
import { tabTo } from "./keyboard";

giveEachTestItsOwnAddress();

test("a profile save that fails on the network keeps what was typed and says 'Errore di comunicazione'", async ({ page }) => {
  await signedInCustomer(page, "student");
  await page.goto("/profile/");
  const account = page.getByRole("main");
  await account.getByLabel("Cognome").fill("Verdi");

  await page.route("**/profile/_.data*", (route) => route.abort("internetdisconnected"));
  await account.getByRole("button", { name: "Salva" }).click();
  const alert = page.getByRole("alert").filter({ hasText: "Errore di comunicazione" });
  await expect(alert).toBeVisible();
  await expect(alert).toContainText("Ti preghiamo di riprovare più tardi");
  await expect(account.getByLabel("Cognome")).toHaveValue("Verdi");
  await expect(page.getByText("Unexpected Application Error!")).toHaveCount(0);

  // With the connection back, the same form saves what is still in it.
  await page.unroute("**/profile/_.data*");
  await account.getByRole("button", { name: "Salva" }).click();
  await expectToast(page, "Profilo aggiornato");
  await expect(account.getByLabel("Cognome")).toHaveValue("Verdi");
});

test("the error toast stays until it is closed, with its button reached by keyboard", async ({ page }) => {
  await signedInCustomer(page, "student");
  await page.goto("/profile/");
  const surname = page.getByRole("main").getByLabel("Cognome");
  await tabTo(page, surname);
  await page.keyboard.type("i");
  await page.route("**/profile/_.data*", (route) => route.abort("internetdisconnected"));
  await page.keyboard.press("Enter");

  const alert = page.getByRole("alert").filter({ hasText: "Errore di comunicazione" });
  await expect(alert).toBeVisible();
  // Whatever runs on it, run to its end: nothing hides it.
  await alert.evaluate((el) => el.getAnimations({ subtree: true }).forEach((animation) => animation.finish()));
  await expect(alert.getByText("Errore di comunicazione")).toBeVisible();

  const close = alert.getByRole("button", { name: "Chiudi" });
  await tabTo(page, close, { key: "Shift+Tab" });
  await page.keyboard.press("Enter");
  await expect(alert.getByText("Errore di comunicazione")).toBeHidden();
});
