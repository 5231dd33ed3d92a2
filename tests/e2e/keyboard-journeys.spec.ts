// The customer's journeys with the keyboard alone (issue 30, WCAG 2.2 AA 2.1.1, 2.1.2, 2.4.3,
// 3.3.1, 4.1.3), with and without JavaScript: register → first access → activate a code → buy EDU
// → the receipt, and the account console. Nothing is clicked or filled: Tab, Shift+Tab, Enter,
// Space, the arrows and typing into the focused field. After each step the test says where the
// focus is: with JavaScript the router navigates on the client and moves it itself (to the new
// page's heading, into a dialog, to an error summary); without, each step is a new page whose
// focus starts at the top of the document.
import { expect, test, type Locator, type Page } from "@playwright/test";
import { futureExpiry } from "#tests/support/cards.ts";
import { signedInCustomer, signInOverHttp } from "./customers";
import { fixtures } from "./fixtures";
import { expectToast, giveEachTestItsOwnAddress, newEmail } from "./identity-support";
import { expectTabToStayIn, tabTo } from "./keyboard";
import { waitForHydration } from "./support";

giveEachTestItsOwnAddress();

const javaScript = () => test.info().project.use.javaScriptEnabled !== false;

/** Tabs to `field` and types `text` into it, replacing what it held. */
async function typeInto(page: Page, field: Locator, text: string) {
  await tabTo(page, field);
  await page.keyboard.press("ControlOrMeta+A");
  await page.keyboard.type(text);
}

/**
 * Tabs to `control` (Shift+Tab with `back`, to a control before the focus) and presses `key` on
 * it (Enter for a link or a button, Space for a box).
 */
async function press(page: Page, control: Locator, key: "Enter" | "Space" = "Enter", { back = false } = {}) {
  await tabTo(page, control, { max: 60, key: back ? "Shift+Tab" : "Tab" });
  await page.keyboard.press(key);
}

/** A page loaded without JavaScript has its focus nowhere yet: the next Tab starts at the top. */
async function expectFocusAtTop(page: Page) {
  // Polled: the page may still be replacing the one before (its context then goes mid-question).
  await expect.poll(() => page.evaluate(() => document.activeElement === document.body).catch(() => false)).toBe(true);
}

/** Where a step's new page starts: on its heading with JavaScript, at the top of the document without. */
async function expectPageStart(page: Page, heading: Locator) {
  await expect(heading).toBeVisible();
  if (javaScript()) await expect(heading).toBeFocused();
  else await expectFocusAtTop(page);
}

/** A refused form: its error summary says so first (focused with JavaScript, title 'Errore: '), and names `message`. */
async function expectErrorsAnnounced(page: Page, message: string) {
  const summary = page.getByRole("main").locator("[data-error-summary]");
  await expect(summary.getByRole("link", { name: message })).toBeVisible();
  await expect(page).toHaveTitle(/^Errore: /);
  expect(await page.locator("main h1").evaluate((h1) => h1.nextElementSibling?.hasAttribute("data-error-summary"))).toBe(true);
  if (javaScript()) await expect(summary).toBeFocused();
  else await expectFocusAtTop(page);
}

