// The Italian texts of the checkout (spec §2, §4, §5, §8), in one place for the pages and the
// tests that assert them. The validation messages are the spec's, word for word (its
// apostrophes missing included); those of the checks the spec does not name (format of a tax
// code, a postal code, the sandbox's card fields) follow their style.

import type { StartPaymentRefusal } from "#server/commerce/start-payment.ts";
import type { RefusalTable } from "./refusals.ts";

export const CHECKOUT_MESSAGES = {
  errorTitle: "Errore",
  // Spec §5, in its order.
  firstnameMissing: "Manca il nome",
  lastnameMissing: "Manca il cognome",
  emailMissing: "Manca l indirizzo email",
  emailInvalid: "L indirizzo email non è valido",
  shipmentFirstnameMissing: "Manca il nome nell indirizzo di spedizione",
  shipmentLastnameMissing: "Manca il cognome nell indirizzo di spedizione",
  shipmentAddressMissing: "Manca l indirizzo nell indirizzo di spedizione",
  shipmentPostcodeMissing: "Manca il CAP nell indirizzo di spedizione",
  shipmentCityMissing: "Manca la città nell indirizzo di spedizione",
  shipmentProvinceMissing: "Manca la provincia nell indirizzo di spedizione",
  companyNameMissing: "Manca la Ragione Sociale",
  vatMissing: "Manca la Partita IVA",
  // Each names the rule the Partita IVA breaks (partitaIvaProblem).
  vatInvalid: "La Partita IVA non è valida: sono 11 cifre, l ultima di controllo",
  vatTaxpayerInvalid: "La Partita IVA non è valida: le prime 7 cifre non possono essere tutte zero",
  vatOfficeInvalid: "La Partita IVA non è valida: le cifre dall 8ª alla 10ª non sono il codice di un ufficio provinciale",
  vatCheckDigitInvalid: "La Partita IVA non è valida: l ultima cifra, di controllo, non corrisponde alle altre",
  sdiMissing: "Manca il Codice Univoco SDI",
  sdiInvalid: "Il Codice Univoco SDI non è valido: sono 7 lettere o cifre",
  ssnMissing: "Manca il Codice Fiscale",
  ssnInvalid: "Il Codice Fiscale non è valido: controlla i 16 caratteri (o le 11 cifre)",
  denominationMissing: "Manca la Denominazione: il Codice Fiscale di 11 cifre è di un ente o di un associazione",
  pecInvalid: "La PEC non è un indirizzo email valido",
  billingFirstnameMissing: "Manca il Nome nell indirizzo di fatturazione",
  billingLastnameMissing: "Manca il Cognome nell indirizzo di fatturazione",
  billingAddressMissing: "Manca l Indirizzo nell indirizzo di fatturazione",
  billingPostcodeMissing: "Manca il CAP nell indirizzo di fatturazione",
  billingCityMissing: "Manca la Città nell indirizzo di fatturazione",
  billingProvinceMissing: "Manca la Provincia nell indirizzo di fatturazione",
  postcodeInvalid: "Il CAP non è valido: sono 5 cifre",
  provinceInvalid: "La provincia non è valida: scrivi la sigla, per esempio MI",
  mobileInvalid: "Il numero di cellulare non è valido",
  termsSalesMissing: "Devi accettare le condizioni di acquisto",
  termsCancelMissing: "Devi accettare le condizioni di cancellazione",
  paymentHubMissing: "Devi scegliere una modalità di pagamento",
  paymentHubUnsupported: "Modalità di pagamento non supportata",
  // The card provider or its element (Stripe's Payment Element).
  cardProviderNotReady: "Il sistema di pagamento con carta non è pronto: attendi qualche secondo e riprova",
  cardElementNotReady: "Il modulo della carta non è pronto: attendi qualche secondo e riprova",
  cardProviderFailed: "Non è stato possibile caricare il sistema di pagamento con carta: ricarica la pagina",
  cardWidgetLoading: "Caricamento del modulo della carta…",
  // Without JavaScript, Stripe's card step is its hosted page.
  cardOnStripePage:
    "Dopo 'Completa l'acquisto' inserirai i dati della carta nella pagina di pagamento sicura di Stripe, che ti riporterà qui.",
  // The sandbox gateway: every page that takes a card says so while it runs.
  sandboxNotice: "Ambiente di prova: nessun addebito reale",
  sandboxCards: "Usa la carta 4242 4242 4242 4242, una scadenza futura e un codice qualsiasi.",
  // The sandbox's own card form.
  cardNameMissing: "Manca il titolare della carta",
  cardNumberMissing: "Manca il numero della carta",
  cardNumberInvalid: "Il numero della carta non è valido",
  cardExpiryMissing: "Manca la scadenza della carta",
  cardExpiryInvalid: "La scadenza non è valida: scrivila come MM/AA",
  cardExpired: "La carta è scaduta",
  cardCscMissing: "Manca il codice di sicurezza della carta",
  cardCscInvalid: "Il codice di sicurezza non è valido: sono 3 o 4 cifre",
  // After 'Completa l'acquisto' (spec §4, §8).
  cardPaymentFailed: "Card Payment Failed",
  cardPaymentCancelled: "Card Payment Cancelled",
  paymentCancelled: "Payment Cancelled",
  couponChanged: "Il codice sconto non è più valido ed è stato rimosso: controlla il nuovo totale e conferma di nuovo.",
  tooManyPayments: "Hai fatto troppi tentativi di pagamento. Riprova tra un'ora.",
  gatewayUnavailable: "Il servizio di pagamento non risponde. Riprova tra qualche minuto: non ti è stato addebitato nulla.",
  // A second submit while the order's payment is under way (another tab, a double click, an app).
  paymentAlreadyStarted:
    "Il pagamento di questo ordine è già in corso: attendi che si concluda, oppure annullalo prima di riprovare.",
  orderAlreadyPaid: "Questo ordine è già stato pagato.",
  paymentInProgress: "Stiamo verificando il pagamento",
  paymentInProgressText: "Il pagamento è in corso di verifica: non ripetere l'acquisto. La pagina si aggiorna da sola.",
  paymentInProgressNoScript: "Il pagamento è in corso di verifica: non ripetere l'acquisto.",
  // Status views (spec §2).
  confirmedTitle: "Ordine confermato",
  confirmedText: "Complimenti per l'acquisto!",
  toDashboard: "Vai alla Dashboard",
  closedTitle: "Ordine annullato/scaduto o interrotto",
  // An EDU order the portal closed: EDU became active while it was being paid (decision 024).
  eduOrderClosed:
    "Non abbiamo completato l'acquisto: mentre pagavi, EDU si è attivato sul tuo account (con un codice eBook+EDU o dal servizio clienti). Così non paghi due volte lo stesso periodo.",
  eduOrderClosedNothingCharged: "Non ti abbiamo addebitato nulla.",
  eduOrderClosedAfterward: "Quando il tuo accesso a EDU sarà terminato potrai abbonarti di nuovo dalla pagina EDU.",
  // Create-checkout (spec §4: the error's description, then back).
  productUnavailable: "Il prodotto richiesto non è disponibile per l'acquisto.",
  eduAlreadyActive: "Hai già un abbonamento EDU attivo: non serve acquistarlo di nuovo.",
  back: "Torna indietro",
} as const;

