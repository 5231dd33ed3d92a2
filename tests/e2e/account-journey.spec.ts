// The customer's whole account journey (issue: identity and accounts), with and without JavaScript.
import { expect, test, type Page } from "@playwright/test";
import { claimCustomer, signedInCustomer, signInOverHttp } from "./customers";
import { linkFromMail } from "./mailbox";
import { expectAccessible } from "./support";
import {
  completeFirstAccess,
  expectToast,
  giveEachTestItsOwnAddress,
  newEmail,
  register,
  registerAndSignIn,
  signIn,
  signOut,
  submitLogin,
} from "./identity-support";

giveEachTestItsOwnAddress();

test("register, first access as a student, account, preferences, password change, sign out and in again", async ({ page }) => {
  // Seven pages, two accessibility scans and two argon2id checks: on a busy 2-core machine this
  // passed 30 s once, so it gets the slow-test budget.
  test.slow();
  const email = newEmail("percorso");
  await registerAndSignIn(page, email);
  await expectAccessible(page);
  await completeFirstAccess(page, "Studente");
  await expect(page.getByRole("heading", { name: "Ciao, Mario!" })).toBeVisible();

  // The account page: edit and save.
  await page.goto("/profile/");
  const account = page.getByRole("main");
  await expect(account.getByRole("heading", { name: "Il mio account" })).toBeVisible();
  await expect(account.getByLabel("Professione")).toBeDisabled();
  await account.getByLabel("Cognome").fill("Bianchi");
  await account.getByRole("button", { name: "Salva" }).click();
  await expectToast(page, "Profilo aggiornato");
  await expect(page.getByRole("main").getByLabel("Cognome")).toHaveValue("Bianchi");
  await expectAccessible(page);

  // Preferences: the marketing consent.
  await page.goto("/profile/preferences/");
  await page
    .getByRole("main")
    .getByRole("checkbox", { name: /newsletter/ })
    .check();
  await page.getByRole("main").getByRole("button", { name: "Salva" }).click();
  await expectToast(page, "Preferenze aggiornate");
  await expect(page.getByRole("main").getByRole("checkbox", { name: /newsletter/ })).toBeChecked();

  // Change the password.
  await page.goto("/profile/change-password/");
  const change = page.getByRole("main");
  await expect(change.getByRole("heading", { name: "Modifica Password" })).toBeVisible();
  await change.getByLabel("Password attuale").fill("Segreta1!");
  await change.getByLabel("Nuova password", { exact: true }).fill("Nuovissima2#");
  await change.getByLabel("Conferma la nuova password").fill("Nuovissima2#");
  await change.getByRole("button", { name: "Salva" }).click();
  await expectToast(page, "Password aggiornata");

  // Sign out, then in with the new password (the old one no longer works).
  await signOut(page, "/dashboard/");
  await submitLogin(page, email, "Segreta1!");
  await expect(page.getByRole("alert")).toHaveText("Email o password non corretti");
  await submitLogin(page, email, "Nuovissima2#");
  await expect(page).toHaveURL(/\/dashboard\/$/);
});

/** A customer of the pool who has not done the first access yet, signed in: on its first step. */
async function atFirstAccess(page: Page) {
  await signInOverHttp(page, claimCustomer("new"), "/profilo/primoaccesso/");
  await expect(page.getByRole("heading", { name: "Completa il tuo profilo" })).toBeVisible();
}

test("first access as a professor: university, then subject", async ({ page }) => {
  await atFirstAccess(page);
  await completeFirstAccess(page, "Docente");
});

test("first access as another professional: interests", async ({ page }) => {
  await atFirstAccess(page);
  await completeFirstAccess(page, "Professionista");
});

