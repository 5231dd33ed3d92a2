// Reading sessions and the built-in reader (spec §3 'Reading session status', §7 'reader
// userproductsession'). Opening an eBook starts the customer's reading session, or resumes it,
// and answers with the address of the reader: the external one of READER_URL_TEMPLATE when set,
// otherwise the portal's own at /leggi/<product id>/. The built-in reader records the chapter
// the customer is at, which becomes the session's status. Only a customer whose access is valid
// now may open, read or move through a product; anything refused writes nothing.
import { and, asc, eq, sql } from "drizzle-orm";
import type { Database } from "#server/db/client.ts";
import { ebookChapters, productTypes, products, readingSessions } from "#server/db/schema/index.ts";
import { isUuid } from "#server/lib/uuid.ts";
import { systemClock, type Clock } from "#server/lib/clock.ts";
import { NO_CHAPTER_STATUS, READABLE_TYPE_CODES } from "#shared/library-constants.ts";
import { accessTo } from "./entitlements.ts";
import { checkoutPath, readerPath } from "#shared/links.ts";

export type ReadingOptions = { db: Database; readerUrlTemplate: string | null; now?: Clock };

/** Why a product cannot be read: unknown (or not an eBook), never granted, or the grant is over. */
type ReadRefusal = "not_found" | "no_access" | "expired";

export type OpenResult = { ok: true; url: string } | { ok: false; reason: ReadRefusal };

/** The status call of spec §7, with the fields of spec §3. */
export type ReadingStatus = {
  /** The chapter being read (see readingStatus), or 'Contenuti aggiuntivi' once access is over. */
  status: string;
  /** When the customer first opened the product; null until then. */
  startedReading: Date | null;
  /** End of the customer's longest grant; null when it has no end, or when there is no grant. */
  expires: Date | null;
  /** True when the customer's access is over. */
  ebookIsExpired: boolean;
};

export type BookInfo = {
  id: string;
  name: string;
  shortAuthors: string | null;
  edition: string | null;
  cover: string;
  typeName: string;
  description: string | null;
};

export type ChapterRef = { position: number; title: string };
export type Chapter = ChapterRef & { paragraphs: string[] };

/** What the built-in reader page shows. */
export type BookView =
  | {
      ok: true;
      book: BookInfo;
      chapters: ChapterRef[];
      /** The chapter to show; null only for a product whose text is not loaded yet. */
      chapter: Chapter | null;
      /** The chapter recorded in the reading session, if any. */
      currentPosition: number | null;
      /** A position was asked for that the book does not have (the chapter shown is the fallback). */
      requestedMissing: boolean;
      /** End of access; null: no end. */
      expiresAt: Date | null;
    }
  /** Access is over: the supplementary section only (presentation and index, no chapter text). */
  | { ok: false; reason: "expired"; book: BookInfo; chapters: ChapterRef[]; expiredAt: Date; buyLink: string }
  | { ok: false; reason: "not_found" | "no_access" };

export type SetChapterResult = { ok: true; chapter: ChapterRef } | { ok: false; reason: ReadRefusal | "unknown_chapter" };

type Target = { userId: string; productId: string; now?: Date };

const READABLE: readonly string[] = READABLE_TYPE_CODES;
const MAX_POSITION = 2_147_483_647;

/**
 * What the customer is reading (spec §3 status, §4): the chapter recorded in the session, or the
 * first chapter, which the reader shows until another is chosen. 'Contenuti aggiuntivi' is what an
 * expired customer still sees, so it is the status once access is over; and of a book whose text
 * is not loaded yet, which has no chapter to name.
 */
export function readingStatus({
  expired,
  currentChapter,
  firstChapter,
}: {
  expired: boolean;
  currentChapter: string | null;
  firstChapter: string | null;
}): string {
  if (expired) return NO_CHAPTER_STATUS;
  return currentChapter ?? firstChapter ?? NO_CHAPTER_STATUS;
}

