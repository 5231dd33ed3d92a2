// /my-products/ and the receipts in the browser, with and without JavaScript: the two tabs and
// what they leave out, a card's payment list, the history's pages ('Carica altri' with
// JavaScript, page links without), the receipt (print dialog then back with JavaScript, a
// print-ready page without) and that nobody else sees it. axe checks each page.
import { expect, test, type Page } from "@playwright/test";
import { formatEuro } from "../../shared/format.ts";
import { E2E_PASSWORD, fixtures } from "./fixtures";
import { giveEachTestItsOwnAddress, signIn } from "./identity-support";
import { expectAccessible } from "./support";

giveEachTestItsOwnAddress();

const javaScript = () => test.info().project.use.javaScriptEnabled !== false;
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

// The print dialog cannot be driven: window.print only counts its calls (in sessionStorage, which
// outlives the navigation back).
test.beforeEach(async ({ page }) => {
  await page.addInitScript(() => {
    window.print = () => {
      sessionStorage.setItem("e2e-print-calls", String(Number(sessionStorage.getItem("e2e-print-calls") ?? "0") + 1));
    };
  });
});

const printCalls = (page: Page) => page.evaluate(() => Number(sessionStorage.getItem("e2e-print-calls") ?? "0"));

async function openMyProducts(page: Page, email = fixtures().purchases.email) {
  await signIn(page, email, E2E_PASSWORD, "/login/?redirect=/my-products/");
  await expect(page).toHaveURL(/\/my-products\/$/);
  await expect(page.getByRole("heading", { level: 1, name: "I miei acquisti" })).toBeVisible();
}

const cards = (page: Page, tab: "attivi" | "inattivi") =>
  page.getByRole("list", { name: `Prodotti ${tab}`, exact: true }).getByRole("listitem");

