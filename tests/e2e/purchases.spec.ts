// /my-products/ and the receipts in the browser, with and without JavaScript: the two tabs and
// what they leave out, a card's payment list (the whole card toggles it with JavaScript, its
// 'Pagamenti' control always), 'Acquista di nuovo' (one post, straight to the checkout), the
// history's pages ('Carica altri' with JavaScript, page links without) and the products each
// entry names, the receipt (print dialog then back with JavaScript, a print-ready page without;
// on a 390 px phone nothing scrolls sideways) and that nobody else sees it. axe checks each page.
import { expect, test, type Page } from "@playwright/test";
import { formatEuro } from "#shared/euro.ts";
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
    await expect(card.getByRole("button", { name: /Acquista di nuovo/ })).toHaveCount(0);
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
  // A button that posts (opening an order is a change), not a link.
  const buyAgain = card.getByRole("button", { name: new RegExp(`^Acquista di nuovo ${escape(cancelled)}`) });
  await expect(buyAgain).toBeVisible();
  const buyAgainForm = card.locator("form").filter({ has: page.getByRole("button", { name: /^Acquista di nuovo/ }) });
  await expect(buyAgainForm).toHaveAttribute("method", "post");
  await expect(buyAgainForm).toHaveAttribute("action", /^\/create-checkout\/[^/]+\/$/);
  await expect(card.getByRole("link", { name: /Acquista di nuovo/ })).toHaveCount(0);
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

test("a card toggles its payment list: anywhere on the card with JavaScript, its 'Pagamenti' control always", async ({
  page,
}) => {
  const { receipt } = fixtures().purchases;
  await openMyProducts(page);
  const card = cards(page, "attivi").filter({ has: page.getByRole("heading", { name: receipt.product, exact: true }) });
  const payment = card.getByRole("link", { name: `Ricevuta del pagamento ${receipt.paymentCode}` });
  const control = card.locator("summary");
  await expect(control).toHaveText(/^Pagamenti.*\(1\)$/);
  await expect(payment).toBeHidden();

  // The control, with the pointer and with the keyboard, with or without JavaScript (a click on
  // it toggles once: the card's own handler leaves it to the browser).
  await control.click();
  await expect(payment).toBeVisible();
  await expect(card.getByText(formatEuro(receipt.amountCents), { exact: false })).toBeVisible();
  await expect(card.getByText("Carta di Credito")).toBeVisible();
  await expect(card.getByText("4242")).toBeVisible();
  await expectAccessible(page);
  await control.click();
  await expect(payment).toBeHidden();
  await control.focus();
  await page.keyboard.press("Enter");
  await expect(payment).toBeVisible();
  await page.keyboard.press("Space");
  await expect(payment).toBeHidden();

  if (javaScript()) {
    // Once the page is hydrated (the card then shows the pointer's hand)…
    await expect(card.locator("article")).toHaveClass(/cursor-pointer/);
    // …anywhere else on the card: its title, its cover, its order number.
    await card.getByRole("heading", { name: receipt.product, exact: true }).click();
    await expect(payment).toBeVisible();
    // The open list is read, not clicked away.
    await card.getByText("Carta di Credito").click();
    await expect(payment).toBeVisible();
    await card.locator("img").click();
    await expect(payment).toBeHidden();
    await card.getByText(receipt.orderCode).first().click();
    await expect(payment).toBeVisible();
    // What acts by itself still does: 'Ricevuta' opens the receipt.
    await card.getByRole("link", { name: new RegExp(`^Ricevuta di ${escape(receipt.product)}`) }).click();
    await expect(page).toHaveURL(new RegExp(`/ricevuta/${receipt.orderCode}/$`));
  }
});

test("'Acquista di nuovo' opens the checkout in one step", async ({ page }) => {
  const { cancelled } = fixtures().purchases;
  await openMyProducts(page);
  await page
    .getByRole("navigation", { name: "Stato dei prodotti" })
    .getByRole("link", { name: /^Inattivi/ })
    .click();
  const card = cards(page, "inattivi").filter({ has: page.getByRole("heading", { name: cancelled, exact: true }) });
  await card.getByRole("button", { name: new RegExp(`^Acquista di nuovo ${escape(cancelled)}`) }).click();
  // Straight to the order's checkout: no page in between.
  await expect(page).toHaveURL(/\/checkout\/[0-9a-f-]{36}\/$/);
  await expect(page.getByRole("button", { name: "Completa l'acquisto" })).toBeVisible();
  await expect(page.getByText(cancelled).first()).toBeVisible();
  // The cancelled order stays where it was; the new one is at the checkout, not among the cards.
  await page.goto("/my-products/?tab=inattivi");
  await expect(cards(page, "inattivi")).toHaveCount(1);
});

