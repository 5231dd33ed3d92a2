// The catalogue as the publisher's other clients read it through the API (spec §7: pim product
// and product type load, ecommerce book/journal/course lists, product page, ISBN search, discover
// boxes). Public data: the products themselves, never anything of a customer.
import { and, asc, desc, eq, inArray, isNull, sql, type SQL } from "drizzle-orm";
import type { Database } from "#server/db/client.ts";
import { discoverBoxes, productTypes, products } from "#server/db/schema/index.ts";
import { createTtlCache } from "#server/lib/ttl-cache.ts";

/** Book suggestions: student=1 for students and professors, legal_professions=1 for the others (spec §6). */
export type SuggestionAudience = "students" | "professionals";

/** The types a customer reads as a book. */
export const BOOK_TYPE_CODES = ["ebook", "paper_flex", "paper_hard"] as const;

/**
 * The books suggested to an audience: its flag set, and not the digital edition of a paper book
 * (the paper edition includes the eBook, so a title is suggested once). The dashboard's carousels
 * and the API's book list both take this condition.
 */
export function suggestedBook(audience: SuggestionAudience): SQL {
  const flag = audience === "students" ? products.forStudents : products.forLegalProfessions;
  return and(inArray(productTypes.code, [...BOOK_TYPE_CODES]), flag, isNull(products.masterProductId))!;
}

/** Newest first, as the suggestions are shown; a title breaks ties. */
export const newestFirst = [sql`${products.pubdate} desc nulls last`, asc(products.name)];

const productColumns = {
  id: products.id,
  code: products.code,
  name: products.name,
  sku: products.sku,
  isbn: products.isbn,
  issn: products.issn,
  ean: products.ean,
  cover: products.cover,
  shortAuthors: products.shortAuthors,
  edition: products.edition,
  periodicity: products.periodicity,
  pubdate: products.pubdate,
  priceCents: products.priceCents,
  monthlyPriceCents: products.monthlyPriceCents,
  moodleId: products.moodleId,
  url: products.url,
  masterProductId: products.masterProductId,
  sellable: products.sellable,
  type: { id: productTypes.id, code: productTypes.code, name: productTypes.name },
};

export type CatalogProduct = {
  [K in keyof typeof productColumns]: K extends "type"
    ? { id: string; code: string; name: string }
    : (typeof products.$inferSelect)[K & keyof typeof products.$inferSelect];
};

export type ProductType = { id: string; code: string; name: string };

/** The catalogue changes a few times a day; the lists may lag a minute. */
const CACHE_TTL_MS = 60_000;

export function createProductCatalog(db: Database) {
  const typeList = createTtlCache<ProductType[]>(CACHE_TTL_MS);
  const lists = createTtlCache<CatalogProduct[]>(CACHE_TTL_MS);

  const select = () =>
    db.select(productColumns).from(products).innerJoin(productTypes, eq(productTypes.id, products.productTypeId));

  /** The newest products matching `where`, at most `limit`. */
  const newest = (where: SQL, limit: number) =>
    select()
      .where(where)
      .orderBy(...newestFirst)
      .limit(limit) as Promise<CatalogProduct[]>;

  return {
    /** The products with these ids, in the order asked (unknown ids find nothing). */
    async load(ids: readonly string[]): Promise<CatalogProduct[]> {
      if (ids.length === 0) return [];
      const rows = (await select().where(inArray(products.id, [...ids]))) as CatalogProduct[];
      return ids.flatMap((id) => rows.find((row) => row.id === id) ?? []);
    },

    /** Every product type, by name. */
    types: () => typeList.get("all", async () => db.select().from(productTypes).orderBy(asc(productTypes.name))),

    /** The product with this SKU, or null. */
    async bySku(sku: string): Promise<CatalogProduct | null> {
      const [row] = (await select().where(eq(products.sku, sku)).limit(1)) as CatalogProduct[];
      return row ?? null;
    },

    /** Products with this ISBN (a paper book and its eBook may share none; legacy data may). */
    byIsbn: (isbn: string, limit: number) => newest(eq(products.isbn, isbn), limit),

    /** The newest books for an audience (spec §6's student=1 / legal_professions=1), journals, courses. */
    books: (audience: SuggestionAudience, limit: number) =>
      lists.get(`books:${audience}:${limit}`, () => newest(suggestedBook(audience), limit)),
    journals: (limit: number) => lists.get(`rivista:${limit}`, () => newest(eq(productTypes.code, "rivista"), limit)),
    courses: (limit: number) => lists.get(`corso:${limit}`, () => newest(eq(productTypes.code, "corso"), limit)),

    /** The products of a discover box (spec §3: by area code, referenced by ISBN), in its order. */
    discover: (areaCode: string) =>
      lists.get(`discover:${areaCode}`, async () => {
        const rows = await db
          .selectDistinctOn([discoverBoxes.position], productColumns)
          .from(discoverBoxes)
          .innerJoin(products, eq(products.isbn, discoverBoxes.isbn))
          .innerJoin(productTypes, eq(productTypes.id, products.productTypeId))
          .where(eq(discoverBoxes.areaCode, areaCode))
          // One product per entry: the paper edition before a digital one with the same ISBN.
          .orderBy(asc(discoverBoxes.position), sql`${products.masterProductId} is not null`, desc(products.pubdate));
        return rows as CatalogProduct[];
      }),
  };
}
