// The body of the API's checkpaymenthub as its OpenAPI document publishes it: spec §3's customer,
// shipment and billing fields with their types (the checkout's own schema, shared/checkout-rules
// .server.ts), each saying when it is required. What depends only on the body (an invoice asked
// for, a company or a private customer, the invoice at the shipping address) is JSON Schema's
// if/then too; what depends on the order (a shipping address for paper) is said in words. The
// rules themselves are enforced by the use-case (server/commerce/start-payment.ts), with the
// pages' messages; the body is strict: a field not named here is refused.
import { z } from "zod";
import { customerShape } from "#shared/checkout-rules.server.ts";

type CheckoutField = Exclude<keyof typeof customerShape, "paymenthub">;

const ON_SHIPMENT = "obbligatorio quando l'ordine ha una spedizione (`hasshipment` dell'ordine, per i libri di carta)";
const ON_BILLING_PLACE =
  "obbligatorio con `hasbilling`, salvo `billingaddress_asshipment` su un ordine con spedizione (allora vale l'indirizzo di spedizione)";

const DESCRIPTIONS: Record<CheckoutField, string> = {
  customer_firstname: "Nome del cliente: obbligatorio",
  customer_lastname: "Cognome del cliente: obbligatorio",
  customer_email: "Email del cliente: obbligatoria",
  shipment_firstname: `Nome nell'indirizzo di spedizione: ${ON_SHIPMENT}`,
  shipment_lastname: `Cognome nell'indirizzo di spedizione: ${ON_SHIPMENT}`,
  shipment_address: `Via e numero della spedizione: ${ON_SHIPMENT}`,
  shipment_postcode: `CAP della spedizione (5 cifre): ${ON_SHIPMENT}`,
  shipment_city: `Città della spedizione: ${ON_SHIPMENT}`,
  shipment_province: `Sigla della provincia della spedizione (MI, RM…): ${ON_SHIPMENT}`,
  shipment_at: "Presso (spedizione): facoltativo",
  shipment_mobile: "Cellulare per il corriere: facoltativo",
  shipment_save: "Ricorda l'indirizzo di spedizione per i prossimi acquisti: facoltativo",
  hasbilling:
    "Chiede la fattura: con true (o un testo non vuoto) diventano obbligatori i dati di fatturazione (billing_*, billingaddress_*) come descritti",
  billing_save: "Ricorda i dati di fatturazione per i prossimi acquisti: facoltativo",
  billing_iscompany:
    'Con `hasbilling`: true (o "1") per un\'azienda (billing_name, billing_vat, billing_sdi obbligatori), altrimenti un privato (billing_ssn obbligatorio)',
  billing_name: "Ragione Sociale: obbligatoria con `hasbilling` e `billing_iscompany`",
  billing_vat: "Partita IVA (11 cifre): obbligatoria con `hasbilling` e `billing_iscompany`",
  billing_sdi: "Codice Univoco SDI (7 lettere o cifre): obbligatorio con `hasbilling` e `billing_iscompany`",
  billing_pec: "PEC per la fattura: facoltativa",
  billing_ssn: "Codice Fiscale (16 caratteri, o 11 cifre per un ente): obbligatorio con `hasbilling` senza `billing_iscompany`",
  billing_denomination:
    "Denominazione dell'ente: obbligatoria con `hasbilling` senza `billing_iscompany` quando billing_ssn ha 11 cifre",
  billingaddress_asshipment:
    "Con `hasbilling`, su un ordine con spedizione: la fattura va all'indirizzo di spedizione (dei billingaddress_* bastano nome e cognome)",
  billingaddress_firstname: "Nome nell'indirizzo di fatturazione: obbligatorio con `hasbilling`",
  billingaddress_lastname: "Cognome nell'indirizzo di fatturazione: obbligatorio con `hasbilling`",
  billingaddress_address: `Via e numero di fatturazione: ${ON_BILLING_PLACE}`,
  billingaddress_postcode: `CAP di fatturazione (5 cifre): ${ON_BILLING_PLACE}`,
  billingaddress_city: `Città di fatturazione: ${ON_BILLING_PLACE}`,
  billingaddress_province: `Sigla della provincia di fatturazione (MI, RM…): ${ON_BILLING_PLACE}`,
  billingaddress_at: "Presso (fatturazione): facoltativo",
  billingaddress_mobile: "Cellulare (fatturazione): facoltativo",
  terms_sales: "Accetta le condizioni di acquisto: obbligatorio, true",
  terms_cancel: "Accetta le condizioni di cancellazione: obbligatorio, true",
};

/** A box ticked, as JSON Schema tells it: true, or (as a form posts it) a text that is not empty. */
const ticked = (field: string, values: object = { anyOf: [{ const: true }, { type: "string", minLength: 1 }] }) => ({
  properties: { [field]: values },
  required: [field],
});
const invoice = ticked("hasbilling");
const company = ticked("billing_iscompany", { enum: [true, "1"] });
const atShipment = ticked("billingaddress_asshipment");

/** The body's rules that depend on the body alone, for a client that validates before sending. */
const REQUIRED_WHEN = [
  { if: invoice, then: { required: ["billingaddress_firstname", "billingaddress_lastname"] } },
  { if: { allOf: [invoice, company] }, then: { required: ["billing_name", "billing_vat", "billing_sdi"] } },
  { if: { allOf: [invoice, { not: company }] }, then: { required: ["billing_ssn"] } },
  {
    if: { allOf: [invoice, { not: atShipment }] },
    then: { required: ["billingaddress_address", "billingaddress_postcode", "billingaddress_city", "billingaddress_province"] },
  },
];

/** §7's two flags the card step does not use: taken, a yes/no each, and not read. */
const unusedFlag = z
  .union([z.boolean(), z.string().max(10)])
  .optional()
  .meta({ description: "Spec §7: accettato e non usato" });

const fields = Object.fromEntries(
  (Object.keys(DESCRIPTIONS) as CheckoutField[]).map((field) => [
    field,
    customerShape[field].meta({ description: DESCRIPTIONS[field] }),
  ]),
) as { [F in CheckoutField]: (typeof customerShape)[F] };

/**
 * An empty body is a poll (where the payment stands); any field makes it the start of a payment,
 * which needs the fields `required` names and, by the rules above, the others. `paymenthub` is
 * not a field: the address names the hub.
 */
export const checkHubBody = z.strictObject({ ...fields, return_immediately: unusedFlag, option_advance: unusedFlag }).meta({
  description:
    "Vuoto ({}): verifica dove sta il pagamento. Con i dati dell'ordine (spec §3): li controlla (spec §5) e avvia il pagamento. " +
    "I campi shipment_* (tranne at e mobile) sono obbligatori quando l'ordine ha una spedizione (`hasshipment`); " +
    "quelli di fatturazione quando si chiede la fattura (`hasbilling`), come dice ciascuno. Un campo non elencato è rifiutato.",
  anyOf: [
    { title: "Verifica", maxProperties: 0 },
    {
      title: "Avvio del pagamento",
      required: ["customer_firstname", "customer_lastname", "customer_email", "terms_sales", "terms_cancel"],
      allOf: REQUIRED_WHEN,
    },
  ],
});
