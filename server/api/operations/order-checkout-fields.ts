// An order's checkout data as the API gives it back (spec §3's order fields): what checkpaymenthub
// accepted (the shipping address, the invoice's data, the terms accepted) and the totals the
// customer was shown, so that a client can show again what it sent. Null until sent.
import { z } from "zod";
import { ADDRESS_PARTS } from "#shared/checkout-rules.server.ts";
import type { BillingDetails, PostalAddress } from "#server/db/schema/index.ts";
import { euros } from "./fields.ts";
type AddressPart = (typeof ADDRESS_PARTS)[number];

const addressShape = <P extends string>(prefix: P) =>
  Object.fromEntries(ADDRESS_PARTS.map((part) => [`${prefix}_${part}`, z.string().nullable()])) as Record<
    `${P}_${AddressPart}`,
    z.ZodNullable<z.ZodString>
  >;

const addressOf = <P extends string>(prefix: P, address: PostalAddress | null | undefined) =>
  Object.fromEntries(ADDRESS_PARTS.map((part) => [`${prefix}_${part}`, address?.[part] ?? null])) as Record<
    `${P}_${AddressPart}`,
    string | null
  >;

export const orderCheckoutShape = {
  /** The portal prices no advance option: the total and discount shown are the same with it on or off. */
  shown_total_option_advance_true: z.number(),
  shown_total_option_advance_false: z.number(),
  shown_discount_option_advance_true: z.number(),
  shown_discount_option_advance_false: z.number(),
  ...addressShape("shipment"),
  shipment_save: z.boolean(),
  hasbilling: z.boolean(),
  billing_save: z.boolean(),
  billing_iscompany: z.boolean().nullable(),
  billing_name: z.string().nullable(),
  billing_vat: z.string().nullable(),
  billing_sdi: z.string().nullable(),
  billing_pec: z.string().nullable(),
  billing_ssn: z.string().nullable(),
  billing_denomination: z.string().nullable(),
  billingaddress_asshipment: z.boolean().nullable(),
  ...addressShape("billingaddress"),
  terms_sales: z.boolean(),
  terms_cancel: z.boolean(),
};

export type OrderCheckoutRow = {
  totalCents: number;
  discountCents: number;
  shipmentPriceCents: number;
  shipment: PostalAddress | null;
  shipmentSave: boolean;
  hasBilling: boolean;
  billing: BillingDetails | null;
  billingSave: boolean;
  termsSalesAt: Date | null;
  termsCancelAt: Date | null;
};

export function orderCheckoutOf(o: OrderCheckoutRow): z.input<z.ZodObject<typeof orderCheckoutShape>> {
  // What the customer pays: the total with the shipping.
  const shownTotal = euros(o.totalCents + o.shipmentPriceCents);
  const shownDiscount = euros(o.discountCents);
  const billing = o.hasBilling ? o.billing : null;
  const company = billing?.isCompany ?? null;
  return {
    shown_total_option_advance_true: shownTotal,
    shown_total_option_advance_false: shownTotal,
    shown_discount_option_advance_true: shownDiscount,
    shown_discount_option_advance_false: shownDiscount,
    ...addressOf("shipment", o.shipment),
    shipment_save: o.shipmentSave,
    hasbilling: billing !== null,
    billing_save: o.billingSave,
    billing_iscompany: company,
    // A company's name is its Ragione Sociale; a body's (a Codice Fiscale of 11 digits), its Denominazione.
    billing_name: company ? (billing?.name ?? null) : null,
    billing_vat: billing?.vat ?? null,
    billing_sdi: billing?.sdi ?? null,
    billing_pec: billing?.pec ?? null,
    billing_ssn: billing?.ssn ?? null,
    billing_denomination: company === false ? (billing?.name ?? null) : null,
    billingaddress_asshipment: billing?.addressAsShipment ?? null,
    ...addressOf("billingaddress", billing?.address),
    terms_sales: o.termsSalesAt !== null,
    terms_cancel: o.termsCancelAt !== null,
  };
}
