// The checkout's customer data (spec §3's order field names, §5's checks in §5's order), as the
// checkout page posts it and as the API's 'check hub' takes it: one set of rules for both doors.
// Every field is text of bounded length; the rules that depend on other fields and on the order
// (a shipping address only for paper, billing only when asked for, company or private) are one
// refinement that adds its messages in the spec's order, so the first message is the one the
// dialog 'Errore' shows.
import { z } from "zod";
import type { CheckoutDetails } from "#server/commerce/checkout.ts";
import type { PostalAddress } from "#server/db/schema/index.ts";
import {
  isBodyFiscalCode,
  isCap,
  isCodiceFiscale,
  isCodiceSdi,
  isProvince,
  normalizeId,
  partitaIvaProblem,
} from "./italian-ids.ts";
import { CHECKOUT_MESSAGES as M, invoiceFieldCharacters, invoiceFieldTooLong, type InvoiceField } from "./checkout-messages.ts";
import { charactersOutsideFatturaPa, FATTURAPA_LIMITS } from "./fatturapa-text.ts";
import { EMAIL_MAX_LENGTH, isEmail, isMobile, normalizeMobile } from "./contact-rules.ts";

/** A field of text of at most `max` characters, trimmed. */
export const text = (max = 200) => z.string().trim().max(max).optional();
/** A box ticked: a form posts its value ("1", "on"); a JSON client may send true (false: not ticked). */
const flag = z.union([z.string().max(10), z.boolean().transform((ticked) => (ticked ? "1" : undefined))]).optional();
/** The parts of an address, each a field `<prefix>_<part>` (shipment_city, billingaddress_at). */
export const ADDRESS_PARTS = ["firstname", "lastname", "address", "postcode", "city", "province", "at", "mobile"] as const;
const addressFields = <P extends string>(prefix: P) =>
  Object.fromEntries(ADDRESS_PARTS.map((part) => [`${prefix}_${part}`, text(part === "address" ? 300 : 120)])) as Record<
    `${P}_${(typeof ADDRESS_PARTS)[number]}`,
    ReturnType<typeof text>
  >;

export const customerShape = {
  customer_firstname: text(),
  customer_lastname: text(),
  customer_email: text(EMAIL_MAX_LENGTH),
  ...addressFields("shipment"),
  shipment_save: flag,
  hasbilling: flag,
  billing_save: flag,
  billing_iscompany: flag,
  billing_name: text(),
  billing_vat: text(40),
  billing_sdi: text(40),
  billing_pec: text(EMAIL_MAX_LENGTH),
  billing_ssn: text(40),
  /** The name of a body whose Codice Fiscale has 11 digits (an association): its invoice's Denominazione. */
  billing_denomination: text(),
  billingaddress_asshipment: flag,
  ...addressFields("billingaddress"),
  terms_sales: flag,
  terms_cancel: flag,
  paymenthub: text(40),
};

export type CustomerValues = z.output<z.ZodObject<typeof customerShape>>;
export type Problem = { field: string; message: string };

/** The missing-part messages of an address, by part (shipping and billing word them differently). */
type AddressMessages = Record<"firstname" | "lastname" | "address" | "postcode" | "city" | "province", string>;
const SHIPMENT_MISSING: AddressMessages = {
  firstname: M.shipmentFirstnameMissing,
  lastname: M.shipmentLastnameMissing,
  address: M.shipmentAddressMissing,
  postcode: M.shipmentPostcodeMissing,
  city: M.shipmentCityMissing,
  province: M.shipmentProvinceMissing,
};
const BILLING_MISSING: AddressMessages = {
  firstname: M.billingFirstnameMissing,
  lastname: M.billingLastnameMissing,
  address: M.billingAddressMissing,
  postcode: M.billingPostcodeMissing,
  city: M.billingCityMissing,
  province: M.billingProvinceMissing,
};

type AddressPart = keyof AddressMessages;
const NAME_PARTS: AddressPart[] = ["firstname", "lastname"];
const PLACE_PARTS: AddressPart[] = ["address", "postcode", "city", "province"];

