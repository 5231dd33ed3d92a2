// The shapes of the codes and references that arrive in addresses and bodies, beside uuids
// (uuid.ts): one of the wrong shape matches nothing and never reaches SQL (PostgreSQL refuses a
// NUL character in text with an error, which must not become a 500).

/** An order's or a payment's readable code (NX261122-7K3M9Q, PX…; legacy orders have others). */
export const isOrderCode = (value: unknown): value is string => typeof value === "string" && /^[A-Za-z0-9-]{1,40}$/.test(value);

/** A product's business code or SKU (abbonamentoedu, EB-9788812345678). */
export const isProductCode = (value: unknown): value is string =>
  typeof value === "string" && /^[A-Za-z0-9._-]{1,64}$/.test(value.trim());

/** A payment provider's id of a setup, a charge or a session (seti_…, pi_…, cs_…, sbx_…). */
export const isGatewayRef = (value: unknown): value is string =>
  typeof value === "string" && /^[A-Za-z0-9_-]{1,255}$/.test(value);
