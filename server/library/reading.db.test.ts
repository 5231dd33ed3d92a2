import { randomBytes } from "node:crypto";
import { and, eq, inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testConfig } from "#tests/support/config.ts";
import { productOfType } from "#tests/support/catalog.ts";
import { createTestDatabase, type TestDatabase } from "#tests/support/database.ts";
import { createAccountsService } from "#server/accounts/service.ts";
import { ebookChapters, entitlements, productTypes, products, readingSessions } from "#server/db/schema/index.ts";
import { seedDatabase } from "#server/db/seed/index.ts";
import { NO_CHAPTER_STATUS, READABLE_TYPE_CODES } from "#shared/library-constants.ts";
import { createReading, externalReaderUrl, paragraphsOf, type Reading } from "./reading.ts";

let database: TestDatabase;
let reading: Reading;
const links = testConfig().links;
const UNKNOWN = "00000000-0000-4000-8000-000000000000";
const DAY = 86_400_000;
const NOW = new Date("2026-03-02T10:00:00Z");
const later = (ms: number) => new Date(NOW.getTime() + ms);

type SeededProduct = { id: string; sku: string; name: string };
let ebook: SeededProduct;
let paperFlex: SeededProduct;
let course: SeededProduct;

beforeAll(async () => {
  database = await createTestDatabase();
  reading = createReading({ db: database.db, readerUrlTemplate: null });
  ebook = await productOfType(database.db, "ebook");
  paperFlex = await productOfType(database.db, "paper_flex");
  course = await productOfType(database.db, "corso");
});
afterAll(() => database.destroy());

async function newUser() {
  const result = await createAccountsService(database.db).register({
    firstname: "Maria",
    lastname: "Rossi",
    email: `lettrice.${randomBytes(4).toString("hex")}@example.it`,
    password: "Segreta1!",
  });
  if (!result.ok) throw new Error("setup: registration failed");
  return result.user.id;
}

async function grant(
  userId: string,
  productId: string,
  { startsAt = later(-DAY), expiresAt = later(180 * DAY) as Date | null } = {},
) {
  await database.db.insert(entitlements).values({ userId, productId, source: "activation_code", startsAt, expiresAt });
}

async function sessionsOf(userId: string) {
  return database.db.select().from(readingSessions).where(eq(readingSessions.userId, userId));
}

async function chapterTitle(productId: string, position: number) {
  const [row] = await database.db
    .select({ title: ebookChapters.title })
    .from(ebookChapters)
    .where(and(eq(ebookChapters.productId, productId), eq(ebookChapters.position, position)));
  return row!.title;
}

describe("the seeded chapters", () => {
  it("give every readable book (eBook, paper with digital access) 5–8 chapters of 2–4 paragraphs, and nothing else any", async () => {
    const rows = await database.db
      .select({ productId: products.id, type: productTypes.code, position: ebookChapters.position, body: ebookChapters.body })
      .from(products)
      .innerJoin(productTypes, eq(productTypes.id, products.productTypeId))
      .leftJoin(ebookChapters, eq(ebookChapters.productId, products.id));
    const byProduct = new Map<string, { type: string; positions: number[]; paragraphs: number[] }>();
    for (const r of rows) {
      const entry = byProduct.get(r.productId) ?? { type: r.type, positions: [], paragraphs: [] };
      if (r.position !== null) entry.positions.push(r.position);
      if (r.body !== null) entry.paragraphs.push(paragraphsOf(r.body).length);
      byProduct.set(r.productId, entry);
    }
    let readable = 0;
    for (const { type, positions, paragraphs } of byProduct.values()) {
      if ((READABLE_TYPE_CODES as readonly string[]).includes(type)) {
        readable++;
        expect(positions.length).toBeGreaterThanOrEqual(5);
        expect(positions.length).toBeLessThanOrEqual(8);
        expect(positions.sort((a, b) => a - b)).toEqual(positions.map((_, i) => i + 1));
        for (const n of paragraphs) expect(n >= 2 && n <= 4).toBe(true);
      } else {
        expect(positions).toEqual([]);
      }
    }
    expect(readable).toBeGreaterThan(40);
  });

  it("are not inserted twice when the seed runs again", async () => {
    const before = await database.db.select({ id: ebookChapters.id }).from(ebookChapters);
    expect(await seedDatabase(database.db, links)).toEqual({ inserted: false });
    expect(await database.db.select({ id: ebookChapters.id }).from(ebookChapters)).toHaveLength(before.length);
  });
});

