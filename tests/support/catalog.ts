// Seeded products of given types, in a stable order (by sku), for tests that grant or read them.
import { eq, inArray } from "drizzle-orm";
import type { Database } from "#server/db/client.ts";
import { productTypes, products } from "#server/db/schema/index.ts";

export async function productsOfTypes(db: Database, codes: string[], limit: number) {
  return db
    .select({ id: products.id, sku: products.sku, name: products.name, code: productTypes.code })
    .from(products)
    .innerJoin(productTypes, eq(productTypes.id, products.productTypeId))
    .where(inArray(productTypes.code, codes))
    .orderBy(products.sku)
    .limit(limit);
}

/** The first seeded product of a type; fails the test set-up when the seed has none. */
export async function productOfType(db: Database, code: string) {
  const [row] = await productsOfTypes(db, [code], 1);
  if (!row) throw new Error(`setup: the seed has no product of type ${code}`);
  return row;
}
