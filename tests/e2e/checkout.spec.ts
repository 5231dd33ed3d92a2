// Buying in the browser, with and without JavaScript, on the sandbox gateway: EDU from /edu/ to
// 'Ordine confermato' and EDU active; a declined card; 3-D Secure failed then approved; the
// validation messages in the spec's order; a discount code; the bank transfer panel; a paper
// book asking for shipping. axe on each page.
import { expect, test, type Page } from "@playwright/test";
import { giveEachTestItsOwnAddress } from "./identity-support";
import { acceptTerms, complete, errorDialog, fillSandboxCard, newStudent, openEduCheckout } from "./checkout-support";
import { euro, expectAccessible, waitForHydration } from "./support";
import { novalexIsbn } from "#server/db/seed/identifiers.ts";
import { invoiceFieldCharacters, invoiceFieldTooLong } from "#shared/checkout-messages.ts";

/** Two paper books of the demo catalogue (server/db/seed/catalog.ts: title numbers from 101). */
const PAPER_BOOKS = [`LB-${novalexIsbn(101)}`, `LB-${novalexIsbn(102)}`];

giveEachTestItsOwnAddress();

/** From /edu/ to the checkout; with JavaScript, the boxes are ticked once the page's scripts have run. */
async function openCheckout(page: Page) {
  await openEduCheckout(page);
  await waitForHydration(page);
}

const fillCard = (page: Page, number: string) => fillSandboxCard(page.locator("form#checkout"), number);

