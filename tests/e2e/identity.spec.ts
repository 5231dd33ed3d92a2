import { expect, test } from "@playwright/test";
import { claimCustomer } from "./customers";
import { expectAccessible } from "./support";
import { giveEachTestItsOwnAddress } from "./identity-support";

giveEachTestItsOwnAddress();
import { fillRegistration, newEmail, register, sessionCookie, signIn, signOut, submitLogin } from "./identity-support";

test("a visitor registers and is signed in through the identity provider", async ({ page }) => {
  const email = newEmail("registra");
  await register(page, { email });
  await expectAccessible(page);
  await submitLogin(page, email, "Segreta1!");
  // No profession yet: the dashboard sends the customer to complete the first access.
  await expect(page).toHaveURL(/\/profilo\/primoaccesso\/$/);
  await page.goto("/edu/");
  await expect(page.getByRole("banner").getByLabel("Menu utente").first()).toHaveText("MR");
});

test("registration shows the spec's messages and keeps what was typed", async ({ page }) => {
  await page.goto("/register/");
  await expect(page.getByRole("heading", { name: "Crea il tuo account" })).toBeVisible();
  const main = page.getByRole("main");
  await main.getByLabel("Email").fill("non-una-email");
  await main.getByLabel("Password", { exact: true }).fill("corta");
  await main.getByRole("button", { name: "Crea account" }).click();
  // Each message beside its field, which it describes (the error summary repeats them above).
  await expect(main.getByLabel("Nome", { exact: true })).toHaveAccessibleDescription("Nome obbligatorio");
  await expect(main.getByLabel("Cognome")).toHaveAccessibleDescription("Cognome obbligatorio");
  await expect(main.getByLabel("Email")).toHaveAccessibleDescription("Inserisci un indirizzo email valido");
  await expect(main.getByLabel("Password", { exact: true })).toHaveAccessibleDescription(/La password non rispetta i requisiti$/);
  await expect(main.getByRole("checkbox")).toHaveAccessibleDescription("Devi accettare i termini e le condizioni");
  for (const message of ["Nome obbligatorio", "Cognome obbligatorio", "Inserisci un indirizzo email valido"]) {
    await expect(main.locator(".field-error").getByText(message, { exact: true })).toBeVisible();
  }
  await expect(main.getByLabel("Email")).toHaveValue("non-una-email");
  for (const hint of ["8 caratteri o più", "Almeno un carattere speciale (# ! ? -)", "1 lettera maiuscola", "1 numero"]) {
    await expect(main.getByText(hint)).toBeVisible();
  }
  await expectAccessible(page);
});

test("an e-mail already registered gets the 'Email già registrata' alert", async ({ page }) => {
  await fillRegistration(page, { email: claimCustomer("new").toUpperCase() });
  const alert = page.getByRole("alert");
  await expect(alert).toContainText("Email già registrata");
  await expect(alert).toContainText("è gia presente nel nostro database");
  await expect(alert.getByRole("link", { name: "Pagina Login" })).toHaveAttribute("href", "/login/");
});

test("a wrong password gets one generic message", async ({ page }) => {
  await signIn(page, claimCustomer("new"), "Sbagliata1!");
  await expect(page.getByRole("alert")).toHaveText("Email o password non corretti");
  await submitLogin(page, newEmail("nessuno"), "Sbagliata1!");
  await expect(page.getByRole("alert")).toHaveText("Email o password non corretti");
});

test("private pages send visitors to sign in and back", async ({ page }) => {
  const email = claimCustomer("new");
  await page.goto("/dashboard/");
  await expect(page.getByRole("heading", { name: "Accedi", level: 1 })).toBeVisible();
  await submitLogin(page, email, "Segreta1!");
  await expect(page).toHaveURL(/\/profilo\/primoaccesso\/$/); // via /dashboard/, which needs a profession
});