test("the tabs show paid orders under 'Attivi' and the others under 'Inattivi'", async ({ page }) => {
  const { active, cancelled, paperOnly, open } = fixtures().purchases;
  await openMyProducts(page);
  const tabs = page.getByRole("navigation", { name: "Stato dei prodotti" });
  await expect(tabs.getByRole("link", { name: /^Attivi/ })).toHaveAttribute("aria-current", "page");
  await expect(cards(page, "attivi")).toHaveCount(active.length);
  for (const name of active) {
    const card = cards(page, "attivi").filter({ has: page.getByRole("heading", { name, exact: true }) });
    await expect(card.getByText("Attivo", { exact: true })).toBeVisible();
    await expect(card.getByRole("link", { name: new RegExp(`^Ricevuta di ${escape(name)}`) })).toBeVisible();
    await expect(card.getByRole("link", { name: /Acquista di nuovo/ })).toHaveCount(0);
  }
  // Paper-only items and orders still at the checkout are not listed.
  for (const hidden of [paperOnly, open, cancelled]) await expect(page.getByRole("heading", { name: hidden })).toHaveCount(0);
  await expectAccessible(page);

  await tabs.getByRole("link", { name: /^Inattivi/ }).click();
  await expect(page).toHaveURL(/\/my-products\/\?tab=inattivi#i-miei-prodotti$/);
  await expect(tabs.getByRole("link", { name: /^Inattivi/ })).toHaveAttribute("aria-current", "page");
  await expect(cards(page, "inattivi")).toHaveCount(1);
  const card = cards(page, "inattivi").first();
  await expect(card.getByRole("heading", { name: cancelled })).toBeVisible();
  await expect(card.getByText("Annullato", { exact: true })).toBeVisible();
  await expect(card.getByRole("link", { name: new RegExp(`^Acquista di nuovo ${escape(cancelled)}`) })).toHaveAttribute(
    "href",
    /^\/create-checkout\//,
  );
  await expect(card.getByRole("link", { name: new RegExp(`^Ricevuta di ${escape(cancelled)}`) })).toBeVisible();
  await expectAccessible(page);
});

test("an empty tab says so, with a link to the catalogue", async ({ page }) => {
  // The professor's only order is a free activation (a journal and EDU): nothing inactive, no payments.
  const { professor } = fixtures();
  await openMyProducts(page, professor.email);
  await expect(cards(page, "attivi").filter({ has: page.getByRole("heading", { name: professor.journal }) })).toHaveCount(1);
  await page
    .getByRole("navigation", { name: "Stato dei prodotti" })
    .getByRole("link", { name: /^Inattivi/ })
    .click();
  await expect(page.getByText("Non hai prodotti inattivi")).toBeVisible();
  await expect(page.getByRole("link", { name: "Scopri il catalogo dei libri" })).toHaveAttribute("href", /^https?:\/\//);
  await expect(page.getByText("Non hai ancora effettuato pagamenti.")).toBeVisible();
  await expectAccessible(page);
});

test("a card toggles its payment list", async ({ page }) => {
  const { receipt } = fixtures().purchases;
  await openMyProducts(page);
  const card = cards(page, "attivi").filter({ has: page.getByRole("heading", { name: receipt.product, exact: true }) });
  const payment = card.getByRole("link", { name: `Ricevuta del pagamento ${receipt.paymentCode}` });
  await expect(payment).toBeHidden();
  await card.locator("summary").click();
  await expect(payment).toBeVisible();
  await expect(card.getByText(formatEuro(receipt.amountCents), { exact: false })).toBeVisible();
  await expect(card.getByText("Carta di Credito")).toBeVisible();
  await expect(card.getByText("4242")).toBeVisible();
  await expectAccessible(page);
  await card.locator("summary").click();
  await expect(payment).toBeHidden();
});

test("'Storico acquisti' shows 5 payments a page, then the rest", async ({ page }) => {
  const { payments } = fixtures().purchases;
  await openMyProducts(page);
  const history = page.getByRole("list", { name: "Storico acquisti" }).getByRole("listitem");
  await expect(history).toHaveCount(5);
  await expect(history.first().getByText("Numero d'ordine")).toBeVisible();
  await expect(history.filter({ hasText: "Bonifico bancario" })).toHaveCount(1);
  if (javaScript()) {
    await page.getByRole("button", { name: "Carica altri" }).click();
    await expect(history).toHaveCount(payments);
    await expect(page.getByRole("button", { name: "Carica altri" })).toHaveCount(0);
    await expect(page).toHaveURL(/\/my-products\/$/);
  } else {
    await page.getByRole("link", { name: "Pagina successiva" }).click();
    await expect(page).toHaveURL(/\/my-products\/\?pagina=2#storico-acquisti$/);
    await expect(history).toHaveCount(payments - 5);
    await expect(page.getByRole("link", { name: "Pagina successiva" })).toHaveCount(0);
    await expect(page.getByRole("link", { name: "Pagina precedente" })).toBeVisible();
  }
  await expectAccessible(page);
});

test("the receipt opens the print dialog and goes back, or is a print-ready page without JavaScript", async ({ page }) => {
  const { receipt } = fixtures().purchases;
  await openMyProducts(page);
  await page.getByRole("link", { name: new RegExp(`^Ricevuta di ${escape(receipt.product)}`) }).click();
  await expect(page).toHaveURL(new RegExp(`/ricevuta/${receipt.orderCode}/$`));
  await expect(page.getByRole("heading", { level: 1, name: "Ricevuta" })).toBeVisible();
  // No header on receipts.
  await expect(page.getByRole("banner")).toHaveCount(0);
  const main = page.getByRole("main");
  for (const text of ["Novalex Editore S.r.l.", "P. IVA 06363391001", receipt.orderCode, receipt.product, "Visa", "4242"]) {
    await expect(main.getByText(text, { exact: false }).first()).toBeVisible();
  }
  await expect(main.getByRole("row", { name: new RegExp(escape(receipt.product)) })).toContainText("(4 %)");
  await expectAccessible(page);

  if (javaScript()) {
    expect(await printCalls(page)).toBe(1);
    // The dialog closed: back where the customer came from.
    await page.evaluate(() => window.dispatchEvent(new Event("afterprint")));
    await expect(page).toHaveURL(/\/my-products\/$/);
    expect(await printCalls(page)).toBe(1);
  } else {
    await expect(page.getByText("Per stamparla o salvarla in PDF")).toBeVisible();
    const back = page.getByRole("link", { name: "Torna ai miei acquisti" });
    await expect(back).toBeVisible();
    // The print stylesheet leaves the document alone.
    await page.emulateMedia({ media: "print" });
    await expect(back).toBeHidden();
    await expect(page.getByRole("heading", { level: 1, name: "Ricevuta" })).toBeVisible();
    await page.emulateMedia({ media: "screen" });
    await back.click();
    await expect(page).toHaveURL(/\/my-products\/$/);
  }
});

test("a payment's receipt opened directly prints, then goes to 'I miei acquisti'", async ({ page }) => {
  const { receipt } = fixtures().purchases;
  await openMyProducts(page);
  await page.goto(`/ricevuta/${receipt.orderCode}/${receipt.paymentCode}/`);
  await expect(page.getByRole("heading", { level: 1, name: "Ricevuta di pagamento" })).toBeVisible();
  await expect(page.getByRole("main")).toContainText(new RegExp(`Codice pagamento\\s*${receipt.paymentCode}`));
  await expect(page.getByRole("main")).toContainText(new RegExp(`Importo pagato\\s*${escape(formatEuro(receipt.amountCents))}`));
  await expectAccessible(page);
  if (javaScript()) {
    expect(await printCalls(page)).toBe(1);
    await page.evaluate(() => window.dispatchEvent(new Event("afterprint")));
    await expect(page).toHaveURL(/\/my-products\/$/);
  } else {
    await expect(page.getByText("Per stamparla o salvarla in PDF")).toBeVisible();
  }
});

test("another customer's receipt shows nothing and leads home", async ({ page }) => {
  const { receipt } = fixtures().purchases;
  await signIn(page, fixtures().student.email, E2E_PASSWORD, "/login/?redirect=/dashboard/");
  await expect(page.getByRole("heading", { name: "I tuoi prodotti" })).toBeVisible();
  for (const path of [`/ricevuta/${receipt.orderCode}/`, `/ricevuta/${receipt.orderCode}/${receipt.paymentCode}/`]) {
    await page.goto(path);
    await expect(page).toHaveURL(/\/dashboard\/$/);
    await expect(page.getByText(receipt.orderCode)).toHaveCount(0);
  }
  if (javaScript()) expect(await printCalls(page)).toBe(0);
});
