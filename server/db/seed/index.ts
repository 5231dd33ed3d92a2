// Seeds the reference data and editorial content every install needs, and, outside production,
// the demo catalogue (docs/operating.md, "The catalogue"). Idempotent: every row has a natural key
// (code, sku, name, variant, area code, position...) and rows already present are left alone, so
// running it again inserts nothing. One transaction, one INSERT per table.
import { randomUUID } from "node:crypto";
import type { PgInsertValue, PgTable } from "drizzle-orm/pg-core";
import type { Database } from "#server/db/client.ts";
import {
  contactBoxes,
  degreeCourses,
  discoverBoxes,
  ebookChapters,
  faqEntries,
  interests,
  landingCards,
  landingPages,
  productTypes,
  products,
  professions,
  promoBoxes,
  promoSmallBoxes,
  subjects,
  universities,
} from "#server/db/schema/index.ts";
import { READABLE_TYPE_CODES } from "#shared/library-constants.ts";
import { buildProducts, COMMERCE_TERMS, PRODUCT_TYPES, type ProductSeed } from "./catalog.ts";
import { buildChapters } from "./chapters.ts";
import { buildContactBoxes, buildDiscoverBoxes, buildPromoBoxes } from "./dashboard.ts";
import { FAQ_ENTRIES } from "./faq.ts";
import { buildLandingCards, buildLandingPages } from "./landing.ts";
import { INTERESTS, PROFESSIONS, SUBJECTS, UNIVERSITIES } from "./reference.ts";
import type { SeedLinks } from "./types.ts";

export type { SeedLinks } from "./types.ts";

type Transaction = Parameters<Parameters<Database["transaction"]>[0]>[0];

/** Inserts the rows that are not there yet; returns how many were inserted. */
async function insertMissing<T extends PgTable>(tx: Transaction, table: T, rows: PgInsertValue<T>[]): Promise<number> {
  if (rows.length === 0) return 0;
  const inserted = await tx.insert(table).values(rows).onConflictDoNothing().returning();
  return inserted.length;
}

function required<K, V>(map: ReadonlyMap<K, V>, key: K, what: string): V {
  const value = map.get(key);
  if (value === undefined) throw new Error(`Seed: missing ${what} ${String(key)}`);
  return value;
}

/**
 * Everything `seedReferenceData` inserts, and the demo catalogue: its products, the landing cards
 * and discover boxes that show them, and the chapters of its eBooks. Outside production only.
 */
export function seedDatabase(db: Database, links: SeedLinks): Promise<{ inserted: boolean }> {
  return seed(db, links, { demoCatalogue: true });
}

/**
 * What the pages need on any install, production's included: the product types, the first-access
 * profile's lists (professions, interests, universities with their degree courses, subjects), the
 * FAQ, the landing pages with their news and collaborate cards, and the dashboard's promo and
 * contact boxes (links to the configured sites). No product: operators import the publisher's
 * catalogue (`npm run admin -- catalogue:import`).
 */
export function seedReferenceData(db: Database, links: SeedLinks): Promise<{ inserted: boolean }> {
  return seed(db, links, { demoCatalogue: false });
}