test("forgotten password: request, e-mailed link, new password, sign in", async ({ page }) => {
  const email = newEmail("dimenticata");
  await register(page, { email });
  await page.goto("/forgot-password/");
  await page.getByRole("main").getByLabel("Email").fill(email);
  await page.getByRole("main").getByRole("button", { name: "Invia" }).click();
  await expectToast(page, "Richiesta inviata, controlla la tua casella email");
  await expectAccessible(page);
  // The address stays out of the address bar (and so out of history and logs), yet 'Rinvia' is
  // offered for it.
  expect(page.url()).not.toContain(encodeURIComponent(email));
  expect(page.url()).not.toContain(email);
  await expect(page.getByRole("main").getByRole("button", { name: "Rinvia" })).toBeVisible();

  const link = await linkFromMail(email, /Reimposta la tua password/, /\/forgot-password\/reset\//);
  await page.goto(link);
  const form = page.getByRole("main");
  await form.getByLabel("Nuova password", { exact: true }).fill("Ritrovata3!");
  await form.getByLabel("Conferma la nuova password").fill("Ritrovata3!");
  await form.getByRole("button", { name: "Salva la nuova password" }).click();
  await expect(page.getByRole("heading", { name: "Password aggiornata" })).toBeVisible();

  // The link works once.
  await page.goto(link);
  await expect(page.getByRole("heading", { name: "Ooops. il tuo link è scaduto!" })).toBeVisible();

  await signIn(page, email, "Ritrovata3!");
  await expect(page).toHaveURL(/\/profilo\/primoaccesso\/$/);
});

test("an unknown e-mail gets 'Email non trovata'", async ({ page }) => {
  await page.goto("/forgot-password/");
  await page.getByRole("main").getByLabel("Email").fill(newEmail("sconosciuto"));
  await page.getByRole("main").getByRole("button", { name: "Invia" }).click();
  await expect(page.getByRole("alert")).toContainText("Email non trovata");
});

test("a deleted account cannot sign in, and its e-mail can register again", async ({ page }) => {
  const email = await signedInCustomer(page, "professional");

  await page.goto("/profile/delete-user/");
  await page.getByRole("main").getByRole("button", { name: "Conferma" }).click();
  const confirmed = page.getByRole("dialog", { name: "Cancellazione utente confermata" });
  await expect(confirmed).toBeVisible();
  await confirmed.getByRole("link", { name: "Home Page" }).click();
  await expect(page.getByRole("heading", { name: "Accedi", level: 1 })).toBeVisible(); // / → dashboard → sign-in

  await submitLogin(page, email, "Segreta1!");
  await expect(page.getByRole("alert")).toHaveText("Email o password non corretti");

  await registerAndSignIn(page, email, "DiNuovo4!");
});

test("a new e-mail takes the current password and becomes the account's only through the link sent to it", async ({ page }) => {
  const wanted = newEmail("nuova");
  const email = await signedInCustomer(page, "professional");

  await page.goto("/profile/");
  const account = page.getByRole("main");
  await account.getByLabel("Email", { exact: true }).fill(wanted);
  await account.getByRole("button", { name: "Salva" }).click();
  await expect(page.getByRole("main").getByText("Per cambiare l'email inserisci la password attuale").first()).toBeVisible();

  await page
    .getByRole("main")
    .getByLabel(/^Password attuale/)
    .fill("Segreta1!");
  await page.getByRole("main").getByRole("button", { name: "Salva" }).click();
  await expectToast(page, "Ti abbiamo inviato un link al nuovo indirizzo");
  await expect(page.getByRole("main").getByLabel("Utente")).toHaveValue(email);

  await page.goto(await linkFromMail(wanted, /Conferma il tuo nuovo indirizzo email/, /\/profile\/confirm-email\//));
  await expect(page.getByRole("heading", { name: "Conferma il nuovo indirizzo email" })).toBeVisible();
  await expectAccessible(page);
  await page.getByRole("main").getByRole("button", { name: "Conferma" }).click();
  await expect(page.getByRole("heading", { name: "Email aggiornata" })).toBeVisible();

  await page.goto("/profile/");
  await expect(page.getByRole("main").getByLabel("Utente")).toHaveValue(wanted);
});
