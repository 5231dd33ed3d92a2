// The library in the browser, with and without JavaScript: activating a code from the header and
// from ?show=activateProduct, the dashboard per profession with every button state, reading.
import { expect, test, type Page } from "@playwright/test";
import { signedInCustomer, signInOverHttp } from "./customers";
import { E2E_PASSWORD, fixtures } from "./fixtures";
import { expectToast, giveEachTestItsOwnAddress, submitLogin } from "./identity-support";
import { activate, activateFromDashboard, expectAccessible, productCard } from "./support";

giveEachTestItsOwnAddress();

/** A new student who has completed first access, on the dashboard (a customer of the pool: customers.ts). */
async function newStudent(page: Page) {
  await signedInCustomer(page, "student");
}

async function signInAs(page: Page, email: string) {
  await signInOverHttp(page, email, "/dashboard/");
  await expect(page.getByRole("heading", { name: "I tuoi prodotti" })).toBeVisible();
}

const javaScript = () => test.info().project.use.javaScriptEnabled !== false;

test("a new customer activates a code from the header and reads the book", async ({ page }) => {
  const { ebook } = fixtures().codes;
  await newStudent(page);
  await page.getByRole("banner").getByRole("link", { name: "Inserisci codice" }).click();
  await expect(page).toHaveURL(/show=activateProduct/);
  await expectAccessible(page);
  await activate(page, ebook.code);

  await expect(page).toHaveURL(/\/dashboard\/$/);
  // The success toast, with and without JavaScript.
  await expectToast(page, "Prodotto attivato");
  await expect(page.locator(".toast")).toContainText(ebook.product);
  // The continue-learning box shows the product just activated (spec §2: the last product).
  const continueBox = page.getByRole("region", { name: "Continua a studiare" });
  await expect(continueBox.getByRole("heading", { name: ebook.product })).toBeVisible();
  await expect(page.getByText("Inizia da un libro")).toHaveCount(0);
  const card = productCard(page, ebook.product);
  await expect(card.getByText(/^Accedi fino al \d{2}\/\d{2}\/\d{4}$/)).toBeVisible();
  await card.getByRole("button", { name: /Inizia a leggere/ }).click();

  await expect(page).toHaveURL(/\/leggi\/[0-9a-f-]+\//);
  await expect(page.getByRole("heading", { level: 1, name: ebook.product })).toBeVisible();
  await expect(page.getByText(/^Capitolo 1 di \d+$/)).toBeVisible();
  const firstChapter = (await page.locator("#capitolo").textContent())!.trim();
  await page.goto("/dashboard/");
  await expect(productCard(page, ebook.product).getByRole("button", { name: /Continua a leggere/ })).toBeVisible();
  // The status is the chapter being read; 'Contenuti aggiuntivi' is for expired access only.
  for (const where of [productCard(page, ebook.product), continueBox]) {
    await expect(where.getByText(`Stai leggendo: ${firstChapter}`)).toBeVisible();
  }
});

test("an invalid code gets the invalid mark, says so in words, and changes nothing", async ({ page }) => {
  await newStudent(page);
  await page.goto("/dashboard/?show=activateProduct");
  const dialog = page.getByRole("dialog", { name: "ESPANDI IL LIBRO" });
  await dialog.getByLabel("Codice di attivazione").fill("ABCD-EFGH-JKMN-PQRS");
  if (javaScript()) {
    await expect(dialog.getByText("Codice non valido")).toBeVisible();
    await expect(dialog.getByLabel("Codice di attivazione")).toHaveAccessibleDescription("Codice non valido");
    // Conferma acts only on a valid code: it says so, and submitting the form does nothing.
    await expect(dialog.getByRole("button", { name: "Conferma" })).toHaveAttribute("aria-disabled", "true");
    await dialog.getByLabel("Codice di attivazione").press("Enter");
    await expect(dialog).toBeVisible();
    await expect(page).toHaveURL(/\/dashboard\/\?show=activateProduct$/);
  } else {
    await dialog.getByRole("button", { name: "Conferma" }).click();
    // Beside the field (the page's error summary says it too).
    await expect(page.getByRole("status").filter({ hasText: "Codice non valido" })).toBeVisible();
    await expect(page.getByLabel("Codice di attivazione")).toHaveAccessibleDescription("Codice non valido");
    await expect(page.getByLabel("Codice di attivazione")).toHaveAttribute("aria-invalid", "true");
    await expectAccessible(page);
  }
  await page.goto("/dashboard/");
  await expect(page.getByText("Non hai ancora prodotti in questa sezione.")).toBeVisible();
});

test("a code already used by someone else is invalid; by the same customer, it says so", async ({ page }) => {
  const code = fixtures().codes.singleUse[javaScript() ? 0 : 1]!;
  await newStudent(page);
  await page.goto("/help-center/?show=activateProduct");
  await activate(page, code);
  // Elsewhere than on the dashboard, success leads to the dashboard.
  await expect(page).toHaveURL(/\/dashboard\/$/);

  await page.goto("/dashboard/?show=activateProduct");
  const dialog = page.getByRole("dialog", { name: "ESPANDI IL LIBRO" });
  await dialog.getByLabel("Codice di attivazione").fill(code);
  if (!javaScript()) await dialog.getByRole("button", { name: "Conferma" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Hai già attivato questo codice" })).toBeVisible();
  // Told one thing only: nothing hidden calls the code invalid.
  await expect(page.getByRole("textbox", { name: "Codice di attivazione" })).toHaveAccessibleDescription(
    /^Hai già attivato questo codice/,
  );
  await expect(page.getByText("Codice non valido")).toHaveCount(0);
});

test("an eBook+EDU code gives the ebook and switches the dashboard to the EDU promo", async ({ page }) => {
  const { ebookEdu } = fixtures().codes;
  await newStudent(page);
  await expect(page.getByRole("link", { name: "Scopri EDU" })).toBeVisible();
  await activateFromDashboard(page, ebookEdu);
  await expect(page.getByRole("link", { name: "Vai a EDU" })).toBeVisible();
});

test("a student's dashboard: every book state, tabs with counts, no journals", async ({ page }) => {
  const { student } = fixtures();
  await signInAs(page, student.email);

  const started = productCard(page, student.started.name);
  await expect(started.getByRole("button", { name: /Continua a leggere/ })).toBeVisible();
  await expect(started.getByText(student.started.chapter)).toBeVisible();

  const expired = productCard(page, student.expired);
  await expect(expired.getByText("Accesso scaduto")).toBeVisible();
  await expect(expired.getByRole("link", { name: /Contenuti aggiuntivi/ })).toBeVisible();
  await expect(expired.getByRole("link", { name: /Acquista di nuovo/ })).toBeVisible();
  await expect(expired.getByText(/Accedi fino al/)).toHaveCount(0);

  const fresh = productCard(page, student.fresh);
  await expect(fresh.getByRole("button", { name: /Inizia a leggere/ })).toBeVisible();
  await expect(fresh.getByText("Novità")).toBeVisible();

  await expect(productCard(page, student.course).getByRole("link", { name: /Accedi al corso/ })).toHaveAttribute(
    "href",
    /\/course\/view\.php\?id=\d+$/,
  );

  // The last product read is the one to continue.
  await expect(
    page.getByRole("region", { name: "Continua a studiare" }).getByRole("heading", { name: student.started.name }),
  ).toBeVisible();

  const tabs = page.getByRole("navigation", { name: /Filtra/ });
  await expect(tabs.getByRole("link", { name: /Tutti\D*4/ })).toHaveAttribute("aria-current", "page");
  await expect(tabs.getByRole("link", { name: /Libri\D*3/ })).toBeVisible();
  await tabs.getByRole("link", { name: /Corsi\D*1/ }).click();
  await expect(page).toHaveURL(/filtro=corsi/);
  await expect(page.getByRole("list", { name: "Prodotti", exact: true }).getByRole("listitem")).toHaveCount(1);

  await expect(page.getByRole("heading", { name: "Libri per te" })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Corsi per te" })).toBeVisible();
  await expect(page.getByText("Aula + Streaming").first()).toBeAttached();
  await expect(page.getByRole("heading", { name: "Riviste per te" })).toHaveCount(0);
  await expectAccessible(page);
});

test("a professor's dashboard: journals, no courses, the EDU promo while EDU runs", async ({ page }) => {
  const { professor } = fixtures();
  await signInAs(page, professor.email);
  await expect(productCard(page, professor.journal).getByRole("link", { name: /Vai alla rivista/ })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Riviste per te" })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Corsi per te" })).toHaveCount(0);
  await expect(page.getByRole("link", { name: "Vai a EDU" })).toBeVisible();
  await expectAccessible(page);

  // EDU is running: the EDU page does not sell it again.
  await page.goto("/edu/");
  const buy = page.getByRole("link", { name: "Acquista ora" });
  await expect(buy).toHaveAttribute("aria-disabled", "true");
  await expect(buy).toHaveAttribute("href", "/edu/");
  await expect(page.getByText(/Il tuo abbonamento EDU è attivo fino (al |all')\d{2}\/\d{2}\/\d{4}/)).toBeVisible();
});

test("a legal professional's dashboard shows journals and courses", async ({ page }) => {
  await signInAs(page, fixtures().professional.email);
  await expect(page.getByRole("heading", { name: "Riviste per te" })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Corsi per te" })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Libri per te" })).toBeVisible();
});

test("the activation prompt pages offer 'Attiva prodotto' to a signed-in customer", async ({ page }) => {
  await signInAs(page, fixtures().professional.email);
  await page.goto("/attivaebook/");
  await page.getByRole("main").getByRole("link", { name: "Attiva prodotto" }).click();
  await expect(page.getByRole("dialog", { name: "ESPANDI IL LIBRO" })).toBeVisible();
  await page.getByRole("dialog").getByRole("link", { name: "Annulla" }).click();
  await expect(page).toHaveURL(/\/attivaebook\/$/);
  await expect(page.getByRole("dialog")).toHaveCount(0);
});

test("?show=activateProduct sends a signed-out visitor to sign in, then opens the modal", async ({ page }) => {
  await page.goto("/help-center/?show=activateProduct");
  await expect(page.getByRole("heading", { name: "Accedi", level: 1 })).toBeVisible();
  await submitLogin(page, fixtures().professional.email, E2E_PASSWORD);
  await expect(page).toHaveURL(/\/help-center\/\?show=activateProduct$/);
  await expect(page.getByRole("dialog", { name: "ESPANDI IL LIBRO" })).toBeVisible();
});
