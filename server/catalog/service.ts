import { eq } from "drizzle-orm";
import type { Database } from "#server/db/client.ts";
import { productTypes, products } from "#server/db/schema/index.ts";
import { createTtlCache } from "#server/lib/ttl-cache.ts";
import { etagOf, renderCoverSvg, type CoverInfo } from "#server/media/cover-svg.ts";

export type OfferProduct = {
  code: string;
  name: string;
  priceCents: number;
  monthlyPriceCents: number | null;
};

/** Offers shown on public pages may lag a price change by this much; orders read prices afresh. */
const OFFER_TTL_MS = 60_000;

export function createCatalogService(db: Database) {
  const offers = createTtlCache<OfferProduct | null>(OFFER_TTL_MS);

  async function loadProductByCode(code: string): Promise<OfferProduct | null> {
    const [row] = await db
      .select({
        code: products.code,
        name: products.name,
        priceCents: products.priceCents,
        monthlyPriceCents: products.monthlyPriceCents,
      })
      .from(products)
      .where(eq(products.code, code))
      .limit(1);
    return row ? { ...row, code } : null;
  }

  return {
    /** A product by its business code, e.g. `abbonamentoedu`, as public pages show it. */
    getOfferByCode: (code: string) => offers.get(code, () => loadProductByCode(code)),

    /** The generated cover of the product with this cover key, as SVG with its ETag; null when unknown. */
    async cover(cover: string): Promise<{ svg: string; etag: string } | null> {
      const [row] = await db
        .select({
          name: products.name,
          shortAuthors: products.shortAuthors,
          edition: products.edition,
          typeCode: productTypes.code,
          typeName: productTypes.name,
        })
        .from(products)
        .innerJoin(productTypes, eq(productTypes.id, products.productTypeId))
        .where(eq(products.cover, cover))
        .limit(1);
      if (!row) return null;
      const svg = renderCoverSvg(row satisfies CoverInfo);
      return { svg, etag: etagOf(svg) };
    },
  };
}
