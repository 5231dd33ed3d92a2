// The address an order's invoice and receipt name: the billing one, or, when the customer chose
// it, the shipping address's place with the billing name (the invoice's holder, who may not be
// the parcel's recipient). Orders written before the billing name was asked for separately hold
// the shipping address whole, names included: they read the same.
import type { BillingDetails, PostalAddress } from "#server/db/schema/index.ts";

export function billingAddress(billing: BillingDetails, shipment: PostalAddress | null): PostalAddress | null {
  const own = billing.address ?? null;
  if (!billing.addressAsShipment || !shipment) return own;
  return { ...shipment, firstname: own?.firstname || shipment.firstname, lastname: own?.lastname || shipment.lastname };
}
