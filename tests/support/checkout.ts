import type { CheckoutDetails } from "../../server/commerce/checkout.ts";

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