/** The address's `parts` (missing, or a CAP or province written wrong), and its mobile with its place. */
function addressProblems(
  v: Record<string, string | undefined>,
  prefix: string,
  missing: AddressMessages,
  parts: AddressPart[] = [...NAME_PARTS, ...PLACE_PARTS],
): Problem[] {
  const problems: Problem[] = [];
  for (const part of parts) {
    const value = v[`${prefix}_${part}`] ?? "";
    const field = `${prefix}_${part}`;
    if (value === "") problems.push({ field, message: missing[part] });
    else if (part === "postcode" && !isCap(value)) problems.push({ field, message: M.postcodeInvalid });
    else if (part === "province" && !isProvince(value.toUpperCase())) problems.push({ field, message: M.provinceInvalid });
  }
  const mobile = v[`${prefix}_mobile`] ?? "";
  if (parts.includes("address") && mobile !== "" && !isMobile(mobile))
    problems.push({ field: `${prefix}_mobile`, message: M.mobileInvalid });
  return problems;
}

/**
 * What of the data going into the e-invoice it cannot hold: longer than its field, or with
 * characters outside its Latin-1 set. Refused, not changed: the invoice says what was typed.
 */
function invoiceTextProblems(v: Record<string, string | undefined>, fields: [InvoiceField, number][]): Problem[] {
  return fields.flatMap(([field, max]): Problem[] => {
    const value = v[field] ?? "";
    const outside = charactersOutsideFatturaPa(value);
    if (outside.length > 0) return [{ field, message: invoiceFieldCharacters(field, outside) }];
    return [...value].length > max ? [{ field, message: invoiceFieldTooLong(field, max) }] : [];
  });
}

/** What is said of a Partita IVA, by the rule it breaks. */
const VAT_MESSAGES: Record<NonNullable<ReturnType<typeof partitaIvaProblem>>, string> = {
  digits: M.vatInvalid,
  taxpayer: M.vatTaxpayerInvalid,
  office: M.vatOfficeInvalid,
  check_digit: M.vatCheckDigitInvalid,
};

/** Spec §5 from 'Manca il nome' to the payment method, in that order. */
function customerProblems(v: CustomerValues, { needsShipment }: { needsShipment: boolean }): Problem[] {
  const problems: Problem[] = [];
  const need = (field: keyof CustomerValues, message: string) => {
    if (!v[field]) problems.push({ field, message });
  };
  need("customer_firstname", M.firstnameMissing);
  need("customer_lastname", M.lastnameMissing);
  need("customer_email", M.emailMissing);
  if (v.customer_email && !isEmail(v.customer_email)) problems.push({ field: "customer_email", message: M.emailInvalid });
  if (needsShipment) problems.push(...addressProblems(v, "shipment", SHIPMENT_MISSING));
  if (v.hasbilling) {
    if (v.billing_iscompany === "1") {
      need("billing_name", M.companyNameMissing);
      problems.push(...invoiceTextProblems(v, [["billing_name", FATTURAPA_LIMITS.name]]));
      need("billing_vat", M.vatMissing);
      const vatProblem = v.billing_vat ? partitaIvaProblem(normalizeId(v.billing_vat)) : null;
      if (vatProblem) problems.push({ field: "billing_vat", message: VAT_MESSAGES[vatProblem] });
      need("billing_sdi", M.sdiMissing);
      if (v.billing_sdi && !isCodiceSdi(normalizeId(v.billing_sdi)))
        problems.push({ field: "billing_sdi", message: M.sdiInvalid });
    } else {
      need("billing_ssn", M.ssnMissing);
      const ssn = normalizeId(v.billing_ssn ?? "");
      if (ssn && !isCodiceFiscale(ssn)) problems.push({ field: "billing_ssn", message: M.ssnInvalid });
      else if (isBodyFiscalCode(ssn)) {
        // An association: its invoice is made out to its name.
        need("billing_denomination", M.denominationMissing);
        problems.push(...invoiceTextProblems(v, [["billing_denomination", FATTURAPA_LIMITS.name]]));
      }
    }
    if (v.billing_pec && !isEmail(v.billing_pec)) problems.push({ field: "billing_pec", message: M.pecInvalid });
    // The invoice's name is always the billing one; its place may be the shipping address.
    const ownAddress = !(needsShipment && v.billingaddress_asshipment);
    problems.push(
      ...addressProblems(v, "billingaddress", BILLING_MISSING, ownAddress ? [...NAME_PARTS, ...PLACE_PARTS] : NAME_PARTS),
    );
    problems.push(
      ...invoiceTextProblems(v, [
        ["billingaddress_firstname", FATTURAPA_LIMITS.firstname],
        ["billingaddress_lastname", FATTURAPA_LIMITS.lastname],
        ...(ownAddress
          ? ([
              ["billingaddress_address", FATTURAPA_LIMITS.street],
              ["billingaddress_city", FATTURAPA_LIMITS.city],
            ] as [InvoiceField, number][])
          : ([
              ["shipment_address", FATTURAPA_LIMITS.street],
              ["shipment_city", FATTURAPA_LIMITS.city],
            ] as [InvoiceField, number][])),
      ]),
    );
  }
  need("terms_sales", M.termsSalesMissing);
  need("terms_cancel", M.termsCancelMissing);
  need("paymenthub", M.paymentHubMissing);
  if (v.paymenthub && v.paymenthub !== "card") problems.push({ field: "paymenthub", message: M.paymentHubUnsupported });
  return problems;
}

