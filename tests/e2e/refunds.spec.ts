// What a customer sees of refunds, in the browser with and without JavaScript: each refund with
// its amount and date ('Rimborsato 5,00 € il …'), and one still on its way ('Rimborso in corso'),
// on the product card's payments, in 'Storico acquisti' and on the receipt, where the credit note
// of what went back is named beside the invoice and downloads as its XML; and the page of an
// EDU subscription the publisher refunded: it says so (not 'Come da tua disdetta'), the month
// 'Rimborsato il …', no access after the refund. axe checks each page.
import { readFile } from "node:fs/promises";
import { expect, test, type Page } from "@playwright/test";
import { formatDate, formatLongDate, withArticle } from "#shared/format.ts";
import { formatEuro } from "#shared/euro.ts";
import { creditNotePath } from "#shared/links.ts";
import { creditNoteNamed, PURCHASE_MESSAGES as P } from "#shared/purchase-messages.ts";
import { SUBSCRIPTION_MESSAGES as M } from "#shared/subscription-messages.ts";
import { E2E_PASSWORD, fixtures } from "./fixtures";
import { giveEachTestItsOwnAddress, signIn } from "./identity-support";
import { expectAccessible } from "./support";

giveEachTestItsOwnAddress();

// The receipt opens the print dialog with JavaScript: it only counts its calls here.
test.beforeEach(async ({ page }) => {
  await page.addInitScript(() => {
    window.print = () => undefined;
  });
});

const refunded = (cents: number, at: string) => `Rimborsato ${formatEuro(cents)} ${withArticle("il", formatLongDate(at))}`;
const pending = (cents: number) => `Rimborso in corso (${formatEuro(cents)})`;

async function signInTo(page: Page, path: string) {
  await signIn(page, fixtures().refunds.email, E2E_PASSWORD, `/login/?redirect=${path}`);
  await expect(page).toHaveURL(new RegExp(`${path.replace(/[/?]/g, "\\$&")}$`));
}

test("'I miei prodotti': each refund of a payment on its card and in the history", async ({ page }) => {
  const { partial } = fixtures().refunds;
  await signInTo(page, "/my-products/");
  const card = page
    .getByRole("list", { name: "Prodotti attivi", exact: true })
    .getByRole("listitem")
    .filter({ has: page.getByRole("heading", { name: partial.product, exact: true }) });
  // Its payments open from 'Pagamenti' (a <details>: without JavaScript too).
  await card.getByText(/^Pagamenti/).click();
  const refunds = card.getByRole("list", { name: "Rimborsi" });
  await expect(refunds.getByRole("listitem")).toHaveText([
    refunded(partial.refundedCents, partial.refundedAt),
    pending(partial.pendingCents),
  ]);

  const history = page
    .getByRole("list", { name: "Storico acquisti" })
    .getByRole("listitem")
    .filter({ hasText: partial.orderCode });
  await expect(history.getByRole("list", { name: "Rimborsi" }).getByRole("listitem")).toHaveText([
    refunded(partial.refundedCents, partial.refundedAt),
    pending(partial.pendingCents),
  ]);
  await expectAccessible(page);
});

test("the receipt: each refund with its amount and date, one on its way, what was kept, and the credit note", async ({
  page,
}) => {
  const { partial } = fixtures().refunds;
  await signInTo(page, `/ricevuta/${partial.orderCode}/`);
  const payments = page.getByRole("region", { name: "Pagamenti" });
  await expect(payments.getByRole("list", { name: "Rimborsi" }).getByRole("listitem")).toHaveText([
    refunded(partial.refundedCents, partial.refundedAt),
    pending(partial.pendingCents),
  ]);
  await expect(payments).toContainText(`Totale pagato${formatEuro(partial.amountCents - partial.refundedCents)}`);
  await expect(payments).toContainText(`Totale rimborsato${formatEuro(partial.refundedCents)}`);
  // The credit note of what went back, beside the invoice: its number and date, and its file.
  const { creditNote } = partial;
  const creditNotes = payments.getByRole("list", { name: P.creditNotes });
  await expect(creditNotes.getByRole("listitem")).toHaveCount(1);
  await expect(creditNotes).toContainText(creditNoteNamed(creditNote.documentNumber, creditNote.date));
  const link = creditNotes.getByRole("link", { name: P.downloadCreditNote });
  await expect(link).toHaveAttribute(
    "href",
    creditNotePath(partial.orderCode, partial.paymentCode, creditNote.year, creditNote.number),
  );
  await expectAccessible(page);
  const [download] = await Promise.all([page.waitForEvent("download"), link.click()]);
  expect(download.suggestedFilename()).toMatch(/^IT\d{11}_[0-9A-Z]{5}\.xml$/);
  const xml = await readFile(await download.path(), "utf8");
  expect(xml).toContain("<TipoDocumento>TD04</TipoDocumento>");
  expect(xml).toContain(`<Numero>${creditNote.documentNumber}</Numero>`);
  expect(xml).toContain(`<Data>${creditNote.date}</Data>`);
  expect(xml).toContain(`<ImportoTotaleDocumento>${(partial.refundedCents / 100).toFixed(2)}</ImportoTotaleDocumento>`);

  await page.goto(`/ricevuta/${partial.orderCode}/${partial.paymentCode}/`);
  const payment = page.getByRole("region", { name: "Pagamento" });
  await expect(payment.getByRole("list", { name: "Rimborsi" })).toContainText(
    refunded(partial.refundedCents, partial.refundedAt),
  );
  await expect(payment.getByRole("list", { name: P.creditNotes })).toContainText(
    creditNoteNamed(creditNote.documentNumber, creditNote.date),
  );
  await expectAccessible(page);
});

test("an EDU subscription the publisher refunded: its page says so, the month refunded, no access after it", async ({ page }) => {
  const { edu } = fixtures().refunds;
  await signInTo(page, "/my-products/abbonamento/");
  const plan = page.getByRole("region", { name: "EDU - Abbonamento 6 mesi" });
  await expect(plan).toContainText(M.statusEnded);
  await expect(plan).toContainText(M.endedRefunded);
  await expect(plan).not.toContainText("Come da tua disdetta");
  await expect(plan).toContainText(`${M.accessUntil}${formatDate(edu.refundedAt)}`);
  const months = page.getByRole("region", { name: M.paymentsTitle });
  await expect(months.getByRole("list", { name: "Rimborsi" })).toHaveText(
    `Rimborsato ${withArticle("il", formatLongDate(edu.refundedAt))}`,
  );
  await expectAccessible(page);
});
