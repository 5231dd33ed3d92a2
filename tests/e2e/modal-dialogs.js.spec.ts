// With JavaScript the portal's dialogs are real modals, used with the keyboard alone (WCAG 2.1.2,
// 2.4.3): the focus goes into the dialog, Tab stays inside it, Escape closes it as 'Annulla' does,
// and the focus goes back to what opened it.
import { expect, test } from "@playwright/test";
import { signedInCustomer } from "./customers";
import { giveEachTestItsOwnAddress } from "./identity-support";
import { expectTabToStayIn, tabTo } from "./keyboard";
import { waitForHydration } from "./support";

giveEachTestItsOwnAddress();

test("'Inserisci codice' opens 'ESPANDI IL LIBRO' as a modal; Escape and 'Annulla' give the focus back to it", async ({
  page,
}) => {
  await signedInCustomer(page);
  await waitForHydration(page);
  const opener = page.getByRole("banner").getByRole("link", { name: "Inserisci codice" });
  const dialog = page.getByRole("dialog", { name: "ESPANDI IL LIBRO" });

  await tabTo(page, opener);
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/\/dashboard\/\?show=activateProduct$/);
  await expect(dialog.getByLabel("Codice di attivazione")).toBeFocused();
  await expectTabToStayIn(page, dialog);

  await page.keyboard.press("Escape");
  await expect(page).toHaveURL(/\/dashboard\/$/);
  await expect(dialog).toHaveCount(0);
  await expect(opener).toBeFocused();

  await page.keyboard.press("Enter");
  await expect(dialog.getByLabel("Codice di attivazione")).toBeFocused();
  await tabTo(page, dialog.getByRole("link", { name: "Annulla" }), { max: 5 });
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/\/dashboard\/$/);
  await expect(dialog).toHaveCount(0);
  await expect(opener).toBeFocused();
});

test("'Esci' in the user menu opens the sign-out dialog as a modal; closed, the focus is back on the menu", async ({ page }) => {
  await signedInCustomer(page);
  await waitForHydration(page);
  const menu = page
    .getByRole("banner")
    .getByRole("group")
    .filter({ has: page.getByLabel("Menu utente") });
  const menuButton = page.getByRole("banner").locator("summary[aria-label='Menu utente']");
  const dialog = page.getByRole("dialog", { name: "Disconnessione utente" });
  await expect(menu).toHaveCount(1);

  for (const close of ["Escape", "Annulla"]) {
    await tabTo(page, menuButton);
    await page.keyboard.press("Enter");
    await tabTo(page, menu.getByRole("link", { name: "Esci" }), { max: 5 });
    await page.keyboard.press("Enter");
    await expect(page).toHaveURL(/\/dashboard\/\?show=userLogout$/);
    await expect(dialog.getByRole("link", { name: "Annulla" })).toBeFocused();
    await expectTabToStayIn(page, dialog);

    if (close === "Escape") await page.keyboard.press("Escape");
    else {
      await tabTo(page, dialog.getByRole("link", { name: "Annulla" }), { max: 5 });
      await page.keyboard.press("Enter");
    }
    await expect(page).toHaveURL(/\/dashboard\/$/);
    await expect(dialog).toHaveCount(0);
    // 'Esci' closed with its menu as the dialog opened: the focus is on the menu's button.
    await expect(menuButton, `closed with ${close}`).toBeFocused();
  }
});

test("a dialog that came with the page takes the focus; closed with Escape, the focus is at the main content", async ({
  page,
}) => {
  await signedInCustomer(page);
  await page.goto("/dashboard/?show=activateProduct");
  const dialog = page.getByRole("dialog", { name: "ESPANDI IL LIBRO" });
  await expect.poll(() => dialog.evaluate((element) => element.matches(":modal"))).toBe(true);
  await expect(dialog.getByLabel("Codice di attivazione")).toBeFocused();
  await expectTabToStayIn(page, dialog);

  await page.keyboard.press("Escape");
  await expect(page).toHaveURL(/\/dashboard\/$/);
  await expect(dialog).toHaveCount(0);
  await expect(page.getByRole("main")).toBeFocused();
});
