import { asc, eq } from "drizzle-orm";
import type { Database } from "#server/db/client.ts";
import {
  faqEntries,
  landingCards,
  landingPages,
  productTypes,
  products,
  type FaqPage,
  type LandingCardKind,
} from "#server/db/schema/index.ts";
import { createTtlCache } from "#server/lib/ttl-cache.ts";

export type LandingCard = {
  id: string;
  title: string;
  text: string | null;
  label: string | null;
  url: string | null;
  cta: string | null;
  priceNote: string | null;
  product: {
    sku: string;
    cover: string;
    shortAuthors: string | null;
    priceCents: number;
    typeName: string;
  } | null;
};

export type LandingPage = Omit<typeof landingPages.$inferSelect, "id"> & {
  cards: Record<LandingCardKind, LandingCard[]>;
};

type FaqEntry = { id: string; question: string; answer: string };
export type FaqSection = { title: string; entries: FaqEntry[] };

/**
 * Editorial content changes a few times a year and is read on every public page view, so
 * it is kept in memory for a short while instead of being queried on each request.
 */
const CONTENT_TTL_MS = 60_000;

export function createContentService(db: Database) {
  const cache = createTtlCache<unknown>(CONTENT_TTL_MS);

  async function loadLandingPage(variant: string): Promise<LandingPage | null> {
    const [page] = await db.select().from(landingPages).where(eq(landingPages.variant, variant));
    if (!page) return null;
    const rows = await db
      .select({
        card: landingCards,
        product: {
          sku: products.sku,
          cover: products.cover,
          shortAuthors: products.shortAuthors,
          priceCents: products.priceCents,
          typeName: productTypes.name,
        },
      })
      .from(landingCards)
      .leftJoin(products, eq(products.id, landingCards.productId))
      .leftJoin(productTypes, eq(productTypes.id, products.productTypeId))
      .where(eq(landingCards.landingPageId, page.id))
      .orderBy(asc(landingCards.kind), asc(landingCards.position));

    const cards: LandingPage["cards"] = { publication: [], news: [], collaborate: [], subject: [] };
    for (const { card, product } of rows) {
      cards[card.kind].push({
        id: card.id,
        title: card.title,
        text: card.text,
        label: card.label,
        url: card.url,
        cta: card.cta,
        priceNote: card.priceNote,
        product:
          product?.sku && product.cover && product.priceCents !== null
            ? {
                sku: product.sku,
                cover: product.cover,
                shortAuthors: product.shortAuthors,
                priceCents: product.priceCents,
                typeName: product.typeName ?? "",
              }
            : null,
      });
    }
    const { id: _id, ...fields } = page;
    return { ...fields, cards };
  }

  async function loadFaq(page: FaqPage): Promise<FaqSection[]> {
    const rows = await db
      .select({ id: faqEntries.id, section: faqEntries.section, question: faqEntries.question, answer: faqEntries.answer })
      .from(faqEntries)
      .where(eq(faqEntries.page, page))
      .orderBy(asc(faqEntries.position));
    const sections: FaqSection[] = [];
    for (const { section, ...entry } of rows) {
      let current = sections.at(-1);
      if (current?.title !== section) {
        current = { title: section, entries: [] };
        sections.push(current);
      }
      current.entries.push(entry);
    }
    return sections;
  }

  return {
    getLandingPage: (variant: string) =>
      cache.get(`landing:${variant}`, () => loadLandingPage(variant)) as Promise<LandingPage | null>,
    getFaq: (page: FaqPage) => cache.get(`faq:${page}`, () => loadFaq(page)) as Promise<FaqSection[]>,
    /** Forgets cached content, e.g. after an editor changed it. */
    invalidate: () => cache.clear(),
  };
}
