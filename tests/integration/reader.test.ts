// Opening a product and the built-in reader, through the routes' loaders and actions as React
// Router calls them: GET and form POST requests with a signed-in customer's session cookie.
import { randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { action as openActionBare, loader as openLoaderBare } from "#app/routes/reader.open.tsx";
import { action as readerActionBare, loader as readerLoaderBare } from "#app/routes/reader.tsx";
import type { FormReply } from "#app/lib/form-reply.ts";
import { READER_MESSAGES } from "#shared/reader-messages.ts";
import { createSessionStore } from "#server/accounts/sessions.ts";
import { ebookChapters, entitlements, readingSessions } from "#server/db/schema/index.ts";
import type { Services } from "#server/services.ts";
import { testConfig } from "#tests/support/config.ts";
import { createTestDatabase, type TestDatabase } from "#tests/support/database.ts";
import { productOfType } from "#tests/support/catalog.ts";
import { sessionCookieHeader, thrownResponse, toastOf } from "#tests/support/requests.ts";
import { loaderArgs } from "#tests/support/router-context.ts";
import { createTestServices } from "#tests/support/services.ts";
import { behindSignIn } from "#tests/support/customer-pages.ts";

// The customer's pages run behind the customer layout's sign-in.
const openAction = behindSignIn(openActionBare);
const openLoader = behindSignIn(openLoaderBare);
const readerAction = behindSignIn(readerActionBare);
const readerLoader = behindSignIn(readerLoaderBare);

let database: TestDatabase;
let services: Services;
let ebook: { id: string; sku: string };
let course: { id: string };
const DAY = 86_400_000;

beforeAll(async () => {
  database = await createTestDatabase();
  services = await createTestServices(database);
  ebook = await productOfType(database.db, "ebook");
  course = await productOfType(database.db, "corso");
});
afterAll(async () => {
  await services.close();
  await database.destroy();
});

// ---------------------------------------------------------------- helpers

async function newCustomer() {
  const result = await services.accounts.register({
    firstname: "Maria",
    lastname: "Rossi",
    email: `lettrice.${randomBytes(4).toString("hex")}@example.it`,
    password: "Segreta1!",
  });
  if (!result.ok) throw new Error("setup: registration failed");
  const rawId = await createSessionStore(database.db).create(result.user.id, {
    accessToken: "at",
    accessTokenExpiresAt: new Date(Date.now() + 10 * 60_000),
    refreshToken: "rt",
    idToken: "it",
  });
  return { userId: result.user.id, cookie: await sessionCookieHeader(rawId) };
}

async function grant(userId: string, productId: string, expiresAt: Date | null = new Date(Date.now() + 180 * DAY)) {
  await database.db
    .insert(entitlements)
    .values({ userId, productId, source: "activation_code", startsAt: new Date(Date.now() - 200 * DAY), expiresAt });
}

const readerUrl = (productId: string, query = "") => `/leggi/${productId}/${query}`;
const openUrl = (productId: string) => `/leggi/${productId}/apri`;

function get(url: string, productId: string, cookie?: string, svc: Services = services) {
  const args = loaderArgs(svc, url, { productId });
  return { ...args, request: new Request(args.request.url, { headers: cookie ? { cookie } : {} }) };
}

function post(url: string, productId: string, cookie: string | undefined, fields: Record<string, string> = {}, svc = services) {
  const args = loaderArgs(svc, url, { productId });
  const headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded" };
  if (cookie) headers.cookie = cookie;
  return { ...args, request: new Request(args.request.url, { method: "POST", headers, body: new URLSearchParams(fields) }) };
}

async function sessionsOf(userId: string) {
  return database.db.select().from(readingSessions).where(eq(readingSessions.userId, userId));
}

async function chapterTitles(productId: string) {
  const rows = await database.db
    .select({ position: ebookChapters.position, title: ebookChapters.title })
    .from(ebookChapters)
    .where(eq(ebookChapters.productId, productId))
    .orderBy(ebookChapters.position);
  return rows.map((r) => r.title);
}

const login = (path: string) => `/login/?${new URLSearchParams({ redirect: path })}`;

// ---------------------------------------------------------------- opening

describe("opening a product (POST /leggi/:id/apri)", () => {
  it("sends a signed-out visitor to the sign-in, and writes nothing", async () => {
    const response = await thrownResponse(openAction(post(openUrl(ebook.id), ebook.id, undefined)));
    expect(response.headers.get("Location")).toBe(login(openUrl(ebook.id)));
    expect(await database.db.select().from(readingSessions)).toEqual([]);
  });

  it("starts the reading session and goes to the built-in reader", async () => {
    const { userId, cookie } = await newCustomer();
    await grant(userId, ebook.id);
    const response = await openAction(post(openUrl(ebook.id), ebook.id, cookie));
    expect(response.status).toBe(302);
    expect(response.headers.get("Location")).toBe(readerUrl(ebook.id));
    expect(await sessionsOf(userId)).toMatchObject([{ productId: ebook.id, currentChapterId: null }]);
    // The reader shows the first chapter, so that is what the customer is reading.
    expect(await services.library.reading.status({ userId, productId: ebook.id })).toMatchObject({
      status: (await chapterTitles(ebook.id))[0],
      ebookIsExpired: false,
    });
  });

  it("goes to the external reader when one is configured", async () => {
    const external = await createTestServices(
      database,
      testConfig({ READER_URL_TEMPLATE: "https://lettore.example/libri/{sku}?id={product}" }),
    );
    try {
      const { userId, cookie } = await newCustomer();
      await grant(userId, ebook.id);
      const response = await openAction(post(openUrl(ebook.id), ebook.id, cookie, {}, external));
      expect(response.headers.get("Location")).toBe(
        `https://lettore.example/libri/${encodeURIComponent(ebook.sku)}?id=${ebook.id}`,
      );
      expect(await sessionsOf(userId)).toHaveLength(1);
    } finally {
      external.close();
    }
  });

  it("sends a customer without access back to the dashboard with 'Non hai accesso a questo prodotto'", async () => {
    const { userId, cookie } = await newCustomer();
    const response = await openAction(post(openUrl(ebook.id), ebook.id, cookie));
    expect(response.headers.get("Location")).toBe("/dashboard/");
    expect(await toastOf(services.flash, response)).toEqual({
      type: "error",
      title: READER_MESSAGES.noAccess,
      message: READER_MESSAGES.noAccessText,
    });
    expect(await sessionsOf(userId)).toEqual([]);
  });

  it("sends a customer whose access expired back to the dashboard with 'Accesso scaduto'", async () => {
    const { userId, cookie } = await newCustomer();
    await grant(userId, ebook.id, new Date(Date.now() - DAY));
    const response = await openAction(post(openUrl(ebook.id), ebook.id, cookie));
    expect(response.headers.get("Location")).toBe("/dashboard/");
    expect(await toastOf(services.flash, response)).toMatchObject({ type: "error", title: READER_MESSAGES.accessExpired });
    expect(await sessionsOf(userId)).toEqual([]);
  });

  it("answers 404 for a product the reader does not open, and a GET only shows the reader", async () => {
    const { userId, cookie } = await newCustomer();
    await grant(userId, course.id);
    for (const id of [course.id, "non-un-uuid"]) {
      expect((await thrownResponse(openAction(post(openUrl(id), id, cookie)))).status).toBe(404);
    }
    expect(await sessionsOf(userId)).toEqual([]);
    const response = await openLoader(get(openUrl(ebook.id), ebook.id, cookie));
    expect(response.status).toBe(302);
    expect(response.headers.get("Location")).toBe(readerUrl(ebook.id));
  });
});

// ---------------------------------------------------------------- the reader

describe("the built-in reader (/leggi/:id/)", () => {
  it("sends a signed-out visitor to the sign-in, and back", async () => {
    const response = await thrownResponse(readerLoader(get(readerUrl(ebook.id, "?capitolo=2"), ebook.id)));
    expect(response.headers.get("Location")).toBe(login(readerUrl(ebook.id, "?capitolo=2")));
    const posted = await thrownResponse(readerAction(post(readerUrl(ebook.id), ebook.id, undefined, { position: "2" })));
    expect(posted.headers.get("Location")).toBe(login(readerUrl(ebook.id)));
  });

  it("refuses a customer without access with 403 and shows nothing of the book", async () => {
    const owner = await newCustomer();
    await grant(owner.userId, ebook.id);
    await services.library.reading.setChapter({ userId: owner.userId, productId: ebook.id, position: 2 });
    const stranger = await newCustomer();
    expect((await thrownResponse(readerLoader(get(readerUrl(ebook.id), ebook.id, stranger.cookie)))).status).toBe(403);
    const posted = await thrownResponse(readerAction(post(readerUrl(ebook.id), ebook.id, stranger.cookie, { position: "4" })));
    expect(posted.status).toBe(403);
    expect(await sessionsOf(stranger.userId)).toEqual([]);
    // The owner's session is untouched by the stranger's attempt.
    expect((await services.library.reading.status({ userId: owner.userId, productId: ebook.id }))?.status).toBe(
      (await chapterTitles(ebook.id))[1],
    );
  });

  it("answers 404 for an id that is not a uuid, an unknown product and a course", async () => {
    const { userId, cookie } = await newCustomer();
    await grant(userId, course.id);
    for (const id of ["abc", "00000000-0000-4000-8000-000000000000", course.id]) {
      expect((await thrownResponse(readerLoader(get(readerUrl(id), id, cookie)))).status).toBe(404);
    }
  });

  it("shows the first chapter, records the chosen one and shows it at ?capitolo", async () => {
    const { userId, cookie } = await newCustomer();
    await grant(userId, ebook.id);
    const titles = await chapterTitles(ebook.id);

    const first = await readerLoader(get(readerUrl(ebook.id), ebook.id, cookie));
    if (!first.ok) throw new Error("expected the reader");
    expect(first.chapters.map((c) => c.title)).toEqual(titles);
    expect(first.chapter).toMatchObject({ position: 1, title: titles[0] });
    expect(first.chapter!.paragraphs.length).toBeGreaterThanOrEqual(2);

    const response = (await readerAction(post(readerUrl(ebook.id), ebook.id, cookie, { position: "3" }))) as Response;
    expect(response.status).toBe(302);
    expect(response.headers.get("Location")).toBe(readerUrl(ebook.id, "?capitolo=3"));
    expect((await services.library.reading.status({ userId, productId: ebook.id }))?.status).toBe(titles[2]);

    expect(await readerLoader(get(readerUrl(ebook.id, "?capitolo=3"), ebook.id, cookie))).toMatchObject({
      chapter: { position: 3, title: titles[2] },
    });
    // Without ?capitolo the reader resumes where the customer is; another chapter can be looked at.
    expect(await readerLoader(get(readerUrl(ebook.id), ebook.id, cookie))).toMatchObject({ chapter: { position: 3 } });
    expect(await readerLoader(get(readerUrl(ebook.id, "?capitolo=2"), ebook.id, cookie))).toMatchObject({
      chapter: { position: 2 },
      currentPosition: 3,
    });
    for (const bad of ["99", "abc", "-1"]) {
      expect(await readerLoader(get(readerUrl(ebook.id, `?capitolo=${bad}`), ebook.id, cookie))).toMatchObject({
        chapter: { position: 3 },
        requestedMissing: true,
      });
    }
  });

  it("refuses an unknown chapter with a message and records nothing", async () => {
    const { userId, cookie } = await newCustomer();
    await grant(userId, ebook.id);
    for (const position of ["99", "0", "due", ""]) {
      const result = (await readerAction(post(readerUrl(ebook.id), ebook.id, cookie, { position }))) as unknown as {
        data: FormReply;
        init: ResponseInit;
      };
      expect(result.init.status).toBe(400);
      expect(result.data).toEqual({ alert: { title: READER_MESSAGES.unknownChapter } });
    }
    expect(await sessionsOf(userId)).toEqual([]);
  });

  it("shows an expired customer 'Contenuti aggiuntivi' only, and turns a stale chapter post into 'Accesso scaduto'", async () => {
    const { userId, cookie } = await newCustomer();
    const expiredAt = new Date(Date.now() - DAY);
    await grant(userId, ebook.id, expiredAt);
    const view = await readerLoader(get(readerUrl(ebook.id, "?capitolo=1"), ebook.id, cookie));
    expect(view).toMatchObject({ ok: false, reason: "expired", expiredAt, book: { id: ebook.id } });
    expect(view).not.toHaveProperty("chapter");
    if (view.ok) throw new Error("expected the expired view");
    expect(view.chapters.every((c) => !("paragraphs" in c))).toBe(true);

    const response = (await readerAction(post(readerUrl(ebook.id), ebook.id, cookie, { position: "1" }))) as Response;
    expect(response.headers.get("Location")).toBe(readerUrl(ebook.id));
    expect(await toastOf(services.flash, response)).toMatchObject({ type: "error", title: READER_MESSAGES.accessExpired });
    expect(await sessionsOf(userId)).toEqual([]);
  });
});
