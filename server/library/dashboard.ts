// The dashboard's queries. What a customer owns costs one statement however many products they
// have; suggestions and boxes are the same for everyone of a profession and are cached.
import { and, asc, count, eq, inArray, lte, or, sql } from "drizzle-orm";
import type { Config } from "#server/config.ts";
import type { Database } from "#server/db/client.ts";
import {
  contactBoxes,
  discoverBoxes,
  ebookChapters,
  entitlements,
  orders,
  productTypes,
  products,
  promoBoxes,
  promoSmallBoxes,
  readingSessions,
} from "#server/db/schema/index.ts";
import { createTtlCache } from "#server/lib/ttl-cache.ts";
import { systemClock, type Clock } from "#server/lib/clock.ts";
import { ACTIVE_ORDERS_LIMIT, EDU_PRODUCT_CODE, SUGGESTION_LIMIT } from "#shared/library-constants.ts";
import type { ReferenceData } from "#server/catalog/reference.ts";
import { eduActiveUntil } from "./entitlements.ts";
import type { SubscriptionNotice } from "#shared/subscription.ts";
import { dashboardSectionsFor, promoAreasFor, suggestionAudienceFor } from "./promo-areas.ts";
import { BOOK_TYPE_CODES, newestFirst, suggestedBook, type SuggestionAudience } from "#server/catalog/products.ts";
import { checkoutPath, courseUrl } from "#shared/links.ts";
import { firstChapterTitle, readingStatus } from "./reading.ts";
import type { ContactBox, LibraryItem, LibraryTypeCode, PromoBox, Suggestion } from "./types.ts";

/** The contact boxes' area code. */
const CONTACT_AREA_CODE = "dashboard_contatti";

const LIBRARY_TYPES: readonly LibraryTypeCode[] = ["ebook", "paper_flex", "paper_hard", "corso", "rivista"];

export type Library = {
  /** Owned products, the most recently read first, then the newest. */
  items: LibraryItem[];
  /** The last product (spec §2), for the continue-learning box: see lastProductOf. */
  lastProduct: LibraryItem | null;
  /** End of EDU access (has_edu_upto), or null when the customer never had EDU. */
  eduUntil: Date | null;
  /** Whether EDU access runs at `now`. */
  eduActive: boolean;
  /** The time the library was read at: what is new or expired is judged against it. */
  now: Date;
};

export type Suggestions = { books: Suggestion[]; journals: Suggestion[]; courses: Suggestion[] };

export type DashboardPage = Library & {
  /** Why EDU stopped, when the subscription is the reason (only read when EDU access lapsed). */
  subscriptionNotice: SubscriptionNotice | null;
  promo: { topRight: PromoBox | null; left: PromoBox | null; numbered: PromoBox[] };
  contactBoxes: ContactBox[];
  /** null: the section is not shown to this profession (spec §2, §6). */
  suggestions: { books: Suggestion[]; journals: Suggestion[] | null; courses: Suggestion[] | null };
};

/** Boxes change a few times a year; suggestions follow the catalogue. Both may lag a minute. */
const CACHE_TTL_MS = 60_000;

/**
 * The product the customer last turned to: the one read or granted most recently, so a product
 * just activated is there at once (and a book read since is there again). `items` come most
 * recently read first, so a tie goes to the product being read.
 */
function lastProductOf(items: readonly LibraryItem[]): LibraryItem | null {
  let last: LibraryItem | null = null;
  let lastAt = -Infinity;
  for (const item of items) {
    const at = Math.max(item.reading?.lastReadAt.getTime() ?? -Infinity, item.obtained.at.getTime());
    if (at > lastAt) {
      last = item;
      lastAt = at;
    }
  }
  return last;
}

export type DashboardOptions = {
  db: Database;
  links: Config["links"];
  reference: Pick<ReferenceData, "professions">;
  /**
   * Why the customer's EDU stopped, when a subscription is the reason (commerce's
   * subscriptionNoticeOf): given, not imported, as the library sits below commerce
   * (docs/architecture.md).
   */
  subscriptionNotice: (userId: string, now: Date) => Promise<SubscriptionNotice | null>;
  now?: Clock;
};

