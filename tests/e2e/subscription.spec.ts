// The EDU subscription in the browser, with and without JavaScript, on the sandbox gateway: the
// section under 'I miei acquisti' (plan, 'rata 1 di 6', next charge, card, the month paid with
// its receipt), 'Disdici' with its confirmation (and 'Annulla'), 'Riattiva', 'Aggiorna carta'
// with a card that asks for 3-D Secure, and a number the card form refuses. axe on each page.
import { expect, test, type Page } from "@playwright/test";
import { SUBSCRIPTION_MESSAGES as M } from "#shared/subscription-messages.ts";
import { eduSubscriber, fillSandboxCard } from "./checkout-support";
import { expectToast, giveEachTestItsOwnAddress } from "./identity-support";
import { fixtures } from "./fixtures";
import { activateFromDashboard, euro, expectAccessible } from "./support";

giveEachTestItsOwnAddress();

const section = (page: Page) => page.getByRole("region", { name: "EDU - Abbonamento 6 mesi" });

test("the subscription's section: where it stands, 'Disdici' after a confirmation, 'Riattiva'", async ({ page }) => {
  await eduSubscriber(page);
  await page.goto("/my-products/");
  const summary = page.getByRole("region", { name: /Il mio abbonamento EDU/ });
  await expect(summary).toContainText(/Rata 1 di 6, prossimo addebito (il |l')\d{2}\/\d{2}\/\d{4}/);
  await summary.getByRole("link", { name: "Gestisci l'abbonamento" }).click();

  await expect(page).toHaveURL(/\/my-products\/abbonamento\/$/);
  await expect(page.getByRole("heading", { name: M.title, level: 1 })).toBeVisible();
  await expect(section(page)).toContainText(M.statusActive);
  await expect(section(page)).toContainText("1 di 6");
  await expect(section(page)).toContainText(euro("4,50"));
  await expect(section(page)).toContainText("Visa •••• 4242");
  await expect(section(page)).toContainText(/rata 2 di 6/);
  const paid = page.getByRole("region", { name: M.paymentsTitle });
  await expect(paid).toContainText("Rata 1 di 6");
  await expect(paid.getByRole("link", { name: /Ricevuta/ })).toHaveAttribute("href", /^\/ricevuta\/NX[^/]+\/PX[^/]+\/$/);
  await expectAccessible(page);

  // 'Disdici' asks first; 'Annulla' changes nothing.
  await section(page).getByRole("link", { name: M.cancel }).click();
  const dialog = page.getByRole("dialog", { name: M.cancelTitle });
  await expect(dialog).toBeVisible();
  await expectAccessible(page);
  await dialog.getByRole("link", { name: M.cancelBack }).click();
  await expect(dialog).toBeHidden();
  await expect(section(page)).toContainText(M.statusActive);

  await section(page).getByRole("link", { name: M.cancel }).click();
  await page.getByRole("dialog", { name: M.cancelTitle }).getByRole("button", { name: M.cancelConfirm }).click();
  await expectToast(page, M.cancelled);
  await expect(section(page)).toContainText(M.statusCancelled);
  await expect(section(page)).toContainText(/non ti addebiteremo altre rate/);
  await expect(section(page)).not.toContainText(M.nextCharge);
  await expectAccessible(page);

  await section(page).getByRole("button", { name: M.resume }).click();
  await expectToast(page, M.resumed);
  await expect(section(page)).toContainText(M.statusActive);
  await expect(section(page)).toContainText(M.nextCharge);
});

test("'Aggiorna carta': a number refused by the form, then a card with 3-D Secure", async ({ page }) => {
  await eduSubscriber(page);
  await page.goto("/my-products/abbonamento/");
  await section(page).getByRole("link", { name: M.updateCard }).click();
  await expect(page.getByRole("heading", { name: M.cardTitle, level: 1 })).toBeVisible();
  await expect(page.getByText(/Carta attuale: Visa •••• 4242/)).toBeVisible();
  await expectAccessible(page);

  const form = page.locator("form").filter({ has: page.getByLabel("Numero della carta") });
  await fillSandboxCard(form, "4242 4242 4242 4243");
  await form.getByRole("button", { name: M.cardSave }).click();
  // Beside the field (the error summary above the form repeats it as a link to the field).
  await expect(form.getByText("Il numero della carta non è valido")).toBeVisible();

  await fillSandboxCard(form, "4000 0025 0000 3155");
  await form.getByRole("button", { name: M.cardSave }).click();
  await expect(page.getByRole("heading", { name: "Autenticazione 3-D Secure" })).toBeVisible();
  await page.getByRole("button", { name: "Autorizza" }).click();

  await expect(page).toHaveURL(/\/my-products\/abbonamento\/$/);
  await expectToast(page, M.cardUpdated);
  await expect(section(page)).toContainText("Visa •••• 3155");
});

test("an eBook+EDU code during the subscription: its months replace the next charges, and the page says until when", async ({
  page,
}) => {
  const { ebookEdu } = fixtures().codes;
  await eduSubscriber(page);
  await activateFromDashboard(page, ebookEdu);

  await page.goto("/my-products/abbonamento/");
  const note = section(page).getByRole("status").filter({ hasText: "Con il codice eBook+EDU" });
  await expect(note).toContainText(
    /i mesi fino (al |all')\d{2}\/\d{2}\/\d{4} sono inclusi: fino ad allora non ti addebiteremo rate/,
  );
  const freeUntil = /(\d{2}\/\d{2}\/\d{4})/.exec((await note.textContent())!)![1]!;
  // The next charge is the 2nd instalment, on the day the code's months end.
  await expect(section(page)).toContainText(new RegExp(`${freeUntil.replaceAll("/", "\\/")} — .*rata 2 di 6`));
  await expectAccessible(page);
});
