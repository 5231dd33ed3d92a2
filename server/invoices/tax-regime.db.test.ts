// The seller's tax regime against the VAT rates of the catalogue, checked at start-up: a regime
// that charges no VAT (RF02 "minimi", RF19 "forfettario") stops the portal while products carry
// VAT; the ordinary regime, or one of those over a catalogue sold only outside VAT, does not.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "#tests/support/database.ts";
import { testConfig } from "#tests/support/config.ts";
import { ConfigError } from "#server/config.ts";
import { products } from "#server/db/schema/index.ts";
import { checkTaxRegime, taxRegimeConflict } from "./tax-regime.ts";

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database?.destroy();
});

const seller = (taxRegime: string) => ({ ...testConfig().invoicing.seller!, taxRegime });

describe("the tax regime", () => {
  it("refuses at start-up a regime without VAT while the seeded catalogue sells products with VAT, naming the setting", async () => {
    for (const regime of ["RF02", "RF19"]) {
      const check = checkTaxRegime(database.db, seller(regime));
      await expect(check).rejects.toBeInstanceOf(ConfigError);
      await expect(check).rejects.toThrow(new RegExp(`SELLER_TAX_REGIME=${regime} .* charges no VAT`));
    }
    for (const regime of ["RF01", "RF07", "RF18"])
      await expect(checkTaxRegime(database.db, seller(regime))).resolves.toBeUndefined();
  });

  it("lets a regime without VAT through when nothing the catalogue sells carries VAT", async () => {
    expect(taxRegimeConflict("RF19", [null, null])).toBeNull();
    expect(taxRegimeConflict("RF19", [null, 400])).toMatch(/regime forfettario/);
    expect(taxRegimeConflict("RF01", [400, 2200])).toBeNull();
    // Products no longer sellable do not count.
    await database.db.update(products).set({ sellable: false });
    await expect(checkTaxRegime(database.db, seller("RF19"))).resolves.toBeUndefined();
  });
});