test("register, first access, activate a code, buy EDU and read the receipt, by keyboard alone", async ({ page }) => {
  test.slow();
  const email = newEmail("keyboard.journey");
  const password = "Segreta1!";
  const main = page.getByRole("main");

  // Registration: the consent not given first, refused with its summary.
  await page.goto("/register/");
  await typeInto(page, main.getByLabel("Nome", { exact: true }), "Lucia");
  await typeInto(page, main.getByLabel("Cognome"), "Bianchi");
  await typeInto(page, main.getByLabel("Email"), email);
  await typeInto(page, main.getByLabel("Password", { exact: true }), password);
  await press(page, main.getByRole("button", { name: "Crea account" }));
  const consent = main.getByRole("checkbox");
  const consentMissing = "Devi accettare i termini e le condizioni";
  await expectErrorsAnnounced(page, consentMissing);
  await expect(consent).toHaveAttribute("aria-invalid", "true");
  await expect(consent).toHaveAccessibleDescription(consentMissing);

  // Fixed: the summary's link leads to the box, which Space ticks.
  await press(page, main.locator("[data-error-summary]").getByRole("link", { name: consentMissing }));
  await expect(consent).toBeFocused();
  await page.keyboard.press("Space");
  await expect(consent).toBeChecked();
  // The password is not sent back to the browser: typed again where the page was reloaded.
  const passwordField = main.getByLabel("Password", { exact: true });
  if ((await passwordField.inputValue()) === "") await typeInto(page, passwordField, password);
  await press(page, main.getByRole("button", { name: "Crea account" }));

  // The login screen, then the first access.
  await expect(page.getByRole("heading", { name: "Accedi", level: 1 })).toBeVisible();
  await typeInto(page, main.getByLabel("Email"), email);
  await typeInto(page, main.getByLabel("Password"), password);
  await press(page, main.getByRole("button", { name: "Accedi" }));
  await expect(page.getByRole("heading", { name: "Completa il tuo profilo", level: 1 })).toBeVisible();

  const student = main.getByLabel("Studente");
  await tabTo(page, main.getByRole("radio").first());
  // The arrows move through the radio group and choose; Space chooses the first.
  for (let presses = 0; presses < 3 && !(await student.evaluate((el) => el === document.activeElement)); presses++) {
    await page.keyboard.press("ArrowDown");
  }
  await expect(student).toBeFocused();
  await page.keyboard.press("Space");
  await expect(student).toBeChecked();
  await press(page, main.getByRole("button", { name: "Continua" }));
  await expect(page).toHaveTitle(/^Completa il tuo profilo: Università/);
  const university = main.getByRole("combobox", { name: "La tua università" });
  await tabTo(page, university);
  await page.keyboard.press("ArrowDown");
  await expect(university).not.toHaveValue("");
  await press(page, main.getByRole("button", { name: "Continua" }));
  await expect(page).toHaveTitle(/^Completa il tuo profilo: Corso di laurea/);
  const course = main.getByRole("combobox", { name: "Corso di laurea" });
  await tabTo(page, course);
  await page.keyboard.press("ArrowDown");
  await expect(course).not.toHaveValue("");
  await press(page, main.getByRole("button", { name: "Completa" }));

  // The dashboard: a client navigation puts the focus on its heading; a page load at the top.
  await expect(page).toHaveURL(/\/dashboard\/$/);
  await expectToast(page, "Profilo aggiornato");
  await expectPageStart(page, page.locator("main h1"));

  // 'ESPANDI IL LIBRO' from the header (before the heading that has the focus with JavaScript):
  // the focus goes into it, or the first Tab reaches it without JavaScript.
  const opener = page.getByRole("banner").getByRole("link", { name: "Inserisci codice" });
  const dialog = page.getByRole("dialog", { name: "ESPANDI IL LIBRO" });
  const codeField = page.getByRole("textbox", { name: "Codice di attivazione" });
  await press(page, opener, "Enter", { back: javaScript() });
  await expect(page).toHaveURL(/\/dashboard\/\?show=activateProduct$/);
  await expect(dialog).toBeVisible();
  if (javaScript()) {
    await expect(codeField).toBeFocused();
    await expectTabToStayIn(page, dialog);
    await tabTo(page, codeField, { max: 5 });
  } else {
    await page.keyboard.press("Tab");
    await expect(codeField).toBeFocused();
  }

  // A wrong code: said in words, in a live region the field is described by. With JavaScript as it
  // is typed, in the dialog; without, on the activation page the form answers with.
  await page.keyboard.type("ABCD-EFGH-JKMN-PQRS");
  if (!javaScript()) {
    await page.keyboard.press("Enter");
    await expect(page).toHaveURL(/\/prodotti\/attiva$/);
    await expectFocusAtTop(page);
    await tabTo(page, codeField);
  }
  const note = page.locator("#activation-code-note[role=status]").filter({ hasText: "Codice non valido" });
  await expect(note).toBeVisible();
  await expect(codeField).toHaveAccessibleDescription("Codice non valido");
  await expect(codeField).toHaveAttribute("aria-invalid", "true");
  await expect(codeField).toBeFocused();

  // The right one activates it.
  const { ebook } = fixtures().codes;
  await page.keyboard.press("ControlOrMeta+A");
  await page.keyboard.type(ebook.code);
  if (javaScript()) {
    await expect(page.locator("#activation-code-note[role=status]")).toHaveText("Codice valido");
    await expect(codeField).toHaveAccessibleDescription("Codice valido");
  }
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/\/dashboard\/$/);
  await expectToast(page, "Prodotto attivato");
  await expect(dialog).toHaveCount(0);
  // The dialog closed: with JavaScript the focus is back on what opened it.
  if (javaScript()) await expect(opener).toBeFocused();
  else await expectFocusAtTop(page);

  // EDU: the customer types its address.
  await page.goto("/edu/");
  await press(page, main.getByRole("button", { name: "Acquista ora" }).first());
  await expect(page).toHaveURL(/\/checkout\/[0-9a-f-]{36}\/$/);
  // 'Acquista ora' is a plain form (a document request, with JavaScript too): the checkout is a
  // new page, whose focus starts at the top.
  await expect(page.getByRole("heading", { name: "Checkout", level: 1 })).toBeVisible();
  await expectFocusAtTop(page);
  // Typed before the scripts load, a field would lose it to the hydration: wait for it.
  await waitForHydration(page);
  for (const label of [
    "Ho letto e accetto le condizioni di vendita",
    "Ho letto e accetto le condizioni di recesso e cancellazione",
  ]) {
    await press(page, page.getByLabel(label), "Space");
    await expect(page.getByLabel(label)).toBeChecked();
  }
  const form = page.locator("form#checkout");
  await typeInto(page, form.getByLabel("Titolare della carta"), "Lucia Bianchi");
  await typeInto(page, form.getByLabel("Numero della carta"), "4242 4242 4242 4242");
  await typeInto(page, form.getByLabel("Scadenza (MM/AA)"), futureExpiry());
  await typeInto(page, form.getByLabel("Codice di sicurezza (CVC)"), "123");
  await press(page, page.getByRole("button", { name: "Completa l'acquisto" }));

  await expectPageStart(page, page.getByRole("heading", { name: "Ordine confermato", level: 1 }));
  // With JavaScript the sandbox's card confirmation ends with the return address loaded as a
  // document (?redirect_status=succeeded): that page's focus is on its heading too.
  if (javaScript()) {
    await expect(page).toHaveURL(/redirect_status=succeeded/);
    await waitForHydration(page);
    await expect(page.getByRole("heading", { name: "Ordine confermato", level: 1 })).toBeFocused();
  }
  // With JavaScript the receipt opens the print dialog and, once it is closed, goes back where the
  // customer came from (receipt.tsx); headless Chromium closes it at once, so the page would leave
  // while the test looks at it. Here the dialog stays open.
  if (javaScript()) await page.addInitScript(() => (window.print = () => {}));
  await press(page, main.getByRole("link", { name: "Ricevuta" }));
  await expect(page).toHaveURL(/\/ricevuta\/[^/]+\/$/);
  // 'Ricevuta' is a link to a document: a page load, whose focus starts at the top.
  await expect(page.getByRole("heading", { name: "Ricevuta", level: 1 })).toBeVisible();
  await expectFocusAtTop(page);
});

