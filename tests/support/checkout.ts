import type { CheckoutDetails } from "../../server/commerce/checkout.ts";
import type { PostalAddress } from "../../server/db/schema.ts";

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
