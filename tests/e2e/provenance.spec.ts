// How the customer got each product, in the browser, with and without JavaScript: 'I miei acquisti'
// says for each product how it was obtained (a book's code, a purchase with its order and the
// receipt's link, an EDU month, customer service) and until when, and for EDU what comes after the
// month paid; the dashboard's cards say how in one line. axe checks each page.
import { expect, test, type Page } from "@playwright/test";
import { formatDate, formatLongDate, withArticle } from "#shared/format.ts";
import { addMonths } from "#shared/library-constants.ts";
import { PROVENANCE_MESSAGES as M } from "#shared/provenance-messages.ts";
import { eduSubscriber } from "./checkout-support";
import { signInOverHttp } from "./customers";
import { fixtures } from "./fixtures";
import { giveEachTestItsOwnAddress } from "./identity-support";
import { activateFromDashboard, expectAccessible, productCard } from "./support";

giveEachTestItsOwnAddress();

// The receipt opens the print dialog with JavaScript, which a test cannot drive: a no-op here.
test.beforeEach(async ({ page }) => {
  await page.addInitScript(() => {
    window.print = () => undefined;
  });
});

const section = (page: Page) => page.getByRole("region", { name: M.title });
/** A product's entry in 'Come hai ottenuto i tuoi prodotti'. */
const entry = (page: Page, name: string) =>
  section(page)
    .getByRole("listitem")
    .filter({ has: page.getByRole("heading", { name, exact: true }) });

/** "il 12 marzo 2026", "l'8 marzo 2026". */
const onDay = (iso: string | Date) => withArticle("il", formatLongDate(iso));
const day = String.raw`\d{1,2} [a-z]+ \d{4}`;

test("'I miei acquisti' says how each product was obtained and until when; the dashboard's cards say how", async ({ page }) => {
  const { email, at, code, purchase, operator } = fixtures().provenance;
  await signInOverHttp(page, email, "/my-products/");

  await expect(section(page).getByRole("listitem")).toHaveCount(3);
  const coded = entry(page, code.product);
  await expect(coded.getByText(`Attivato con il codice del libro ${onDay(at)}`, { exact: true })).toBeVisible();
  await expect(coded.getByText(`Accesso fino ${withArticle("al", formatLongDate(addMonths(new Date(at), 6)))}`)).toBeVisible();

  const bought = entry(page, purchase.product);
  await expect(bought).toContainText(`Acquistato con l'ordine ${purchase.orderCode} (ricevuta) ${onDay(at)}`);
  await expect(bought.getByText(M.noEnd, { exact: true })).toBeVisible();

  const granted = entry(page, operator.product);
  await expect(granted.getByText(`Concesso dal servizio clienti ${onDay(at)}`, { exact: true })).toBeVisible();
  await expect(
    granted.getByText(`Accesso fino ${withArticle("al", formatLongDate(addMonths(new Date(at), operator.months)))}`),
  ).toBeVisible();
  await expectAccessible(page);

  // The order's code opens its receipt.
  await bought.getByRole("link", { name: `${purchase.orderCode} (ricevuta)` }).click();
  await expect(page).toHaveURL(new RegExp(`/ricevuta/${purchase.orderCode}/$`));
  await expect(page.getByRole("heading", { level: 1, name: "Ricevuta" })).toBeVisible();

  // The dashboard's cards: how, in one line; until when stays the card's own 'Accedi fino al'.
  await page.goto("/dashboard/");
  const card = productCard(page, code.product);
  await expect(card.getByText(`Attivato con il codice del libro ${onDay(at)}`, { exact: true })).toBeVisible();
  await expect(card.getByText(`Accedi fino al ${formatDate(addMonths(new Date(at), 6))}`)).toBeVisible();
  await expect(card.getByText(/Accesso fino/)).toHaveCount(0);
  await expect(productCard(page, purchase.product).getByText(`Acquistato ${onDay(at)}`, { exact: true })).toBeVisible();
  await expect(
    productCard(page, operator.product).getByText(`Concesso dal servizio clienti ${onDay(at)}`, { exact: true }),
  ).toBeVisible();
  await expectAccessible(page);
});

test("EDU from the subscription, then from an eBook+EDU code: the month paid now, and the code's months after it", async ({
  page,
}) => {
  const { ebookEdu } = fixtures().codes;
  await eduSubscriber(page);
  const card = await activateFromDashboard(page, ebookEdu);
  await expect(card.getByText(new RegExp(`^Attivato con il codice del libro (il |l')${day}$`))).toBeVisible();

  await page.goto("/my-products/");
  const edu = entry(page, "EDU - Abbonamento 6 mesi");
  await expect(edu.getByText("Incluso nell'abbonamento EDU (rata 1 di 6)", { exact: true })).toBeVisible();
  const until = edu.getByText(new RegExp(`^Accesso fino (al |all')${day}$`));
  await expect(until).toBeVisible();
  // The code's months start where the paid month ends.
  const monthEnd = /(\d{1,2} [a-z]+ \d{4})$/.exec((await until.textContent())!)![1]!;
  await expect(
    edu.getByText(new RegExp(`^Poi, (dal |dall')${monthEnd} (al |all')${day}: attivato con il codice del libro (il |l')${day}$`)),
  ).toBeVisible();
  await expect(entry(page, ebookEdu.product)).toContainText("Attivato con il codice del libro");
  await expectAccessible(page);
});