test("the account console by keyboard: from the user menu to 'Esci da tutti gli altri'", async ({ page, browser }) => {
  const email = await signedInCustomer(page);
  // The same account signed in on another device.
  const phone = await browser.newContext();
  await signInOverHttp(await phone.newPage(), email);
  await waitForHydration(page);

  // The user menu opens with Enter and stays open while its items are Tabbed through.
  const menuButton = page.getByRole("banner").locator("summary[aria-label='Menu utente']");
  const menu = page.getByRole("banner").getByRole("navigation", { name: "Menu utente" });
  await press(page, menuButton);
  await press(page, menu.getByRole("link", { name: "Il mio account" }));
  await expect(page).toHaveURL(/\/profile\/$/);
  await expectPageStart(page, page.getByRole("heading", { name: "Il mio account", level: 1 }));

  await press(
    page,
    page.getByRole("navigation", { name: "Impostazioni account" }).getByRole("link", { name: "Dove hai effettuato l'accesso" }),
  );
  await expect(page).toHaveURL(/\/profile\/sessions\/$/);
  await expectPageStart(page, page.getByRole("heading", { name: "Dove hai effettuato l'accesso", level: 1 }));
  const list = page.getByRole("list", { name: "Accessi al tuo account" });
  await expect(list.getByRole("listitem")).toHaveCount(2);

  const signOutOthers = page.getByRole("button", { name: "Esci da tutti gli altri" });
  await press(page, signOutOthers);
  // Announced: the toast is a live region, and its 'Chiudi' is reachable.
  const toast = page.locator(".toast[role=status]").filter({ hasText: "Sei uscito da tutti gli altri dispositivi" });
  await expect(toast).toBeAttached();
  await expect(list.getByRole("listitem")).toHaveCount(1);
  await expect(signOutOthers).toHaveCount(0);
  // The button went with what it ended: with JavaScript the focus does not fall to nowhere but
  // goes to the page's heading (navigation-focus.ts), as the reply's page load starts at the top
  // without it.
  if (javaScript()) await expect(page.getByRole("heading", { name: "Dove hai effettuato l'accesso", level: 1 })).toBeFocused();
  else await expectFocusAtTop(page);
  await press(page, toast.getByRole("button", { name: "Chiudi" }));
  await expect(toast.getByRole("dialog")).toBeHidden();

  // The phone's next visit asks for the password.
  const phonePage = phone.pages()[0]!;
  await phonePage.goto("/dashboard/");
  await expect(phonePage.getByRole("heading", { name: "Accedi", level: 1 })).toBeVisible();
  await phone.close();
});