for (const target of ["https://evil.example/", "//evil.example/x"]) {
  test(`redirect=${target} lands on the portal, not elsewhere`, async ({ page }) => {
    await signIn(page, claimCustomer("new"), "Segreta1!", `/login/?redirect=${encodeURIComponent(target)}`);
    await expect(page).toHaveURL(/^http:\/\/localhost:\d+\//);
    expect(new URL(page.url()).hostname).toBe("localhost");
  });
}

test("every sign-in gets a new session id, and after sign-out the old cookie is refused", async ({ page }) => {
  const email = claimCustomer("new");
  await signIn(page, email, "Segreta1!");
  await expect(page).toHaveURL(/primoaccesso/);
  const first = await sessionCookie(page);
  expect(first?.httpOnly).toBe(true);
  expect(first?.sameSite).toBe("Lax");

  await signOut(page, "/edu/");
  await submitLogin(page, email, "Segreta1!");
  await expect(page).toHaveURL(/\/edu\/$/); // back where the customer signed out
  const second = await sessionCookie(page);
  expect(second?.value).toBeTruthy();
  expect(second?.value).not.toBe(first?.value);

  // The first session ended at sign-out: its cookie no longer opens private pages.
  await page.context().clearCookies();
  await page.context().addCookies([first!]);
  await page.goto("/dashboard/");
  await expect(page.getByRole("heading", { name: "Accedi", level: 1 })).toBeVisible();
});

test("the sign-out dialog's 'Annulla' keeps the customer signed in", async ({ page }) => {
  await signIn(page, claimCustomer("new"), "Segreta1!");
  // Signed in once the sign-in's own redirects have landed; a goto before then is cut short.
  await expect(page).toHaveURL(/primoaccesso/);
  await page.goto("/help-center/?show=userLogout");
  await page.getByRole("dialog").getByRole("link", { name: "Annulla" }).click();
  await expect(page).toHaveURL(/\/help-center\/$/);
  await expect(page.getByRole("banner").getByLabel("Menu utente").first()).toBeVisible();
});

test("sign-out is one step and stays signed out: the next private page asks for the password", async ({ page }) => {
  await signIn(page, claimCustomer("new"), "Segreta1!");
  await expect(page).toHaveURL(/primoaccesso/);

  // 'Esci' → 'Conferma' ends on the login screen, with no confirmation page of the provider and
  // no token in any address the browser visited.
  const visited: string[] = [];
  page.on("request", (request) => visited.push(request.url()));
  await signOut(page, "/edu/");
  expect(visited.join("\n")).not.toMatch(/id_token_hint|session\/end/);

  // On a shared computer the next person opens a private page: the provider must not sign the
  // previous customer back in without a password.
  await page.goto("/dashboard/");
  await expect(page.getByRole("heading", { name: "Accedi", level: 1 })).toBeVisible();
  await expect(page.getByLabel("Password", { exact: true })).toHaveValue("");
});

test("'Registrati' on the login screen keeps where the visitor was going, through registration", async ({ page }) => {
  const email = newEmail("registra.redirect");
  await page.goto("/login/?redirect=/edu/");
  await expect(page.getByRole("heading", { name: "Accedi", level: 1 })).toBeVisible();
  await page.getByRole("main").getByRole("link", { name: "Registrati" }).click();
  await expect(page).toHaveURL(/\/register\/\?redirect=%2Fedu%2F$/);
  const form = page.getByRole("main");
  await form.getByLabel("Nome", { exact: true }).fill("Mario");
  await form.getByLabel("Cognome").fill("Rossi");
  await form.getByLabel("Email").fill(email);
  await form.getByLabel("Password", { exact: true }).fill("Segreta1!");
  await form.getByRole("checkbox").check();
  await form.getByRole("button", { name: "Crea account" }).click();
  await expect(page.getByRole("heading", { name: "Accedi", level: 1 })).toBeVisible();
  await submitLogin(page, email, "Segreta1!");
  await expect(page).toHaveURL(/\/edu\/$/);
  await expect(page.getByRole("banner").getByLabel("Menu utente").first()).toHaveText("MR");
});
