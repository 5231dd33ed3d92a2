// The checkout's rules for what goes into an e-invoice (the page's form and the API's
// 'checkpaymenthub' share them): the buyer's data longer than FatturaPA's fields, or with
// characters outside its Latin-1 set, is refused with an Italian message beside the field, never
// changed silently; the invoice's holder is the billing name, at the shipping address's place when
// so chosen; an association (Codice Fiscale of 11 digits) is named by its Denominazione.
import { describe, expect, it } from "vitest";
import { CHECKOUT_MESSAGES as M, invoiceFieldCharacters, invoiceFieldTooLong } from "./checkout-messages.ts";
import { checkoutDetails, customerSchema, type CustomerValues } from "./checkout-rules.server.ts";

const PERSON = {
  customer_firstname: "Maria",
  customer_lastname: "Rossi",
  customer_email: "maria.rossi@example.it",
  hasbilling: "1",
  billing_iscompany: "0",
  billing_ssn: "RSSMRA85T10A562S",
  billingaddress_firstname: "Maria",
  billingaddress_lastname: "Rossi",
  billingaddress_address: "Via Roma 1",
  billingaddress_postcode: "20121",
  billingaddress_city: "Milano",
  billingaddress_province: "MI",
  terms_sales: "1",
  terms_cancel: "1",
  paymenthub: "card",
};
/** A paper book's order, to Luca Bianchi's office, invoiced to Maria Rossi at the same address. */
const SHIPPED = {
  ...PERSON,
  shipment_firstname: "Luca",
  shipment_lastname: "Bianchi",
  shipment_address: "Corso Italia 10",
  shipment_postcode: "20122",
  shipment_city: "Milano",
  shipment_province: "MI",
  billingaddress_asshipment: "1",
  billingaddress_address: "",
  billingaddress_postcode: "",
  billingaddress_city: "",
  billingaddress_province: "",
};

/** The form's refusals, field and message, in order; none when it passes. */
function refusals(form: Record<string, string>, needsShipment = false) {
  const parsed = customerSchema({ needsShipment }).safeParse(form);
  return parsed.success ? [] : parsed.error.issues.map((issue) => ({ field: String(issue.path[0]), message: issue.message }));
}
const details = (form: Record<string, string>, needsShipment = false) =>
  checkoutDetails(customerSchema({ needsShipment }).parse(form) as CustomerValues, { needsShipment });

describe("what the e-invoice cannot hold", () => {
  it("refuses a billing street or city longer than the invoice's field, beside the field, and takes one that fits", () => {
    const street = "Via del Corso " + "1".repeat(47); // 61 characters
    expect(refusals({ ...PERSON, billingaddress_address: street })).toEqual([
      { field: "billingaddress_address", message: invoiceFieldTooLong("billingaddress_address", 60) },
    ]);
    expect(invoiceFieldTooLong("billingaddress_address", 60)).toBe(
      "L Indirizzo nell indirizzo di fatturazione è troppo lungo per la fattura elettronica: al massimo 60 caratteri",
    );
    expect(refusals({ ...PERSON, billingaddress_address: street.slice(0, 60) })).toEqual([]);
    expect(refusals({ ...PERSON, billingaddress_city: "C".repeat(61) })[0]!.message).toBe(
      "La Città nell indirizzo di fatturazione è troppo lunga per la fattura elettronica: al massimo 60 caratteri",
    );
    expect(
      refusals({
        ...PERSON,
        billing_iscompany: "1",
        billing_name: "S".repeat(81),
        billing_vat: "00743110157",
        billing_sdi: "M5UXCR1",
      }),
    ).toEqual([{ field: "billing_name", message: invoiceFieldTooLong("billing_name", 80) }]);
  });

  it("refuses letters outside its Latin-1 set, naming them, and takes accents and typographic quotes it can write", () => {
    expect(refusals({ ...PERSON, billingaddress_lastname: "Łukasiewicz-Nowák" })).toEqual([
      { field: "billingaddress_lastname", message: invoiceFieldCharacters("billingaddress_lastname", ["Ł"]) },
    ]);
    expect(invoiceFieldCharacters("billingaddress_lastname", ["Ł"])).toBe(
      "Il Cognome nell indirizzo di fatturazione contiene caratteri che la fattura elettronica non accetta: Ł. " +
        "Scrivili con lettere dell alfabeto latino (per esempio L al posto di Ł)",
    );
    expect(refusals({ ...PERSON, billingaddress_address: "Ulica Świętokrzyska 5" })[0]!.message).toContain(": Ś ę. ");
    expect(refusals({ ...PERSON, billingaddress_lastname: "D’Amico Città—Società" })).toEqual([]);
  });

  it("checks the shipping street and city as the invoice's when the billing address is the shipping one, and not otherwise", () => {
    const long = "Corso Vittorio Emanuele II " + "9".repeat(34); // 61 characters
    expect(refusals({ ...SHIPPED, shipment_address: long }, true)).toEqual([
      { field: "shipment_address", message: invoiceFieldTooLong("shipment_address", 60) },
    ]);
    // Only the courier reads it.
    expect(refusals({ ...SHIPPED, shipment_address: long, hasbilling: "" }, true)).toEqual([]);
    expect(refusals({ ...SHIPPED, shipment_address: long, billingaddress_asshipment: "", ...placeOf(PERSON) }, true)).toEqual([]);
  });
});

/** The billing address's place of a form. */
function placeOf(form: typeof PERSON) {
  const { billingaddress_address, billingaddress_postcode, billingaddress_city, billingaddress_province } = form;
  return { billingaddress_address, billingaddress_postcode, billingaddress_city, billingaddress_province };
}

describe("who the invoice is made out to", () => {
  it("is the billing name at the shipping address's place, not the parcel's recipient", () => {
    expect(details(SHIPPED, true).billing).toMatchObject({
      addressAsShipment: true,
      address: {
        firstname: "Maria",
        lastname: "Rossi",
        address: "Corso Italia 10",
        postcode: "20122",
        city: "Milano",
        province: "MI",
      },
    });
    expect(details(SHIPPED, true).shipment).toMatchObject({ firstname: "Luca", lastname: "Bianchi" });
    // The billing name is asked for even then.
    expect(refusals({ ...SHIPPED, billingaddress_firstname: "" }, true)).toEqual([
      { field: "billingaddress_firstname", message: M.billingFirstnameMissing },
    ]);
  });

  it("is an association by its Denominazione when its Codice Fiscale has 11 digits", () => {
    const association = { ...PERSON, billing_ssn: "97735020584" };
    expect(refusals(association)).toEqual([{ field: "billing_denomination", message: M.denominationMissing }]);
    expect(details({ ...association, billing_denomination: "Associazione Giuristi Romani" }).billing).toMatchObject({
      isCompany: false,
      ssn: "97735020584",
      name: "Associazione Giuristi Romani",
    });
    // A person's code keeps no Denominazione.
    expect(details({ ...PERSON, billing_denomination: "Ignorata" }).billing).not.toHaveProperty("name");
  });
});