/** Returns `{ inserted: false }` when everything was already there. */
async function seed(
  db: Database,
  links: SeedLinks,
  { demoCatalogue }: { demoCatalogue: boolean },
): Promise<{ inserted: boolean }> {
  const now = new Date();
  const catalog = buildProducts(links, now);
  const catalogByKey = new Map(catalog.map((p) => [p.key, p]));
  const typeNames = new Map(PRODUCT_TYPES.map((t) => [t.code as string, t.name]));

  const count = await db.transaction(async (tx) => {
    let n = 0;

    // ------------------------------------------------------------ reference data
    n += await insertMissing(tx, productTypes, [...PRODUCT_TYPES]);
    const typeIds = new Map(
      (await tx.select({ id: productTypes.id, code: productTypes.code }).from(productTypes)).map((r) => [r.code, r.id]),
    );

    n += await insertMissing(tx, professions, [...PROFESSIONS]);
    n += await insertMissing(tx, interests, [...INTERESTS]);
    n += await insertMissing(tx, subjects, [...SUBJECTS]);

    n += await insertMissing(
      tx,
      universities,
      UNIVERSITIES.map(({ name, city }) => ({ name, city })),
    );
    const universityIds = new Map(
      (await tx.select({ id: universities.id, name: universities.name }).from(universities)).map((r) => [r.name, r.id]),
    );
    n += await insertMissing(
      tx,
      degreeCourses,
      UNIVERSITIES.flatMap((u) =>
        u.degreeCourses.map((name) => ({ name, universityId: required(universityIds, u.name, "university") })),
      ),
    );

    // ------------------------------------------------------------ products
    // Ids are chosen here so that digital editions can point to their paper master in the
    // same INSERT; products already present keep theirs.
    const existing = await tx.select({ id: products.id, sku: products.sku, code: products.code }).from(products);
    const idBySku = new Map(existing.map((r) => [r.sku, r.id]));
    const idByCode = new Map(existing.flatMap((r) => (r.code ? [[r.code, r.id] as const] : [])));
    const productIds = new Map<string, string>();
    const resolveExisting = (p: ProductSeed) => idBySku.get(p.sku) ?? (p.code ? idByCode.get(p.code) : undefined);
    for (const p of catalog) productIds.set(p.key, resolveExisting(p) ?? randomUUID());

    const newProducts = demoCatalogue ? catalog.filter((p) => resolveExisting(p) === undefined) : [];
    n += await insertMissing(
      tx,
      products,
      newProducts.map((p) => ({
        id: required(productIds, p.key, "product"),
        code: p.code,
        name: p.name,
        productTypeId: required(typeIds, p.typeCode, "product type"),
        sku: p.sku,
        isbn: p.isbn,
        issn: p.issn,
        ean: p.ean,
        cover: p.sku.toLowerCase(),
        shortAuthors: p.shortAuthors,
        edition: p.edition,
        periodicity: p.periodicity,
        description: p.description,
        pubdate: p.pubdate,
        priceCents: p.priceCents,
        monthlyPriceCents: p.monthlyPriceCents,
        moodleId: p.moodleId,
        url: p.url,
        masterProductId: p.masterKey ? required(productIds, p.masterKey, "master product") : null,
        forStudents: p.forStudents,
        forLegalProfessions: p.forLegalProfessions,
        sellable: p.sellable ?? true,
        ...COMMERCE_TERMS[p.typeCode],
      })),
    );

    // ------------------------------------------------------------ landing pages
    n += await insertMissing(tx, landingPages, buildLandingPages(links));
    const pageIds = new Map(
      (await tx.select({ id: landingPages.id, variant: landingPages.variant }).from(landingPages)).map((r) => [r.variant, r.id]),
    );
    n += await insertMissing(
      tx,
      landingCards,
      buildLandingCards(links, catalogByKey, typeNames)
        .filter((card) => demoCatalogue || card.productKey === null)
        .map(({ variant, productKey, ...card }) => ({
          ...card,
          landingPageId: required(pageIds, variant, "landing page"),
          productId: productKey ? required(productIds, productKey, "product") : null,
        })),
    );

    // ------------------------------------------------------------ FAQ
    n += await insertMissing(tx, faqEntries, [...FAQ_ENTRIES]);

    // ------------------------------------------------------------ dashboard boxes
    const promo = buildPromoBoxes(links);
    n += await insertMissing(
      tx,
      promoBoxes,
      promo.map(({ smallBoxes: _small, ...box }) => box),
    );
    const promoIds = new Map(
      (await tx.select({ id: promoBoxes.id, areaCode: promoBoxes.areaCode }).from(promoBoxes)).map((r) => [r.areaCode, r.id]),
    );
    n += await insertMissing(
      tx,
      promoSmallBoxes,
      promo.flatMap((box) =>
        box.smallBoxes.map((small, i) => ({
          ...small,
          position: i + 1,
          promoBoxId: required(promoIds, box.areaCode, "promo box"),
        })),
      ),
    );
    n += await insertMissing(tx, contactBoxes, buildContactBoxes(links));
    if (demoCatalogue) n += await insertMissing(tx, discoverBoxes, buildDiscoverBoxes(catalogByKey));

    // ------------------------------------------------------------ eBook chapters
    // Every readable product of the catalogue, including those seeded by an earlier run, gets
    // the chapters it is missing (keyed by product and position).
    const readable: readonly string[] = READABLE_TYPE_CODES;
    n += await insertMissing(
      tx,
      ebookChapters,
      (demoCatalogue ? catalog : [])
        .filter((p) => readable.includes(p.typeCode))
        .flatMap((p) => buildChapters(p).map((chapter) => ({ ...chapter, productId: required(productIds, p.key, "product") }))),
    );

    return n;
  });

  return { inserted: count > 0 };
}