export function createLibraryDashboard({
  db,
  links,
  reference,
  subscriptionNotice: noticeOf,
  now: clock = systemClock,
}: DashboardOptions) {
  const suggestionCache = createTtlCache<Suggestions>(CACHE_TTL_MS);
  const promoCache = createTtlCache<PromoBox[]>(CACHE_TTL_MS);
  const contactCache = createTtlCache<ContactBox[]>(CACHE_TTL_MS);
  const areaCache = createTtlCache<ReadonlySet<string>>(CACHE_TTL_MS);

  function externalUrlOf(typeCode: string, moodleId: number | null, url: string | null): string | null {
    if (typeCode === "corso") return moodleId === null ? null : courseUrl(links.coursePlatform, moodleId);
    if (typeCode === "rivista") return url;
    return null;
  }

  /** Each product's longest grant, with its reading session and current chapter. */
  const ownedProducts = db
    .selectDistinctOn([entitlements.productId], {
      productId: products.id,
      // Aliased: a subquery's columns need distinct names (products and product types both have these).
      code: sql<string>`${products.code}`.as("product_code"),
      name: sql<string>`${products.name}`.as("product_name"),
      typeCode: sql<string>`${productTypes.code}`.as("type_code"),
      typeName: sql<string>`${productTypes.name}`.as("type_name"),
      sku: products.sku,
      isbn: products.isbn,
      issn: products.issn,
      cover: products.cover,
      shortAuthors: products.shortAuthors,
      edition: products.edition,
      pubdate: products.pubdate,
      moodleId: products.moodleId,
      url: products.url,
      expiresAt: entitlements.expiresAt,
      grantedAt: entitlements.startsAt,
      // How the customer got it, on the card ('Attivato con il codice del libro il …'): this one
      // column, the grant's start being already here; the details are on 'I miei acquisti'.
      source: entitlements.source,
      startedAt: readingSessions.startedAt,
      lastReadAt: readingSessions.lastReadAt,
      chapter: sql<string | null>`${ebookChapters.title}`.as("current_chapter"),
      firstChapter: firstChapterTitle(products.id).as("first_chapter"),
    })
    .from(entitlements)
    .innerJoin(products, eq(products.id, entitlements.productId))
    .innerJoin(productTypes, eq(productTypes.id, products.productTypeId))
    .leftJoin(
      readingSessions,
      and(eq(readingSessions.userId, entitlements.userId), eq(readingSessions.productId, entitlements.productId)),
    )
    .leftJoin(ebookChapters, eq(ebookChapters.id, readingSessions.currentChapterId))
    .where(and(eq(entitlements.userId, sql.placeholder("userId")), lte(entitlements.startsAt, sql.placeholder("now"))))
    .orderBy(entitlements.productId, sql`${entitlements.expiresAt} desc nulls first`)
    .as("owned");

  /** The customer's paid orders, as the dashboard asks for them (limit 2, spec §9). */
  const paidOrders = db
    .select({ id: orders.id })
    .from(orders)
    .where(and(eq(orders.userId, sql.placeholder("userId")), eq(orders.status, "payed")))
    .limit(ACTIVE_ORDERS_LIMIT)
    .as("paid_orders");
  const activeOrders = db
    .select({ count: count().as("count") })
    .from(paidOrders)
    .as("active_orders");

  /**
   * One statement for what is the customer's own on the dashboard: whether they have paid orders,
   * and each product they own (one row each; one row with no product when they own none).
   * Prepared once: it runs on every dashboard, and building it is a good part of its cost.
   */
  const ownLibrary = db
    .select({
      activeOrders: activeOrders.count,
      // Null when the customer owns nothing (the left join's one empty row).
      product: {
        productId: ownedProducts.productId,
        code: ownedProducts.code,
        name: ownedProducts.name,
        typeCode: ownedProducts.typeCode,
        typeName: ownedProducts.typeName,
        sku: ownedProducts.sku,
        isbn: ownedProducts.isbn,
        issn: ownedProducts.issn,
        cover: ownedProducts.cover,
        shortAuthors: ownedProducts.shortAuthors,
        edition: ownedProducts.edition,
        pubdate: ownedProducts.pubdate,
        moodleId: ownedProducts.moodleId,
        url: ownedProducts.url,
        expiresAt: ownedProducts.expiresAt,
        grantedAt: ownedProducts.grantedAt,
        source: ownedProducts.source,
        startedAt: ownedProducts.startedAt,
        lastReadAt: ownedProducts.lastReadAt,
        chapter: ownedProducts.chapter,
        firstChapter: ownedProducts.firstChapter,
      },
    })
    .from(activeOrders)
    .leftJoinLateral(ownedProducts, sql`true`)
    .prepare("library_own");

  /** The customer's library, and whether they have paid orders (the left promo box's condition). */
  async function ownDashboard(userId: string, now: Date): Promise<{ library: Library; activeOrders: boolean }> {
    const rows = await ownLibrary.execute({ userId, now });
    let eduUntil: Date | null = null;
    const items: LibraryItem[] = [];
    for (const { product: row } of rows) {
      if (!row) continue;
      if (row.code === EDU_PRODUCT_CODE) {
        eduUntil = row.expiresAt;
        continue;
      }
      if (!(LIBRARY_TYPES as readonly string[]).includes(row.typeCode)) continue;
      const expired = row.expiresAt !== null && row.expiresAt <= now;
      items.push({
        productId: row.productId,
        name: row.name,
        typeCode: row.typeCode as LibraryTypeCode,
        typeName: row.typeName,
        sku: row.sku,
        isbn: row.isbn,
        issn: row.issn,
        cover: row.cover,
        shortAuthors: row.shortAuthors,
        edition: row.edition,
        pubdate: row.pubdate,
        expiresAt: row.expiresAt,
        expired,
        obtained: { source: row.source, at: row.grantedAt },
        reading:
          row.startedAt && row.lastReadAt
            ? {
                startedAt: row.startedAt,
                lastReadAt: row.lastReadAt,
                status: readingStatus({ expired, currentChapter: row.chapter, firstChapter: row.firstChapter }),
              }
            : null,
        externalUrl: externalUrlOf(row.typeCode, row.moodleId, row.url),
        buyLink: checkoutPath(row.sku),
      });
    }
    items.sort(
      (a, b) =>
        (b.reading?.lastReadAt.getTime() ?? 0) - (a.reading?.lastReadAt.getTime() ?? 0) ||
        (b.pubdate?.getTime() ?? 0) - (a.pubdate?.getTime() ?? 0) ||
        a.name.localeCompare(b.name, "it"),
    );
    return {
      library: {
        items,
        lastProduct: lastProductOf(items),
        eduUntil,
        eduActive: eduUntil !== null && eduUntil > now,
        now,
      },
      activeOrders: (rows[0]?.activeOrders ?? 0) > 0,
    };
  }

  /**
   * One statement: the newest books for the audience, journals and courses, at most
   * SUGGESTION_LIMIT of each. Digital editions of a paper book are left out (the paper
   * edition includes the eBook), so a title is suggested once.
   */
  async function loadSuggestions(audience: SuggestionAudience): Promise<Suggestions> {
    const group = sql<string>`case when ${inArray(productTypes.code, [...BOOK_TYPE_CODES])} then 'book' else ${productTypes.code} end`;
    const ranked = db
      .select({
        productId: products.id,
        name: products.name,
        // Aliased: a subquery's columns need distinct names.
        typeCode: sql<string>`${productTypes.code}`.as("type_code"),
        typeName: sql<string>`${productTypes.name}`.as("type_name"),
        sku: products.sku,
        cover: products.cover,
        shortAuthors: products.shortAuthors,
        pubdate: products.pubdate,
        priceCents: products.priceCents,
        group: group.as("group"),
        rank: sql<number>`row_number() over (partition by ${group} order by ${sql.join(newestFirst, sql`, `)})`.as("rank"),
      })
      .from(products)
      .innerJoin(productTypes, eq(productTypes.id, products.productTypeId))
      .where(or(inArray(productTypes.code, ["corso", "rivista"]), suggestedBook(audience)))
      .as("ranked");
    const rows = await db
      .select()
      .from(ranked)
      .where(lte(ranked.rank, SUGGESTION_LIMIT))
      .orderBy(asc(ranked.group), asc(ranked.rank));

    const result: Suggestions = { books: [], journals: [], courses: [] };
    for (const { group: kind, rank: _rank, ...row } of rows) {
      const suggestion: Suggestion = { ...row, typeCode: row.typeCode as LibraryTypeCode, buyLink: checkoutPath(row.sku) };
      if (kind === "book") result.books.push(suggestion);
      else if (kind === "rivista") result.journals.push(suggestion);
      else if (kind === "corso") result.courses.push(suggestion);
    }
    return result;
  }

  /** One statement: the promo boxes of these area codes with their small boxes, in the order asked. */
  async function loadPromoBoxes(areaCodes: readonly string[]): Promise<PromoBox[]> {
    const rows = await db
      .select({ box: promoBoxes, small: promoSmallBoxes })
      .from(promoBoxes)
      .leftJoin(promoSmallBoxes, eq(promoSmallBoxes.promoBoxId, promoBoxes.id))
      .where(inArray(promoBoxes.areaCode, [...areaCodes]))
      .orderBy(asc(promoBoxes.areaCode), asc(promoSmallBoxes.position));
    const byArea = new Map<string, PromoBox>();
    for (const { box, small } of rows) {
      let promo = byArea.get(box.areaCode);
      if (!promo) {
        const { id: _id, ...fields } = box;
        promo = { ...fields, smallBoxes: [] };
        byArea.set(box.areaCode, promo);
      }
      if (small) promo.smallBoxes.push({ title: small.title, url: small.url, cta: small.cta, color: small.color });
    }
    return areaCodes.flatMap((code) => byArea.get(code) ?? []);
  }

  /**
   * Everything the customer's dashboard shows (spec §2 'Dashboard', §6): their library, and the
   * suggestions and boxes of their profession (cached: the same for everyone of a profession).
   */
  async function page(user: { id: string; professionId: string | null }): Promise<DashboardPage> {
    const profession = (await reference.professions()).find((p) => p.id === user.professionId)?.code ?? "other";
    const sections = dashboardSectionsFor(profession);
    const [{ library: owned, activeOrders }, contacts, suggestions] = await Promise.all([
      ownDashboard(user.id, clock()),
      contactBoxList(),
      suggestionsFor(suggestionAudienceFor(profession)),
    ]);
    const areas = promoAreasFor(profession, owned.eduActive);
    const [boxes, subscriptionNotice] = await Promise.all([
      promoBoxList([areas.topRight, areas.left, ...areas.numbered]),
      owned.eduUntil && !owned.eduActive ? noticeOf(user.id, owned.now) : null,
    ]);
    const byArea = (code: string) => boxes.find((box) => box.areaCode === code) ?? null;
    return {
      ...owned,
      subscriptionNotice,
      promo: {
        topRight: byArea(areas.topRight),
        left: activeOrders ? byArea(areas.left) : null,
        numbered: boxes.filter((box) => areas.numbered.includes(box.areaCode)),
      },
      contactBoxes: contacts,
      suggestions: {
        books: suggestions.books,
        journals: sections.journals ? suggestions.journals : null,
        courses: sections.courses ? suggestions.courses : null,
      },
    };
  }

  const suggestionsFor = (audience: SuggestionAudience) => suggestionCache.get(audience, () => loadSuggestions(audience));
  const promoBoxList = (areaCodes: readonly string[]) => promoCache.get(areaCodes.join(","), () => loadPromoBoxes(areaCodes));
  const contactBoxList = (areaCode = CONTACT_AREA_CODE) =>
    contactCache.get(areaCode, async () =>
      db
        .select({
          title: contactBoxes.title,
          description: contactBoxes.description,
          url: contactBoxes.url,
          cta: contactBoxes.cta,
        })
        .from(contactBoxes)
        .where(eq(contactBoxes.areaCode, areaCode))
        .orderBy(asc(contactBoxes.position)),
    );

  /** Every area code the editors use: those of any promo, contact or discover box (a few dozen). */
  const areaCodes = () =>
    areaCache.get("all", async () => {
      const codes = (table: typeof promoBoxes | typeof contactBoxes | typeof discoverBoxes) =>
        db.selectDistinct({ code: table.areaCode }).from(table);
      const rows = (await Promise.all([codes(promoBoxes), codes(contactBoxes), codes(discoverBoxes)])).flat();
      return new Set(rows.map((row) => row.code));
    });

  return {
    page,

    /**
     * Whether an area code is one the editors use, in any kind of box: the API's box calls answer
     * an unknown one alike, and a known one with what it holds (a list may be empty).
     */
    isKnownArea: async (areaCode: string): Promise<boolean> => (await areaCodes()).has(areaCode),

    /** The promo box of an area code (spec §3), or null: the API's boxpromoarea. */
    promoBox: async (areaCode: string): Promise<PromoBox | null> => (await promoBoxList([areaCode]))[0] ?? null,

    /** The contact boxes of an area code, in order: the API's boxcontactarea. */
    contactBoxes: (areaCode: string): Promise<ContactBox[]> => contactBoxList(areaCode),

    /**
     * When the customer's running EDU access (has_edu_upto) ends, or null when none runs now;
     * and, when none runs, whether their subscription is why (the EDU page says so).
     */
    async eduState(userId: string): Promise<{ until: Date | null; notice: SubscriptionNotice | null }> {
      const now = clock();
      const until = await eduActiveUntil(db, userId);
      if (until && until > now) return { until, notice: null };
      return { until: null, notice: until ? await noticeOf(userId, now) : null };
    },

    /** Forgets cached suggestions and boxes (after an editor changed them, and in tests). */
    invalidate() {
      suggestionCache.clear();
      promoCache.clear();
      contactCache.clear();
      areaCache.clear();
    },
  };
}