describe("open", () => {
  it("refuses a customer who was never granted the product, and writes nothing", async () => {
    const userId = await newUser();
    expect(await reading.open({ userId, productId: ebook.id, now: NOW })).toEqual({ ok: false, reason: "no_access" });
    expect(await sessionsOf(userId)).toEqual([]);
  });

  it("refuses an expired grant, and a grant that has not started yet", async () => {
    const expired = await newUser();
    await grant(expired, ebook.id, { startsAt: later(-200 * DAY), expiresAt: later(-DAY) });
    expect(await reading.open({ userId: expired, productId: ebook.id, now: NOW })).toEqual({ ok: false, reason: "expired" });
    const early = await newUser();
    await grant(early, ebook.id, { startsAt: later(DAY), expiresAt: later(181 * DAY) });
    expect(await reading.open({ userId: early, productId: ebook.id, now: NOW })).toEqual({ ok: false, reason: "no_access" });
    expect(await sessionsOf(expired)).toEqual([]);
    expect(await sessionsOf(early)).toEqual([]);
  });

  it("knows no product outside eBooks and 'Libro + eBook', and no malformed id", async () => {
    const userId = await newUser();
    await grant(userId, course.id);
    for (const productId of [course.id, UNKNOWN, "not-a-uuid", "'; drop table products; --"]) {
      expect(await reading.open({ userId, productId, now: NOW })).toEqual({ ok: false, reason: "not_found" });
    }
    expect(await sessionsOf(userId)).toEqual([]);
  });

  it("starts the session at the first open and answers with the built-in reader", async () => {
    const userId = await newUser();
    await grant(userId, ebook.id);
    expect(await reading.open({ userId, productId: ebook.id, now: NOW })).toEqual({ ok: true, url: `/leggi/${ebook.id}/` });
    const [session] = await sessionsOf(userId);
    expect(session).toMatchObject({ productId: ebook.id, startedAt: NOW, lastReadAt: NOW, currentChapterId: null });
  });

  it("keeps the start at the next open and moves the last reading", async () => {
    const userId = await newUser();
    await grant(userId, paperFlex.id, { expiresAt: null });
    await reading.open({ userId, productId: paperFlex.id, now: NOW });
    expect((await reading.open({ userId, productId: paperFlex.id, now: later(3 * DAY) })).ok).toBe(true);
    const rows = await sessionsOf(userId);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ startedAt: NOW, lastReadAt: later(3 * DAY) });
  });

  it("makes one session of first opens that race, with the latest reading time", async () => {
    const userId = await newUser();
    await grant(userId, ebook.id);
    const times = Array.from({ length: 6 }, (_, i) => later(i * 1000));
    const results = await Promise.all(times.map((now) => reading.open({ userId, productId: ebook.id, now })));
    expect(results.every((r) => r.ok)).toBe(true);
    const rows = await sessionsOf(userId);
    expect(rows).toHaveLength(1);
    expect(times.map((t) => t.getTime())).toContain(rows[0]!.startedAt.getTime());
    expect(rows[0]!.lastReadAt).toEqual(times.at(-1));
  });

  it("answers with the external reader's address, the id and sku URL-encoded", async () => {
    const external = createReading({
      db: database.db,
      readerUrlTemplate: "https://lettore.example/apri?libro={product}&sku={sku}",
    });
    const userId = await newUser();
    await grant(userId, ebook.id);
    expect(await external.open({ userId, productId: ebook.id, now: NOW })).toEqual({
      ok: true,
      url: `https://lettore.example/apri?libro=${ebook.id}&sku=${encodeURIComponent(ebook.sku)}`,
    });
    expect(await sessionsOf(userId)).toHaveLength(1);
    expect(externalReaderUrl("https://r.example/{sku}/{product}/{sku}", { id: "a/b", sku: "X Y&Z" })).toBe(
      "https://r.example/X%20Y%26Z/a%2Fb/X%20Y%26Z",
    );
  });
});