export const withProblems =
  <T>(check: (value: T) => Problem[]) =>
  (value: T, ctx: z.RefinementCtx) => {
    for (const { field, message } of check(value)) ctx.addIssue({ code: "custom", path: [field], message });
  };

function addressOf(v: Record<string, string | undefined>, prefix: string): PostalAddress {
  const part = (name: string) => v[`${prefix}_${name}`] ?? "";
  return {
    firstname: part("firstname"),
    lastname: part("lastname"),
    address: part("address"),
    postcode: part("postcode"),
    city: part("city"),
    province: part("province").toUpperCase(),
    country: "IT",
    ...(part("at") ? { at: part("at") } : {}),
    ...(part("mobile") ? { mobile: normalizeMobile(part("mobile")) } : {}),
  };
}

/** The customer's data of the checkout without a card (the API's clients take the card at the gateway). */
export function customerSchema({ needsShipment }: { needsShipment: boolean }) {
  return z.object(customerShape).superRefine(withProblems((v: CustomerValues) => customerProblems(v, { needsShipment })));
}

/** The checked data as the payment service takes it. */
export function checkoutDetails(v: CustomerValues, { needsShipment }: { needsShipment: boolean }): CheckoutDetails {
  const shipment = needsShipment ? addressOf(v, "shipment") : null;
  const isCompany = v.billing_iscompany === "1";
  const ssnOfBody = !isCompany && isBodyFiscalCode(normalizeId(v.billing_ssn ?? ""));
  const addressAsShipment = shipment !== null && Boolean(v.billingaddress_asshipment);
  const billing = v.hasbilling
    ? {
        isCompany,
        ...(isCompany
          ? { name: v.billing_name, vat: normalizeId(v.billing_vat ?? ""), sdi: normalizeId(v.billing_sdi ?? "") }
          : { ssn: normalizeId(v.billing_ssn ?? ""), ...(ssnOfBody ? { name: v.billing_denomination } : {}) }),
        ...(v.billing_pec ? { pec: v.billing_pec } : {}),
        addressAsShipment,
        // The billing name, at the shipping address's place when so chosen.
        address: addressAsShipment
          ? { ...shipment, firstname: v.billingaddress_firstname ?? "", lastname: v.billingaddress_lastname ?? "" }
          : addressOf(v, "billingaddress"),
      }
    : null;
  return {
    customer: { firstname: v.customer_firstname!, lastname: v.customer_lastname!, email: v.customer_email!.toLowerCase() },
    shipment,
    shipmentSave: shipment !== null && Boolean(v.shipment_save),
    billing,
    billingSave: billing !== null && Boolean(v.billing_save),
    paymentHub: "card",
  };
}
