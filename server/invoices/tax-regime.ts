// The seller's tax regime (FatturaPA's RegimeFiscale) against what the catalogue sells: a regime
// under which the seller charges no VAT (the "minimi" and the flat-rate "forfettario") cannot
// issue invoices with VAT lines, so the portal refuses to start with it while products carry a
// VAT rate (docs/e-invoices.md). Checked at start-up, once the catalogue is there.
import { and, eq, isNotNull } from "drizzle-orm";
import { ConfigError, type InvoiceSeller } from "#server/config.ts";
import type { Queryable } from "#server/db/client.ts";
import { products } from "#server/db/schema/index.ts";

/** The regimes whose invoices carry no VAT (art. 1 c. 96-117 L. 244/2007; art. 1 c. 54-89 L. 190/2014). */
const REGIMES_WITHOUT_VAT: Readonly<Record<string, string>> = {
  RF02: "contribuenti minimi",
  RF19: "regime forfettario",
};

/** Why `regime` contradicts a catalogue that sells at `vatRatesBps`, or null when it does not. */
export function taxRegimeConflict(regime: string, vatRatesBps: readonly (number | null)[]): string | null {
  const name = REGIMES_WITHOUT_VAT[regime];
  if (!name || !vatRatesBps.some((rate) => rate !== null && rate > 0)) return null;
  return (
    `SELLER_TAX_REGIME=${regime} (${name}) charges no VAT, but the catalogue sells products with VAT: ` +
    "set the regime the accountant confirms (RF01 for the ordinary one)."
  );
}

/** Throws a ConfigError when the seller's regime contradicts the VAT rates of the sellable catalogue. */
export async function checkTaxRegime(db: Queryable, seller: InvoiceSeller): Promise<void> {
  const rates = await db
    .selectDistinct({ rate: products.vatRateBps })
    .from(products)
    .where(and(eq(products.sellable, true), isNotNull(products.vatRateBps)));
  const conflict = taxRegimeConflict(
    seller.taxRegime,
    rates.map((row) => row.rate),
  );
  if (conflict) throw new ConfigError(conflict);
}
