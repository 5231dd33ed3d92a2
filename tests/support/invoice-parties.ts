// The parties of the e-invoices the writer's tests make: the fictitious seller, and a company, a
// person and an association as buyers, all with ids whose check digits hold.
import type { InvoiceSeller } from "#server/config.ts";
import type { InvoiceBuyer } from "#server/invoices/fatturapa.ts";

export const SELLER: InvoiceSeller = {
  name: "Novalex Editore S.r.l.",
  vat: "06363391001",
  fiscalCode: null,
  taxRegime: "RF01",
  street: "Via Nazionale 91",
  postcode: "00184",
  city: "Roma",
  province: "RM",
  rea: { office: "RM", number: "1234567", shareCapitalCents: null, soleShareholder: null, inLiquidation: false },
  stampDuty: true,
};
export const ADDRESS = { street: "Via Roma 1", postcode: "20121", city: "Milano", province: "MI" };
export const COMPANY = {
  kind: "company",
  vat: "00743110157",
  name: "Studio Legale Conti",
  address: ADDRESS,
  sdiCode: "M5UXCR1",
  pec: null,
} satisfies InvoiceBuyer;
export const PERSON = {
  kind: "person",
  fiscalCode: "RSSMRA85T10A562S",
  firstname: "Maria",
  lastname: "Rossi",
  address: ADDRESS,
  sdiCode: null,
  pec: null,
} satisfies InvoiceBuyer;
/** An association: a Codice Fiscale of 11 digits, named by its Denominazione. */
export const ASSOCIATION = {
  kind: "body",
  fiscalCode: "97735020584",
  name: "Associazione Giuristi Romani",
  address: ADDRESS,
  sdiCode: null,
  pec: null,
} satisfies InvoiceBuyer;