test("'Storico acquisti' shows 5 payments a page, then the rest", async ({ page }) => {
  const { payments } = fixtures().purchases;
  await openMyProducts(page);
  const history = page.getByRole("list", { name: "Storico acquisti" }).getByRole("listitem");
  await expect(history).toHaveCount(5);
  await expect(history.first().getByText("Numero d'ordine")).toBeVisible();
  // An entry names what was bought: the title, and its type.
  await expect(history.first()).toContainText(`${fixtures().purchases.receipt.product} · eBook`);
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
  for (const text of [
    "Novalex Editore S.r.l.",
    "P. IVA 06363391001",
    receipt.orderCode,
    receipt.product,
    receipt.email,
    `PEC ${receipt.pec}`,
    "Visa",
    "4242",
  ]) {
    await expect(main.getByText(text, { exact: false }).filter({ visible: true }).first()).toBeVisible();
  }
  // On a desktop screen the lines are a table (the blocks for phones are not shown).
  const row = main.getByRole("row", { name: new RegExp(escape(receipt.product)) });
  await expect(row).toContainText("(4 %)");
  await expect(row).toContainText(`−${formatEuro(receipt.discountCents)}`);
  await expect(main.getByRole("list", { name: "Righe dell'ordine" })).toBeHidden();
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

test("on a 390 px phone the receipt shows every line's amounts without scrolling sideways", async ({ page }, testInfo) => {
  const { receipt } = fixtures().purchases;
  await page.setViewportSize({ width: 390, height: 844 });
  await openMyProducts(page);
  await page.goto(`/ricevuta/${receipt.orderCode}/`);
  await expect(page.getByRole("heading", { level: 1, name: "Ricevuta" })).toBeVisible();
  await page.screenshot({ path: testInfo.outputPath("ricevuta-390.png"), fullPage: true });
  expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);

  // Each line a block of labelled values; no table to scroll.
  const main = page.getByRole("main");
  await expect(main.getByRole("table")).toHaveCount(0);
  const line = main.getByRole("list", { name: "Righe dell'ordine" }).getByRole("listitem").filter({ hasText: receipt.product });
  const grossCents = receipt.amountCents + receipt.discountCents;
  for (const [label, value] of [
    ["Quantità", "1"],
    ["Prezzo", formatEuro(grossCents)],
    ["Importo", formatEuro(grossCents)],
    ["Sconto", `−${formatEuro(receipt.discountCents)}`],
    ["IVA inclusa", "(4 %)"],
  ] as const) {
    const term = line.locator("dt", { hasText: label });
    const definition = term.locator("xpath=following-sibling::dd[1]");
    await expect(term).toBeVisible();
    await expect(definition).toContainText(value);
    // Wholly on the screen once scrolled down to: nothing beyond its right edge.
    await definition.scrollIntoViewIfNeeded();
    await expect(definition).toBeInViewport({ ratio: 1 });
    const box = (await definition.boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(390);
  }
  await expectAccessible(page);

  // The e-mail and the PEC wrap (they are longer than the line), but only before an '@' or a dot
  // or after a hyphen of the domain, never in the middle of a word.
  for (const address of [receipt.email, receipt.pec]) {
    const breaks = await main.locator("span.wrap-anywhere", { hasText: address }).evaluate((element) => {
      const chars: { c: string; top: number }[] = [];
      const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode() as Text | null; node; node = walker.nextNode() as Text | null) {
        for (let i = 0; i < node.data.length; i++) {
          const range = document.createRange();
          range.setStart(node, i);
          range.setEnd(node, i + 1);
          chars.push({ c: node.data[i]!, top: Math.round(range.getBoundingClientRect().top) });
        }
      }
      return chars.slice(1).flatMap((char, i) => (char.top > chars[i]!.top ? [chars[i]!.c + char.c] : []));
    });
    expect(breaks.length, address).toBeGreaterThan(0);
    for (const pair of breaks) expect(pair, address).toMatch(/^(.[@.]|-.)$/);
  }

  // On paper the table is back, whatever the width.
  await page.emulateMedia({ media: "print" });
  await expect(main.getByRole("row", { name: new RegExp(escape(receipt.product)) })).toContainText("(4 %)");
  await expect(main.getByRole("list", { name: "Righe dell'ordine" })).toBeHidden();
  await page.emulateMedia({ media: "screen" });
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
