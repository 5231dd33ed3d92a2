// The e-invoice from the receipt, with and without JavaScript: the payment's receipt names its
// e-invoice (number and date) and links its FatturaPA XML, which downloads as that payment's
// invoice under its SDI file name, dated the payment's day; a private buyer's receipt also says
// the original is in their area of the Agenzia delle Entrate's site; another customer gets 404
// for it; the receipt of an invoice SDI could not deliver (MC) says where it is. axe checks the
// receipts.
import { readFile } from "node:fs/promises";
import { expect, test } from "@playwright/test";
import { invoicePath } from "#shared/links.ts";
import { invoiceNamed, PURCHASE_MESSAGES as M } from "#shared/purchase-messages.ts";
import { E2E_PASSWORD, fixtures } from "./fixtures";
import { giveEachTestItsOwnAddress, signIn } from "./identity-support";
import { expectAccessible } from "./support";

giveEachTestItsOwnAddress();

// The receipt opens the print dialog with JavaScript: it only counts here.
test.beforeEach(async ({ page }) => {
  await page.addInitScript(() => {
    window.print = () => undefined;
  });
});

test("a payment's receipt downloads its e-invoice as FatturaPA XML", async ({ page }) => {
  const { email, receipt } = fixtures().purchases;
  const receiptPath = `/ricevuta/${receipt.orderCode}/${receipt.paymentCode}/`;
  await signIn(page, email, E2E_PASSWORD, `/login/?redirect=${encodeURIComponent(receiptPath)}`);
  await expect(page.getByRole("heading", { level: 1, name: "Ricevuta di pagamento" })).toBeVisible();
  const link = page.getByRole("link", { name: M.downloadInvoice });
  await expect(link).toHaveAttribute("href", invoicePath(receipt.orderCode, receipt.paymentCode));
  // Its number and date; a company's invoice is not sent to the consumers' reserved area.
  await expect(page.getByText(invoiceNamed(receipt.invoice.documentNumber, receipt.invoice.date))).toBeVisible();
  await expect(page.getByText(M.invoiceOriginalInTaxArea)).toHaveCount(0);
  // SDI has said nothing of this one: no line about the tax drawer.
  await expect(page.getByText(M.invoiceNotDelivered)).toHaveCount(0);
  await expectAccessible(page);

  const [download] = await Promise.all([page.waitForEvent("download"), link.click()]);
  expect(download.suggestedFilename()).toBe(receipt.invoice.fileName);
  const xml = await readFile(await download.path(), "utf8");
  expect(xml).toContain('versione="FPR12"');
  expect(xml).toContain(`<Numero>${receipt.invoice.documentNumber}</Numero>`);
  expect(xml).toContain(`<Data>${receipt.invoice.date}</Data>`);
  expect(xml).toContain(`Ordine ${receipt.orderCode}, pagamento ${receipt.paymentCode}`);
  expect(xml).toContain("<Denominazione>Studio Legale Associato Neri</Denominazione>");
  expect(xml).toContain(`<ImportoTotaleDocumento>${(receipt.amountCents / 100).toFixed(2)}</ImportoTotaleDocumento>`);
});

test("a private buyer's receipt names the e-invoice and says the original is in their area of the Agenzia's site", async ({
  page,
}) => {
  const { privateReceipt } = fixtures().purchases;
  const receiptPath = `/ricevuta/${privateReceipt.orderCode}/${privateReceipt.paymentCode}/`;
  await signIn(page, privateReceipt.email, E2E_PASSWORD, `/login/?redirect=${encodeURIComponent(receiptPath)}`);
  await expect(page.getByRole("heading", { level: 1, name: "Ricevuta di pagamento" })).toBeVisible();
  await expect(page.getByText(invoiceNamed(privateReceipt.invoice.documentNumber, privateReceipt.invoice.date))).toBeVisible();
  await expect(page.getByText(M.invoiceOriginalInTaxArea)).toBeVisible();
  await expect(page.getByRole("link", { name: M.downloadInvoice })).toHaveAttribute(
    "href",
    invoicePath(privateReceipt.orderCode, privateReceipt.paymentCode),
  );
  await expectAccessible(page);
});

test("another customer gets no invoice of that payment, told so in Italian", async ({ page }) => {
  const { receipt } = fixtures().purchases;
  await signIn(page, fixtures().student.email, E2E_PASSWORD, "/login/?redirect=/dashboard/");
  await expect(page.getByRole("heading", { name: "I tuoi prodotti" })).toBeVisible();
  const response = await page.request.get(invoicePath(receipt.orderCode, receipt.paymentCode));
  expect(response.status()).toBe(404);
  const text = await response.text();
  expect(text).not.toContain("FatturaElettronica");
  expect(text).toContain("File non trovato");
  expect(response.headers()["content-type"]).toContain("charset=utf-8");
});

test("a receipt whose e-invoice SDI could not deliver says where the customer finds it", async ({ page }) => {
  const { email, orderCode, paymentCode } = fixtures().undeliveredInvoice;
  const receiptPath = `/ricevuta/${orderCode}/${paymentCode}/`;
  await signIn(page, email, E2E_PASSWORD, `/login/?redirect=${encodeURIComponent(receiptPath)}`);
  await expect(page.getByRole("heading", { level: 1, name: "Ricevuta di pagamento" })).toBeVisible();
  await expect(page.getByRole("link", { name: M.downloadInvoice })).toHaveAttribute("href", invoicePath(orderCode, paymentCode));
  await expect(page.getByText(M.invoiceNotDelivered)).toBeVisible();
  await expectAccessible(page);
});