test("EDU bought by card from /edu/: 'Ordine confermato', and EDU is active", async ({ page }) => {
  await newStudent(page);
  await openCheckout(page);
  // The sandbox takes test cards only, and the page says so before anything else.
  await expect(page.getByRole("note")).toHaveText("Ambiente di prova: nessun addebito reale");
  const summary = page.getByRole("complementary", { name: "Riepilogo ordine" });
  await expect(summary).toContainText("1 x EDU - Abbonamento 6 mesi");
  await expect(summary).toContainText("Consegna gratuita in 48 ore");
  await expect(summary.getByText(euro("4,50")).last()).toBeVisible();
  // The profile fills the customer's data.
  await expect(page.getByLabel("Nome", { exact: true }).first()).toHaveValue("Mario");
  await expectAccessible(page);

  await acceptTerms(page);
  await fillCard(page, "4242 4242 4242 4242");
  await complete(page);
  await expect(page.getByRole("heading", { name: "Ordine confermato" })).toBeVisible();
  // Its own title, not the form's 'Checkout'.
  await expect(page).toHaveTitle(/^Ordine confermato · /);
  await expect(page.getByText("Complimenti per l'acquisto!")).toBeVisible();
  await expectAccessible(page);

  await page.getByRole("link", { name: "Vai alla Dashboard" }).click();
  await expect(page).toHaveURL(/\/dashboard\/$/);
  await page.goto("/edu/");
  await expect(page.getByText(/Il tuo abbonamento EDU è attivo fino (al |all')/)).toBeVisible();
});

test("the validation messages come in the spec's order, in the dialog 'Errore'", async ({ page }) => {
  await newStudent(page);
  await openCheckout(page);
  await page.getByLabel("Nome", { exact: true }).first().fill("");
  await page.getByLabel("Cognome", { exact: true }).first().fill("");
  await page.getByLabel("Email", { exact: true }).fill("");
  const steps: [() => Promise<void>, string][] = [
    [async () => {}, "Manca il nome"],
    [() => page.getByLabel("Nome", { exact: true }).first().fill("Lucia"), "Manca il cognome"],
    [() => page.getByLabel("Cognome", { exact: true }).first().fill("Bianchi"), "Manca l indirizzo email"],
    [() => page.getByLabel("Email", { exact: true }).fill("lucia@example.it"), "Devi accettare le condizioni di acquisto"],
    [
      () => page.getByLabel("Ho letto e accetto le condizioni di vendita").check(),
      "Devi accettare le condizioni di cancellazione",
    ],
    [
      () => page.getByLabel("Ho letto e accetto le condizioni di recesso e cancellazione").check(),
      "Manca il titolare della carta",
    ],
  ];
  for (const [step, message] of steps) {
    await step();
    await complete(page);
    await expect(errorDialog(page)).toContainText(message);
  }
  await expectAccessible(page);
  // Billing for a private customer needs a valid Codice Fiscale.
  await page.getByLabel("Voglio la fattura").check();
  await page.getByLabel("Codice Fiscale").fill("RSSMRA85T10A562T");
  await complete(page);
  await expect(errorDialog(page)).toContainText("Il Codice Fiscale non è valido");
  await page.getByLabel("Codice Fiscale").fill("");
  await complete(page);
  await expect(errorDialog(page)).toContainText("Manca il Codice Fiscale");

  // A company's invoice, then its address, in §5's order; the card comes after them. The invoice's
  // holder is prefilled with the customer's name as the order holds it: emptied here to see its messages.
  const billing = page.getByRole("group", { name: "Fatturazione" });
  await billing.getByLabel("Azienda o professionista").check();
  await expect(billing.getByLabel("Nome", { exact: true })).toHaveValue("Mario"); // the account's name
  await billing.getByLabel("Nome", { exact: true }).fill("");
  await billing.getByLabel("Cognome", { exact: true }).fill("");
  const billingSteps: [() => Promise<void>, string][] = [
    [async () => {}, "Manca la Ragione Sociale"],
    [() => billing.getByLabel("Ragione Sociale").fill("Studio Legale Bianchi"), "Manca la Partita IVA"],
    [() => billing.getByLabel("Partita IVA").fill("12345678903"), "La Partita IVA non è valida"],
    [() => billing.getByLabel("Partita IVA").fill("06363391001"), "Manca il Codice Univoco SDI"],
    [() => billing.getByLabel("Codice Univoco SDI").fill("M5UXCR"), "Il Codice Univoco SDI non è valido"],
    [() => billing.getByLabel("Codice Univoco SDI").fill("M5UXCR1"), "Manca il Nome nell indirizzo di fatturazione"],
    [() => billing.getByLabel("Nome", { exact: true }).fill("Lucia"), "Manca il Cognome nell indirizzo di fatturazione"],
    [() => billing.getByLabel("Cognome", { exact: true }).fill("Bianchi"), "Manca l Indirizzo nell indirizzo di fatturazione"],
    [
      () => billing.getByLabel("Indirizzo (via e numero civico)").fill("Via Roma 1"),
      "Manca il CAP nell indirizzo di fatturazione",
    ],
    [() => billing.getByLabel("CAP").fill("00184"), "Manca la Città nell indirizzo di fatturazione"],
    [() => billing.getByLabel("Città").fill("Roma"), "Manca la Provincia nell indirizzo di fatturazione"],
    [() => billing.getByLabel("Provincia (sigla)").fill("XX"), "La provincia non è valida"],
    // What the e-invoice cannot hold is refused, not changed.
    [() => billing.getByLabel("Provincia (sigla)").fill("RM"), "Manca il titolare della carta"],
    [
      () => billing.getByLabel("Indirizzo (via e numero civico)").fill(`Via Roma ${"1".repeat(52)}`),
      invoiceFieldTooLong("billingaddress_address", 60),
    ],
    [() => billing.getByLabel("Indirizzo (via e numero civico)").fill("Via Roma 1"), "Manca il titolare della carta"],
    [
      () => billing.getByLabel("Cognome", { exact: true }).fill("Łukasiewicz"),
      invoiceFieldCharacters("billingaddress_lastname", ["Ł"]),
    ],
    [() => billing.getByLabel("Cognome", { exact: true }).fill("Bianchi"), "Manca il titolare della carta"],
  ];
  for (const [step, message] of billingSteps) {
    await step();
    await complete(page);
    await expect(errorDialog(page)).toContainText(message);
  }
  // The billing fields, the invoice's holder among them, pass axe too.
  await expectAccessible(page);

  // Another method than the card cannot complete a purchase.
  await page.getByRole("radio", { name: "Bonifico bancario" }).check();
  await complete(page);
  await expect(errorDialog(page)).toContainText("Modalità di pagamento non supportata");
});

test("a declined card: 'Card Payment Failed' with the bank's reason, and a good card then pays", async ({ page }) => {
  await newStudent(page);
  await openCheckout(page);
  await acceptTerms(page);
  await fillCard(page, "4000 0000 0000 9995");
  await complete(page);
  await expect(errorDialog(page)).toContainText("Card Payment Failed");
  await expect(errorDialog(page)).toContainText("fondi insufficienti");
  await expectAccessible(page);
  await acceptTerms(page);
  await fillCard(page, "4242 4242 4242 4242");
  await complete(page);
  await expect(page.getByRole("heading", { name: "Ordine confermato" })).toBeVisible();
});

test("3-D Secure: failed, the card step waits; approved, the order is paid", async ({ page }) => {
  await newStudent(page);
  await openCheckout(page);
  await acceptTerms(page);
  await fillCard(page, "4000 0025 0000 3155");
  await complete(page);
  await expect(page.getByRole("heading", { name: "Autenticazione 3-D Secure" })).toBeVisible();
  await expectAccessible(page);
  await page.getByRole("button", { name: "Nega" }).click();
  await expect(errorDialog(page)).toContainText("Non è stato possibile autenticare la carta");
  await fillCard(page, "4000 0025 0000 3155");
  await complete(page);
  await page.getByRole("button", { name: "Autorizza" }).click();
  await expect(page.getByRole("heading", { name: "Ordine confermato" })).toBeVisible();
});

test("a discount code applied and removed; the bank transfer panel", async ({ page }) => {
  await newStudent(page);
  await openCheckout(page);
  const summary = page.getByRole("complementary", { name: "Riepilogo ordine" });
  await summary.getByText("Hai un codice sconto?").click();
  await summary.getByLabel("Codice sconto").fill("  benvenuto10 ");
  await summary.getByRole("button", { name: "Applica" }).click();
  await expect(summary).toContainText("Codice sconto applicato");
  await expect(summary).toContainText("BENVENUTO10");
  await expect(summary.getByText(euro("4,05"))).toBeVisible();
  await summary.getByRole("button", { name: /Rimuovi/ }).click();
  await expect(summary).not.toContainText("Codice sconto applicato");

  await page.getByRole("radio", { name: "Bonifico bancario" }).check();
  const panel = page.locator(".checkout-hub-sepa");
  await expect(panel).toBeVisible();
  await expect(panel).toContainText("IBAN");
  await expect(panel).toContainText(/Pagamento ordine n° NX\d{6}-[0-9A-Z]{6}/);
  await expect(panel.getByText(euro("4,50"))).toBeVisible();
  await expectAccessible(page);
});

test("a paper book asks for the shipping address, and a saved one fills the next checkout", async ({ page }) => {
  await newStudent(page);
  // A plain link to the checkout of a product: a page that posts to open the order.
  await page.goto(`/create-checkout/${PAPER_BOOKS[0]}/`);
  await expectAccessible(page);
  await page.getByRole("button", { name: "Procedi all'acquisto" }).click();
  await expect(page).toHaveURL(/\/checkout\//);
  const shipping = page.getByRole("group", { name: "Spedizione" });
  await acceptTerms(page);
  await fillCard(page, "4242 4242 4242 4242");
  await complete(page);
  await expect(errorDialog(page)).toContainText("Manca il nome nell indirizzo di spedizione");
  await shipping.getByLabel("Nome", { exact: true }).fill("Lucia");
  await shipping.getByLabel("Cognome", { exact: true }).fill("Bianchi");
  await shipping.getByLabel("Indirizzo (via e numero civico)").fill("Via Roma 1");
  await shipping.getByLabel("CAP").fill("00184");
  await shipping.getByLabel("Città").fill("Roma");
  await shipping.getByLabel("Provincia (sigla)").fill("rm");
  await shipping.getByLabel("Salva l'indirizzo per i prossimi acquisti").check();
  await acceptTerms(page);
  await fillCard(page, "4242 4242 4242 4242");
  await complete(page);
  await expect(page.getByRole("heading", { name: "Ordine confermato" })).toBeVisible();

  await page.goto(`/create-checkout/${PAPER_BOOKS[1]}/`);
  await page.getByRole("button", { name: "Procedi all'acquisto" }).click();
  await expect(shipping.getByLabel("Indirizzo (via e numero civico)")).toHaveValue("Via Roma 1");
  await expect(shipping.getByLabel("Provincia (sigla)")).toHaveValue("RM");
});
