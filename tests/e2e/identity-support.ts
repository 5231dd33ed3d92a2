import { expect, test, type Page } from "@playwright/test";

let counter = 0;
/** A new customer's e-mail, unique across parallel workers and projects. */
export function newEmail(tag: string) {
  return `${tag}.${process.pid}.${Date.now()}.${counter++}@example.it`;
}

type Registration = { email: string; password?: string; firstname?: string; lastname?: string };

/** Fills and submits the registration form. */
export async function fillRegistration(
  page: Page,
  { email, password = "Segreta1!", firstname = "Mario", lastname = "Rossi" }: Registration,
) {
  await page.goto("/register/");
  const form = page.getByRole("main");
  await form.getByLabel("Nome", { exact: true }).fill(firstname);
  await form.getByLabel("Cognome").fill(lastname);
  await form.getByLabel("Email").fill(email);
  await form.getByLabel("Password", { exact: true }).fill(password);
  await form.getByRole("checkbox").check();
  await form.getByRole("button", { name: "Crea account" }).click();
}

export async function register(page: Page, registration: Registration) {
  await fillRegistration(page, registration);
  // Registered: the sign-in starts at once and shows the login screen.
  await expect(page.getByRole("heading", { name: "Accedi", level: 1 })).toBeVisible();
}

/** Fills the login screen the browser is on. */
export async function submitLogin(page: Page, email: string, password: string) {
  const main = page.getByRole("main");
  await main.getByLabel("Email").fill(email);
  await main.getByLabel("Password").fill(password);
  await main.getByRole("button", { name: "Accedi" }).click();
}

export async function signIn(page: Page, email: string, password: string, from = "/login/") {
  await page.goto(from);
  await expect(page.getByRole("heading", { name: "Accedi", level: 1 })).toBeVisible();
  await submitLogin(page, email, password);
}

export async function sessionCookie(page: Page) {
  return (await page.context().cookies()).find((c) => c.name.endsWith("portal_session"));
}

/**
 * Each test talks to the portal from its own client address (the e2e server trusts the proxy
 * header), so the per-address rate limits of registration and sign-in see one person each.
 */
export function giveEachTestItsOwnAddress() {
  test.beforeEach(async ({ context }) => {
    const n = Math.floor(Math.random() * 2 ** 24);
    await context.setExtraHTTPHeaders({ "x-forwarded-for": `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}` });
  });
}

/** Signs out through the user menu's dialog, from `from`; ends on the login screen. */
export async function signOut(page: Page, from: string) {
  await page.goto(`${from}?show=userLogout`);
  const dialog = page.getByRole("dialog", { name: "Disconnessione utente" });
  // One step, with or without JavaScript: no confirmation page of the identity provider.
  await dialog.getByRole("button", { name: "Conferma" }).click();
  await expect(page.getByRole("heading", { name: "Accedi", level: 1 })).toBeVisible();
}

export async function registerAndSignIn(page: Page, email: string, password = "Segreta1!") {
  await register(page, { email, password });
  await submitLogin(page, email, password);
  await expect(page.getByRole("heading", { name: "Completa il tuo profilo" })).toBeVisible();
}

/**
 * The toast with this text is on the page. Attached, not visible: it hides itself 5 s after the
 * page appears (a CSS animation, spec §9), and a busy machine can take that long to look.
 */
export async function expectToast(page: Page, text: string) {
  await expect(page.locator(".toast[role=status], .toast[role=alert]").filter({ hasText: text })).toBeAttached();
}

/** First access: the profession, then its branch's steps, then 'Completa'. */
export async function completeFirstAccess(page: Page, profession: "Studente" | "Docente" | "Professionista") {
  const main = page.getByRole("main");
  await main.getByLabel(profession).check();
  await main.getByRole("button", { name: "Continua" }).click();
  if (profession === "Professionista") {
    await main.getByRole("group", { name: "I tuoi interessi" }).getByRole("checkbox").first().check();
  } else {
    const university = profession === "Studente" ? "La tua università" : "Università in cui insegni";
    await main.getByRole("combobox", { name: university }).selectOption({ index: 1 });
    await main.getByRole("button", { name: "Continua" }).click();
    const detail = profession === "Studente" ? "Corso di laurea" : "Materia che insegni";
    await main.getByRole("combobox", { name: detail }).selectOption({ index: 1 });
  }
  await main.getByRole("button", { name: "Completa" }).click();
  await expectToast(page, "Profilo aggiornato");
  await expect(page).toHaveURL(/\/dashboard\/$/);
}
