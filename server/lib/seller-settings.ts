// The seller's settings, and the fictitious publisher they default to outside production. Kept
// apart from server/config.ts, with no imports, so that playwright.config.ts can give its
// production-mode servers the same publisher without loading the configuration's dependencies.

/** The e-invoice's seller settings production must be given (docs/e-invoices.md). */
export const INVOICE_SELLER_SETTINGS = [
  "SELLER_NAME",
  "SELLER_VAT",
  "SELLER_STREET",
  "SELLER_POSTCODE",
  "SELLER_CITY",
  "SELLER_PROVINCE",
  "SELLER_TAX_REGIME",
] as const;

/**
 * The fictitious publisher of development and tests. Production never defaults to it; the e2e
 * servers, which run in production mode, are given it as their settings.
 */
export const DEMO_SELLER: Record<(typeof INVOICE_SELLER_SETTINGS)[number], string> = {
  SELLER_NAME: "Novalex Editore S.r.l.",
  SELLER_VAT: "06363391001",
  SELLER_STREET: "Via Nazionale 91",
  SELLER_POSTCODE: "00184",
  SELLER_CITY: "Roma",
  SELLER_PROVINCE: "RM",
  SELLER_TAX_REGIME: "RF01",
};