/**
 * Why a payment was not started (server/commerce/start-payment.ts), as both doors say it: the
 * page's dialog 'Errore' with the status, the API's error. 409: the order is not as the client
 * saw it (a payment under way, paid, closed, its discount code gone, EDU active meanwhile).
 */
export const START_PAYMENT_REFUSALS: RefusalTable<StartPaymentRefusal> = {
  in_progress: { message: CHECKOUT_MESSAGES.paymentAlreadyStarted, status: 409 },
  paid: { message: CHECKOUT_MESSAGES.orderAlreadyPaid, status: 409 },
  closed: { message: CHECKOUT_MESSAGES.paymentCancelled, status: 409 },
  coupon_changed: { message: CHECKOUT_MESSAGES.couponChanged, status: 409 },
  rate_limited: { message: CHECKOUT_MESSAGES.tooManyPayments, status: 429 },
  edu_active: { message: CHECKOUT_MESSAGES.eduAlreadyActive, status: 409 },
};

/**
 * The names, in the messages, of the fields an e-invoice carries, with the ending of "lungo" that
 * agrees with them (the spec's style: no apostrophes).
 */
const INVOICE_FIELD_NAMES = {
  billing_name: ["La Ragione Sociale", "a"],
  billing_denomination: ["La Denominazione", "a"],
  billingaddress_firstname: ["Il Nome nell indirizzo di fatturazione", "o"],
  billingaddress_lastname: ["Il Cognome nell indirizzo di fatturazione", "o"],
  billingaddress_address: ["L Indirizzo nell indirizzo di fatturazione", "o"],
  billingaddress_city: ["La Città nell indirizzo di fatturazione", "a"],
  shipment_address: ["L indirizzo di spedizione, che va nella fattura,", "o"],
  shipment_city: ["La città di spedizione, che va nella fattura,", "a"],
} as const;
export type InvoiceField = keyof typeof INVOICE_FIELD_NAMES;

/** A field longer than the e-invoice's: "La Città nell indirizzo di fatturazione è troppo lunga per la fattura elettronica: al massimo 60 caratteri". */
export function invoiceFieldTooLong(field: InvoiceField, max: number): string {
  const [name, ending] = INVOICE_FIELD_NAMES[field];
  return `${name} è troppo lung${ending} per la fattura elettronica: al massimo ${max} caratteri`;
}

/** A field with characters the e-invoice cannot hold, named: "… contiene caratteri che la fattura elettronica non accetta: Ł. …". */
export function invoiceFieldCharacters(field: InvoiceField, characters: readonly string[]): string {
  const [name] = INVOICE_FIELD_NAMES[field];
  return (
    `${name} contiene caratteri che la fattura elettronica non accetta: ${characters.join(" ")}. ` +
    "Scrivili con lettere dell alfabeto latino (per esempio L al posto di Ł)"
  );
}