describe("status and chapters", () => {
  it("reads the first chapter, which the reader shows, until another is recorded, then that chapter's title", async () => {
    const userId = await newUser();
    const expiresAt = later(180 * DAY);
    await grant(userId, ebook.id, { expiresAt });
    expect(await reading.status({ userId, productId: ebook.id, now: NOW })).toEqual({
      status: await chapterTitle(ebook.id, 1),
      startedReading: null,
      expires: expiresAt,
      ebookIsExpired: false,
    });
    await reading.open({ userId, productId: ebook.id, now: NOW });
    // Opened: the reader shows chapter 1, and the status says so ('Contenuti aggiuntivi' is for
    // expired access only).
    const view = await reading.book({ userId, productId: ebook.id, now: NOW });
    expect(view.ok && view.chapter?.position).toBe(1);
    expect(await reading.status({ userId, productId: ebook.id, now: NOW })).toMatchObject({
      status: await chapterTitle(ebook.id, 1),
      startedReading: NOW,
    });
    expect(await reading.setChapter({ userId, productId: ebook.id, position: 3, now: later(60_000) })).toEqual({
      ok: true,
      chapter: { position: 3, title: await chapterTitle(ebook.id, 3) },
    });
    expect(await reading.status({ userId, productId: ebook.id, now: later(120_000) })).toEqual({
      status: await chapterTitle(ebook.id, 3),
      startedReading: NOW,
      expires: expiresAt,
      ebookIsExpired: false,
    });
    expect((await sessionsOf(userId))[0]!.lastReadAt).toEqual(later(60_000));
  });

  it("reports an expired grant as expired, and nothing of a product never granted or not read here", async () => {
    const userId = await newUser();
    await grant(userId, ebook.id, { startsAt: later(-200 * DAY), expiresAt: later(-DAY) });
    // Read up to chapter 2 while access lasted: now only 'Contenuti aggiuntivi' is left to read.
    const [second] = await database.db
      .select({ id: ebookChapters.id })
      .from(ebookChapters)
      .where(and(eq(ebookChapters.productId, ebook.id), eq(ebookChapters.position, 2)));
    await database.db.insert(readingSessions).values({
      userId,
      productId: ebook.id,
      currentChapterId: second!.id,
      startedAt: later(-9 * DAY),
      lastReadAt: later(-2 * DAY),
    });
    expect(await reading.status({ userId, productId: ebook.id, now: NOW })).toMatchObject({
      status: NO_CHAPTER_STATUS,
      expires: later(-DAY),
      ebookIsExpired: true,
    });
    // Never granted: the same nothing as a product that is not read here (spec §6: only one's own).
    expect(await reading.status({ userId, productId: paperFlex.id, now: NOW })).toBeNull();
    expect(await reading.status({ userId, productId: course.id, now: NOW })).toBeNull();
    const early = await newUser();
    await grant(early, ebook.id, { startsAt: later(DAY), expiresAt: later(181 * DAY) });
    expect(await reading.status({ userId: early, productId: ebook.id, now: NOW })).toBeNull();
  });

  it("records a chapter without a prior open, and refuses unknown positions without writing", async () => {
    const userId = await newUser();
    await grant(userId, ebook.id);
    for (const position of [0, -1, 99, 1.5, Number.NaN, 2 ** 40]) {
      expect(await reading.setChapter({ userId, productId: ebook.id, position, now: NOW })).toEqual({
        ok: false,
        reason: "unknown_chapter",
      });
    }
    expect(await sessionsOf(userId)).toEqual([]);
    expect((await reading.setChapter({ userId, productId: ebook.id, position: 2, now: NOW })).ok).toBe(true);
    expect(await sessionsOf(userId)).toMatchObject([{ startedAt: NOW, lastReadAt: NOW }]);
  });

  it("refuses to record a chapter without valid access", async () => {
    const never = await newUser();
    expect(await reading.setChapter({ userId: never, productId: ebook.id, position: 1, now: NOW })).toEqual({
      ok: false,
      reason: "no_access",
    });
    const expired = await newUser();
    await grant(expired, ebook.id, { startsAt: later(-200 * DAY), expiresAt: later(-DAY) });
    expect(await reading.setChapter({ userId: expired, productId: ebook.id, position: 1, now: NOW })).toEqual({
      ok: false,
      reason: "expired",
    });
    expect(await reading.setChapter({ userId: expired, productId: course.id, position: 1, now: NOW })).toEqual({
      ok: false,
      reason: "not_found",
    });
    expect(
      await database.db
        .select()
        .from(readingSessions)
        .where(inArray(readingSessions.userId, [never, expired])),
    ).toEqual([]);
  });

  it("leaves another customer's session of the same product alone", async () => {
    const anna = await newUser();
    const bruno = await newUser();
    await grant(anna, ebook.id);
    await grant(bruno, ebook.id);
    await reading.open({ userId: bruno, productId: ebook.id, now: NOW });
    await reading.setChapter({ userId: bruno, productId: ebook.id, position: 2, now: NOW });

    await reading.open({ userId: anna, productId: ebook.id, now: later(DAY) });
    await reading.setChapter({ userId: anna, productId: ebook.id, position: 4, now: later(DAY) });

    expect(await reading.status({ userId: bruno, productId: ebook.id, now: later(DAY) })).toMatchObject({
      status: await chapterTitle(ebook.id, 2),
      startedReading: NOW,
    });
    expect((await sessionsOf(bruno))[0]!.lastReadAt).toEqual(NOW);
    expect(await reading.status({ userId: anna, productId: ebook.id, now: later(DAY) })).toMatchObject({
      status: await chapterTitle(ebook.id, 4),
    });
  });
});

