import type { CheckoutDetails } from "#server/commerce/checkout.ts";
import type { BillingDetails, PostalAddress } from "#server/db/schema/index.ts";
import type { Services } from "#server/services.ts";
import { EDU_PRODUCT_CODE } from "#shared/library-constants.ts";
import { futureExpiry } from "./cards.ts";

/** A shipping address that passes the checkout's checks. */
export const SHIPMENT: PostalAddress = {
  firstname: "Maria",
  lastname: "Rossi",
  address: "Via Roma 1",
  postcode: "00184",
  city: "Roma",
  province: "RM",
  country: "IT",
};

/** A company's request for an invoice, to its SDI code, that passes the checkout's checks. */
export const COMPANY_BILLING: BillingDetails = {
  isCompany: true,
  name: "Studio Legale Conti S.r.l.",
  vat: "00743110157",
  sdi: "M5UXCR1",
  addressAsShipment: false,
  address: {
    ...SHIPMENT,
    firstname: "Luca",
    lastname: "Conti",
    address: "Corso Italia 10",
    postcode: "20122",
    city: "Milano",
    province: "MI",
  },
};

/** A private customer's request for an invoice, by Codice Fiscale, to their PEC. */
export const PERSON_BILLING: BillingDetails = {
  isCompany: false,
  ssn: "RSSMRA85T10A562S",
  pec: "maria.rossi@pec.example.it",
  addressAsShipment: false,
  address: SHIPMENT,
};

/** What 'Completa l'acquisto' submits for a digital product paid by card, with any part replaced. */
export function checkoutDetails(overrides: Partial<CheckoutDetails> = {}): CheckoutDetails {
  return {
    customer: { firstname: "Maria", lastname: "Rossi", email: "maria.rossi@example.it" },
    shipment: null,
    shipmentSave: false,
    billing: null,
    billingSave: false,
    paymentHub: "card",
    ...overrides,
  };
}

/**
 * A product bought at the checkout with the sandbox's good card, as a customer does (for EDU, the
 * card is saved for the months after): the order and the card's setup. `details` replace parts of
 * what 'Completa l'acquisto' submits (an invoice's billing details).
 */
export async function buyWithSandboxCard(
  services: Services,
  userId: string,
  productCode: string,
  details: Partial<CheckoutDetails> = {},
) {
  const opened = await services.checkout.open(userId, productCode);
  const started = opened.ok ? await services.payments.start(userId, opened.orderId, checkoutDetails(details)) : null;
  if (!opened.ok || !started?.ok) throw new Error(`setup: the payment of ${productCode} did not start`);
  await services.sandbox!.confirmCard(started.setupId, "4242 4242 4242 4242");
  const settled = await services.payments.settleSetup(started.setupId);
  if (settled.state !== "paid") throw new Error(`setup: the payment of ${productCode} ended ${settled.state}`);
  return { orderId: opened.orderId, setupId: started.setupId };
}

/** EDU bought at the checkout with the sandbox's good card: the card's setup. */
export async function buyEduWithSandboxCard(services: Services, userId: string): Promise<string> {
  return (await buyWithSandboxCard(services, userId, EDU_PRODUCT_CODE)).setupId;
}

/** The checkout page's 'Completa l'acquisto' for a digital product, with the sandbox's good card. */
export const CHECKOUT_FORM = {
  customer_firstname: "Maria",
  customer_lastname: "Rossi",
  customer_email: "maria.rossi@example.it",
  terms_sales: "1",
  terms_cancel: "1",
  paymenthub: "card",
  cc_name: "Maria Rossi",
  cc_number: "4242 4242 4242 4242",
  cc_exp: futureExpiry(),
  cc_csc: "123",
};
