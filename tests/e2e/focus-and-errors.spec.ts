// Where focus goes, and what a screen reader is told, after a refused form, a client-side
// navigation and the first-access steps (issue 30, WCAG 2.2 AA); with and without JavaScript.
import { expect, test, type Page } from "@playwright/test";
import { giveEachTestItsOwnAddress, newEmail, registerAndSignIn } from "./identity-support";
import { newStudent, openEduCheckout } from "./checkout-support";
import { signedInCustomer } from "./customers";
import { expectAccessible } from "./support";

giveEachTestItsOwnAddress();

const javaScript = () => test.info().project.use.javaScriptEnabled !== false;

/** Tabs from the top of the page until `name`'s button has focus, then presses it. */
async function pressButtonByKeyboard(page: Page, name: string) {
  const button = page.getByRole("main").getByRole("button", { name });
  for (let tabs = 0; tabs < 80; tabs++) {
    await page.keyboard.press("Tab");
    if (await button.evaluate((el) => el === document.activeElement)) break;
  }
  await expect(button).toBeFocused();
  await page.keyboard.press("Enter");
}

test("a refused registration says so first: the summary after the heading, the title, focus", async ({ page }) => {
  await page.goto("/register/");
  await pressButtonByKeyboard(page, "Crea account");

  const summary = page.getByRole("main").locator("[data-error-summary]");
  await expect(summary.getByRole("heading", { name: "Ci sono 5 errori da correggere" })).toBeVisible();
  await expect(page).toHaveTitle(/^Errore: Crea il tuo account · /);
  // The summary is the first thing after the page's heading.
  expect(await page.locator("main h1").evaluate((h1) => h1.nextElementSibling?.hasAttribute("data-error-summary"))).toBe(true);
  await expect(summary.getByRole("link", { name: "Nome obbligatorio", exact: true })).toBeVisible();

  if (javaScript()) {
    // The reply came through fetch: focus goes to the summary, which a screen reader reads.
    await expect(summary).toBeFocused();
    await expect(summary).toHaveAccessibleName("Ci sono 5 errori da correggere");
  } else {
    // A new page: its first stop in the content is the summary's first link.
    await page.keyboard.press("Tab");
    await expect(page.getByRole("link", { name: "Vai al contenuto" })).toBeFocused();
    await page.keyboard.press("Enter");
  }
  // Its links lead to the fields, which say what is wrong.
  await page.keyboard.press("Tab");
  await expect(summary.getByRole("link", { name: "Nome obbligatorio", exact: true })).toBeFocused();
  await page.keyboard.press("Enter");
  const firstname = page.getByRole("main").getByLabel("Nome", { exact: true });
  await expect(firstname).toBeFocused();
  await expect(firstname).toHaveAccessibleDescription("Nome obbligatorio");
  await expectAccessible(page);
});

test("'Vai al contenuto' after a refused form keeps the reply: it moves the focus, it is not a navigation", async ({ page }) => {
  await page.goto("/register/");
  await pressButtonByKeyboard(page, "Crea account");
  const summary = page.getByRole("main").locator("[data-error-summary]");
  await expect(summary).toBeVisible();
  await page.getByRole("link", { name: "Vai al contenuto" }).focus();
  await page.keyboard.press("Enter");
  await expect(page.getByRole("main")).toBeFocused();
  await expect(summary).toBeVisible();
  await expect(page).toHaveTitle(/^Errore: /);
});

test("a refused first-access step has the summary, the title and the focus too", async ({ page }) => {
  await registerAndSignIn(page, newEmail("focus.step"));
  await expect(page).toHaveTitle(/^Completa il tuo profilo: Professione \(passo 1 di 3\) · /);
  await pressButtonByKeyboard(page, "Continua");
  const summary = page.getByRole("main").locator("[data-error-summary]");
  await expect(summary.getByRole("link", { name: "Seleziona la tua professione" })).toBeVisible();
  await expect(page).toHaveTitle(/^Errore: Completa il tuo profilo: Professione/);
  if (javaScript()) await expect(summary).toBeFocused();
});

test("a refused account page: the summary, the title, and its link to the field", async ({ page }) => {
  await signedInCustomer(page, "student");
  await page.goto("/profile/");
  const main = page.getByRole("main");
  await main.getByLabel("Nome", { exact: true }).fill("");
  await main.getByRole("button", { name: "Salva" }).press("Enter");
  const summary = main.locator("[data-error-summary]");
  const link = summary.getByRole("link", { name: "Nome obbligatorio", exact: true });
  await expect(link).toBeVisible();
  await expect(page).toHaveTitle(/^Errore: Il mio account · /);
  if (javaScript()) await expect(summary).toBeFocused();
  await link.focus();
  await page.keyboard.press("Enter");
  await expect(main.getByLabel("Nome", { exact: true })).toBeFocused();
  // With JavaScript too the page still shows the reply: following the link is not a navigation.
  await expect(link).toBeVisible();
});

test("each first-access step has its own title", async ({ page }) => {
  await registerAndSignIn(page, newEmail("focus.titles"));
  const main = page.getByRole("main");
  await expect(page).toHaveTitle("Completa il tuo profilo: Professione (passo 1 di 3) · Novalex Editore");
  await main.getByLabel("Studente").check();
  await main.getByRole("button", { name: "Continua" }).click();
  await expect(page).toHaveTitle("Completa il tuo profilo: Università (passo 2 di 3) · Novalex Editore");
  await main.getByRole("combobox", { name: "La tua università" }).selectOption({ index: 1 });
  await main.getByRole("button", { name: "Continua" }).click();
  await expect(page).toHaveTitle("Completa il tuo profilo: Corso di laurea (passo 3 di 3) · Novalex Editore");
});

test("an unknown address is told in Italian, and an error explained in Italian", async ({ page, request }) => {
  await page.goto("/pagina-che-non-esiste/");
  await expect(page.getByRole("heading", { level: 1, name: "Pagina non trovata" })).toBeVisible();
  await expect(page).toHaveTitle("Pagina non trovata · Novalex Editore");
  const response = await request.post("/edu/", { form: { x: "1" } });
  const html = await response.text();
  expect(html).toContain("Si è verificato un errore imprevisto");
});

test("on a narrow screen the checkout's summary comes before the form in Tab order as on screen", async ({ page }) => {
  await newStudent(page);
  await page.setViewportSize({ width: 1000, height: 900 });
  await openEduCheckout(page);
  const coupon = page.getByText("Hai un codice sconto?");
  const pay = page.getByRole("button", { name: "Completa l'acquisto" });
  const aside = page.getByRole("complementary", { name: "Riepilogo ordine" });
  const form = page.locator("form#checkout");
  expect((await aside.boundingBox())!.y).toBeLessThan((await form.boundingBox())!.y);
  let couponReached = false;
  for (let tabs = 0; tabs < 150; tabs++) {
    await page.keyboard.press("Tab");
    if (await coupon.evaluate((el) => el === document.activeElement)) couponReached = true;
    if (await pay.evaluate((el) => el === document.activeElement)) break;
  }
  await expect(pay).toBeFocused();
  expect(couponReached).toBe(true);
  // Wide, the summary stays in the right column beside the form.
  await page.setViewportSize({ width: 1280, height: 900 });
  // From the top: further down the summary sticks to the top of the window.
  await page.evaluate(() => window.scrollTo(0, 0));
  const [a, f] = [(await aside.boundingBox())!, (await form.boundingBox())!];
  expect(a.x).toBeGreaterThan(f.x + f.width - 1);
  expect(Math.abs(a.y - f.y)).toBeLessThan(2);
});