describe("book (the built-in reader's page)", () => {
  it("shows the requested chapter, else the recorded one, else the first", async () => {
    const userId = await newUser();
    await grant(userId, ebook.id);
    const first = await reading.book({ userId, productId: ebook.id, now: NOW });
    if (!first.ok) throw new Error("expected the book");
    expect(first.book).toMatchObject({ id: ebook.id, name: ebook.name });
    expect(first.chapters.map((c) => c.position)).toEqual(first.chapters.map((_, i) => i + 1));
    expect(first.chapter).toMatchObject({ position: 1, title: await chapterTitle(ebook.id, 1) });
    expect(first.chapter!.paragraphs.length).toBeGreaterThanOrEqual(2);
    expect(first).toMatchObject({ currentPosition: null, requestedMissing: false });

    await reading.setChapter({ userId, productId: ebook.id, position: 3, now: NOW });
    expect(await reading.book({ userId, productId: ebook.id, now: NOW })).toMatchObject({
      chapter: { position: 3 },
      currentPosition: 3,
    });
    expect(await reading.book({ userId, productId: ebook.id, position: 2, now: NOW })).toMatchObject({
      chapter: { position: 2 },
      currentPosition: 3,
      requestedMissing: false,
    });
    expect(await reading.book({ userId, productId: ebook.id, position: 42, now: NOW })).toMatchObject({
      chapter: { position: 3 },
      requestedMissing: true,
    });
    // Reading a page records nothing.
    expect((await sessionsOf(userId))[0]!.lastReadAt).toEqual(NOW);
  });

  it("shows an expired customer the supplementary section only, with no chapter text", async () => {
    const userId = await newUser();
    await grant(userId, ebook.id, { startsAt: later(-200 * DAY), expiresAt: later(-DAY) });
    const view = await reading.book({ userId, productId: ebook.id, position: 1, now: NOW });
    expect(view).toMatchObject({ ok: false, reason: "expired", expiredAt: later(-DAY), book: { id: ebook.id } });
    if (view.ok || view.reason !== "expired") throw new Error("expected the expired view");
    expect(view.buyLink).toBe(`/create-checkout/${encodeURIComponent(ebook.sku)}/`);
    expect(view.chapters.length).toBeGreaterThan(0);
    const [{ body }] = (await database.db
      .select({ body: ebookChapters.body })
      .from(ebookChapters)
      .where(eq(ebookChapters.productId, ebook.id))) as [{ body: string }];
    expect(JSON.stringify(view)).not.toContain(paragraphsOf(body)[1]);
    expect(Object.keys(view.chapters[0]!).sort()).toEqual(["position", "title"]);
  });

  it("refuses a customer without a grant and knows no other product", async () => {
    const userId = await newUser();
    expect(await reading.book({ userId, productId: ebook.id, now: NOW })).toEqual({ ok: false, reason: "no_access" });
    await grant(userId, course.id);
    expect(await reading.book({ userId, productId: course.id, now: NOW })).toEqual({ ok: false, reason: "not_found" });
    expect(await reading.book({ userId, productId: "x", now: NOW })).toEqual({ ok: false, reason: "not_found" });
  });
});
