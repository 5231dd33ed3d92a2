// The Italian texts of /my-products/ and of the receipts (spec §2), in one place for the pages
// and the tests that assert them.

import { formatLongDate, withArticle } from "./format.ts";

export const PURCHASE_MESSAGES = {
  title: "I miei acquisti",
  productsTitle: "I miei prodotti",
  tabActive: "Attivi",
  tabInactive: "Inattivi",
  noActive: "Non hai prodotti attivi",
  noInactive: "Non hai prodotti inattivi",
  catalogueLink: "Scopri il catalogo dei libri",
  receipt: "Ricevuta",
  buyAgain: "Acquista di nuovo",
  payments: "Pagamenti",
  noPayments: "Nessun pagamento: il prodotto è stato attivato con un codice o l'ordine non è stato pagato.",
  historyTitle: "Storico acquisti",
  historyEmpty: "Non hai ancora effettuato pagamenti.",
  orderNumber: "Numero d'ordine",
  loadMore: "Carica altri",
  previousPage: "Pagina precedente",
  nextPage: "Pagina successiva",
  refunded: "Rimborsato",
  refundPending: "Rimborso in corso",
  refundsLabel: "Rimborsi",
  // The receipt (spec §2 'Receipt page').
  receiptTitle: "Ricevuta",
  paymentReceiptTitle: "Ricevuta di pagamento",
  vatPaidByPublisher: "IVA assolta dall'editore (art. 74 DPR 633/72)",
  downloadInvoice: "Scarica la fattura elettronica (XML)",
  /** The list of a payment's credit notes, beside its invoice. */
  creditNotes: "Note di credito",
  downloadCreditNote: "Scarica la nota di credito (XML)",
  invoiceOriginalInTaxArea:
    "L'originale della fattura è anche nella tua area riservata «Fatture e corrispettivi» del sito dell'Agenzia delle Entrate.",
  /** SDI could not deliver the invoice (its MC): it is in the buyer's area of the Agenzia delle Entrate's site. */
  invoiceNotDelivered:
    "La fattura elettronica non è stata recapitata al tuo indirizzo: la trovi nella tua area riservata del sito dell'Agenzia delle Entrate.",
  printHint: "Per stamparla o salvarla in PDF usa il comando Stampa del browser (Ctrl+P, o ⌘+P su Mac).",
  print: "Stampa",
  backToPurchases: "Torna ai miei acquisti",
  noPaymentForOrder: "Nessun pagamento: ordine completato senza addebito (prodotto attivato con un codice).",
  freeShipping: "Gratuita",
} as const;

/** The receipt's line naming a payment's e-invoice: "Fattura elettronica n. WEB/17 del 3 marzo 2026". */
export function invoiceNamed(number: string, date: string): string {
  return `Fattura elettronica n. ${number} ${withArticle("del", formatLongDate(`${date}T12:00:00Z`))}`;
}

/** The receipt's line naming a refund's credit note: "Nota di credito n. NC/3 del 3 dicembre 2026". */
export function creditNoteNamed(number: string, date: string): string {
  return `Nota di credito n. ${number} ${withArticle("del", formatLongDate(`${date}T12:00:00Z`))}`;
}