/** The title of a product's first chapter: a correlated subquery on `productId` (indexed). */
export function firstChapterTitle(productId: typeof products.id) {
  // Aliased: the queries using it also join ebook_chapters for the session's current chapter.
  return sql<
    string | null
  >`(select fc.title from ${ebookChapters} fc where fc.product_id = ${productId} order by fc.position limit 1)`;
}

/**
 * The external reader's address for a product: {product} and {sku} of the template replaced by
 * the URL-encoded product id and sku.
 */
export function externalReaderUrl(template: string, product: { id: string; sku: string }): string {
  return template.replaceAll("{product}", encodeURIComponent(product.id)).replaceAll("{sku}", encodeURIComponent(product.sku));
}

/** A chapter body's paragraphs (separated by blank lines in the table). */
export function paragraphsOf(body: string): string[] {
  return body
    .split(/\r?\n\s*\r?\n/)
    .map((p) => p.trim())
    .filter((p) => p !== "");
}

export function createReading({ db, readerUrlTemplate, now: clock = systemClock }: ReadingOptions) {
  /** The product if it exists and is read here, with the customer's reading session and its chapter. */
  async function readableProduct(userId: string, productId: string) {
    if (!isUuid(productId)) return null;
    const [row] = await db
      .select({
        id: products.id,
        name: products.name,
        sku: products.sku,
        shortAuthors: products.shortAuthors,
        edition: products.edition,
        cover: products.cover,
        description: products.description,
        typeCode: productTypes.code,
        typeName: productTypes.name,
        startedAt: readingSessions.startedAt,
        chapterPosition: ebookChapters.position,
        chapterTitle: ebookChapters.title,
        firstChapterTitle: firstChapterTitle(products.id),
      })
      .from(products)
      .innerJoin(productTypes, eq(productTypes.id, products.productTypeId))
      .leftJoin(readingSessions, and(eq(readingSessions.productId, products.id), eq(readingSessions.userId, userId)))
      .leftJoin(ebookChapters, eq(ebookChapters.id, readingSessions.currentChapterId))
      .where(eq(products.id, productId));
    return row && READABLE.includes(row.typeCode) ? row : null;
  }

  /** Whether the customer may read now, and if not why; plus the end of their longest grant. */
  async function accessState(userId: string, productId: string, now: Date) {
    const access = await accessTo(db, userId, productId, now);
    const refusal: "no_access" | "expired" | null = access?.allowed ? null : access?.expired ? "expired" : "no_access";
    return { refusal, expiresAt: access?.expiresAt ?? null };
  }

  /**
   * Starts the session (started and last read now) or, when it exists, moves its last reading
   * time: one statement, so two first opens at once still make one session with one start.
   */
  async function touchSession(userId: string, productId: string, now: Date, chapterId?: string) {
    await db
      .insert(readingSessions)
      .values({ userId, productId, startedAt: now, lastReadAt: now, currentChapterId: chapterId ?? null })
      .onConflictDoUpdate({
        target: [readingSessions.userId, readingSessions.productId],
        set: {
          // Requests finishing out of order never move the last reading back in time.
          lastReadAt: sql`greatest(${readingSessions.lastReadAt}, excluded.last_read_at)`,
          ...(chapterId ? { currentChapterId: chapterId } : {}),
        },
      });
  }

  async function chaptersOf(productId: string) {
    return db
      .select({ id: ebookChapters.id, position: ebookChapters.position, title: ebookChapters.title, body: ebookChapters.body })
      .from(ebookChapters)
      .where(eq(ebookChapters.productId, productId))
      .orderBy(asc(ebookChapters.position));
  }

  return {
    /** 'Inizia a leggere' / 'Continua a leggere': starts or resumes the session, answers where to read. */
    async open({ userId, productId, now = clock() }: Target): Promise<OpenResult> {
      const product = await readableProduct(userId, productId);
      if (!product) return { ok: false, reason: "not_found" };
      const { refusal } = await accessState(userId, productId, now);
      if (refusal) return { ok: false, reason: refusal };
      await touchSession(userId, productId, now);
      const url = readerUrlTemplate ? externalReaderUrl(readerUrlTemplate, product) : readerPath(product.id);
      return { ok: true, url };
    },

    /**
     * The session status of spec §3; null for an unknown product, one not read here, and one the
     * customer has no access to now and had none before: like `open`, it says nothing of a product
     * that is not the customer's (an ended access is theirs to know).
     */
    async status({ userId, productId, now = clock() }: Target): Promise<ReadingStatus | null> {
      const product = await readableProduct(userId, productId);
      if (!product) return null;
      const { refusal, expiresAt } = await accessState(userId, productId, now);
      if (refusal === "no_access") return null;
      return {
        status: readingStatus({
          expired: refusal !== null,
          currentChapter: product.chapterTitle,
          firstChapter: product.firstChapterTitle,
        }),
        startedReading: product.startedAt,
        expires: expiresAt,
        ebookIsExpired: refusal !== null,
      };
    },

    /**
     * The built-in reader's page: the chapter at `position` when the book has it, else the
     * chapter recorded in the session, else the first. Reading it changes nothing.
     */
    async book({ userId, productId, position, now = clock() }: Target & { position?: number }): Promise<BookView> {
      const product = await readableProduct(userId, productId);
      if (!product) return { ok: false, reason: "not_found" };
      const { refusal, expiresAt } = await accessState(userId, productId, now);
      if (refusal === "no_access") return { ok: false, reason: "no_access" };
      const book: BookInfo = {
        id: product.id,
        name: product.name,
        shortAuthors: product.shortAuthors,
        edition: product.edition,
        cover: product.cover,
        typeName: product.typeName,
        description: product.description,
      };
      const rows = await chaptersOf(productId);
      const chapters = rows.map(({ position, title }) => ({ position, title }));
      if (refusal === "expired") {
        // accessTo reports "expired" only for a grant with an end.
        return { ok: false, reason: "expired", book, chapters, expiredAt: expiresAt!, buyLink: checkoutPath(product.sku) };
      }
      const requested = position === undefined ? undefined : rows.find((c) => c.position === position);
      const shown = requested ?? rows.find((c) => c.position === product.chapterPosition) ?? rows[0];
      return {
        ok: true,
        book,
        chapters,
        chapter: shown ? { position: shown.position, title: shown.title, paragraphs: paragraphsOf(shown.body) } : null,
        currentPosition: product.chapterPosition,
        requestedMissing: position !== undefined && requested === undefined,
        expiresAt,
      };
    },

    /** Records the chapter the customer is at (and that they are reading now). */
    async setChapter({ userId, productId, position, now = clock() }: Target & { position: number }): Promise<SetChapterResult> {
      const product = await readableProduct(userId, productId);
      if (!product) return { ok: false, reason: "not_found" };
      const { refusal } = await accessState(userId, productId, now);
      if (refusal) return { ok: false, reason: refusal };
      // Positions start at 1; a number beyond PostgreSQL's integer would fail the query instead.
      if (!Number.isInteger(position) || position < 1 || position > MAX_POSITION) return { ok: false, reason: "unknown_chapter" };
      const [chapter] = await db
        .select({ id: ebookChapters.id, position: ebookChapters.position, title: ebookChapters.title })
        .from(ebookChapters)
        .where(and(eq(ebookChapters.productId, productId), eq(ebookChapters.position, position)));
      if (!chapter) return { ok: false, reason: "unknown_chapter" };
      await touchSession(userId, productId, now, chapter.id);
      return { ok: true, chapter: { position: chapter.position, title: chapter.title } };
    },
  };
}

export type Reading = ReturnType<typeof createReading>;
