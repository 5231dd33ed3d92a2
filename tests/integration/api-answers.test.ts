// The same situation, the same answer (issue 28, items 7 and 8): the reader's two calls say the
// same of a product the caller never had and of one that is not read here; the three box calls
// say the same of an area code no box uses; the order lists page with an offset and tell their
// length in X-Total-Count, in a stable order.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { API_MESSAGES } from "#server/api/errors.ts";
import { entitlements } from "#server/db/schema/index.ts";
import { READER_MESSAGES } from "#shared/reader-messages.ts";
import { apiClient, signInApp, type ApiAnswer } from "#tests/support/api-client.ts";
import { productsOfTypes, productOfType } from "#tests/support/catalog.ts";
import { DAY } from "#tests/support/clock.ts";
import { startApiPortal, stopApiPortal, type Manifests } from "#tests/support/api-portal.ts";
import type { TestDatabase } from "#tests/support/database.ts";
import type { Portal } from "#tests/support/http-app.ts";
import { insertOrder } from "#tests/support/orders.ts";

let database: TestDatabase;
let portal: Portal;
let modules: Manifests;
const PASSWORD = "Segreta1!";
const notFound = { status: 404, body: { error: { code: "not_found", description: API_MESSAGES.notFound } } };

beforeAll(async () => ({ database, portal, modules } = await startApiPortal()));
afterAll(() => stopApiPortal({ database, portal }));

async function newCustomer(name: string) {
  const customer = { email: `${name}@example.it`, password: PASSWORD };
  const registered = await portal.services.accounts.register({ ...customer, firstname: name, lastname: "Risposte" });
  if (!registered.ok) throw new Error("setup");
  const tokens = await signInApp(portal.origin, customer);
  return { id: registered.user.id, call: apiClient(modules, tokens.access_token) };
}

/** What a client can tell of an answer: its status and its body. */
const seen = ({ status, body }: ApiAnswer) => ({ status, body });

describe("the reader's calls", () => {
  it("answer a product never had exactly as one that is not read here, and an ended access as the caller's own", async () => {
    const { id, call } = await newCustomer("lettrice");
    const [owned, expired, foreign] = await productsOfTypes(database.db, ["ebook"], 3);
    const course = await productOfType(database.db, "corso");
    const now = portal.services.clock();
    await database.db.insert(entitlements).values([
      { userId: id, productId: owned!.id, source: "activation_code", startsAt: now, expiresAt: null },
      {
        userId: id,
        productId: expired!.id,
        source: "activation_code",
        startsAt: new Date(now.getTime() - 200 * DAY),
        expiresAt: new Date(now.getTime() - DAY),
      },
      // Granted for a product it does not read here (a course): still nothing to say.
      { userId: id, productId: course.id, source: "activation_code", startsAt: now, expiresAt: null },
    ]);
    for (const name of ["status", "read"]) {
      const answers = await Promise.all(
        [foreign!.id, course.id, crypto.randomUUID()].map(async (product) =>
          seen(await call("reader", "userproductsession", name, { body: [product] })),
        ),
      );
      for (const answer of answers) expect(answer, name).toEqual(notFound);
    }
    // The caller's own products: read, and an ended access said to be ended.
    expect(await call("reader", "userproductsession", "status", { body: [owned!.id] })).toMatchObject({
      status: 200,
      body: { result: { ebook_is_expired: false } },
    });
    expect(await call("reader", "userproductsession", "status", { body: [expired!.id] })).toMatchObject({
      status: 200,
      body: { result: { ebook_is_expired: true } },
    });
    expect(await call("reader", "userproductsession", "read", { body: [expired!.id] })).toMatchObject({
      status: 403,
      body: { error: { description: READER_MESSAGES.accessExpired } },
    });
  });

  it("take one id, and refuse a list of several rather than answer only its first", async () => {
    const { id, call } = await newCustomer("unsolo");
    const [first, second] = await productsOfTypes(database.db, ["ebook"], 2);
    const now = portal.services.clock();
    await database.db
      .insert(entitlements)
      .values([first!, second!].map((p) => ({ userId: id, productId: p.id, source: "activation_code" as const, startsAt: now })));
    for (const name of ["status", "read"]) {
      for (const body of [[first!.id, second!.id], []]) {
        expect(await call("reader", "userproductsession", name, { body }), `${name} ${body.length}`).toMatchObject({
          status: 400,
          body: { error: { code: "invalid_request", description: API_MESSAGES.oneId } },
        });
      }
      expect((await call("reader", "userproductsession", name, { body: [second!.id] })).status).toBe(200);
    }
  });
});

describe("the three box calls", () => {
  const boxes = [
    ["boxdiscover", "getdiscover"],
    ["boxpromoarea", "getbox"],
    ["boxcontactarea", "getbox"],
  ] as const;

  it("answer an area code no box uses alike: 404, not_found, 'Risorsa non trovata'", async () => {
    const call = apiClient(modules);
    for (const [model, name] of boxes) {
      expect(seen(await call("ecommerce", model, name, { params: { areacode: "area_che_non_esiste" } })), model).toEqual(
        notFound,
      );
    }
  });

  it("answer a known area with what it holds, an empty list when it has none of their kind", async () => {
    const call = apiClient(modules);
    // dashboard_contatti has contact boxes only.
    const contacts = await call("ecommerce", "boxcontactarea", "getbox", { params: { areacode: "dashboard_contatti" } });
    expect(contacts.status).toBe(200);
    expect(contacts.body!.result).not.toHaveLength(0);
    expect(seen(await call("ecommerce", "boxdiscover", "getdiscover", { params: { areacode: "dashboard_contatti" } }))).toEqual({
      status: 200,
      body: { result: [] },
    });
    expect(seen(await call("ecommerce", "boxpromoarea", "getbox", { params: { areacode: "dashboard_contatti" } }))).toEqual(
      notFound,
    );
  });
});

describe("the order lists", () => {
  it("page with limit and offset, in a stable order even for orders paid at one time, and tell the total", async () => {
    const { id, call } = await newCustomer("pagine");
    const ebook = await productOfType(database.db, "ebook");
    const at = portal.services.clock();
    // Five paid orders at the very same time, one open order: ties are broken by the unique codes.
    for (let i = 0; i < 5; i++) await insertOrder(database.db, { userId: id, at, lines: [{ productId: ebook.id }] });
    await insertOrder(database.db, { userId: id, at, status: "new", lines: [{ productId: ebook.id }] });

    for (const [name, total] of [
      ["myorders", 6],
      ["myactiveorders", 5],
      ["mypayments", 5],
    ] as const) {
      const pageOf = async (offset: number) => {
        const answer = await call("order", "order", name, { params: { limit: 2, offset } });
        expect(answer.status, name).toBe(200);
        expect(answer.response.headers.get("x-total-count"), `${name} offset ${offset}`).toBe(String(total));
        return (answer.body!.result as { uuid: string }[]).map((row) => row.uuid);
      };
      const all = (await call("order", "order", name, { params: { limit: 100 } })).body!.result as { uuid: string }[];
      expect(all, name).toHaveLength(total);
      const paged: string[] = [];
      for (let offset = 0; offset < total; offset += 2) paged.push(...(await pageOf(offset)));
      // Every row once, in the order of the whole list.
      expect(paged, name).toEqual(all.map((row) => row.uuid));
      // Past the end: an empty page, and still the total.
      expect(await pageOf(total + 10), name).toEqual([]);
      expect((await call("order", "order", name, { params: { offset: -1 } })).status, name).toBe(400);
    }
  });

  it("document X-Total-Count and offset (api-headers.test.ts: CORS exposes the header)", async () => {
    const doc = (await (await portal.fetch("/api/openapi.json")).json()) as {
      paths: Record<
        string,
        { get: { parameters: { name: string; description?: string }[]; responses: { 200: { headers?: object } } } }
      >;
    };
    for (const name of ["myorders", "myactiveorders", "mypayments"]) {
      const op = doc.paths[`/api/v1/order/order/${name}/`]!.get;
      expect(op.parameters.map((p) => p.name).sort(), name).toEqual(["limit", "offset"]);
      expect(
        op.parameters.every((p) => p.description),
        name,
      ).toBe(true);
      expect(op.responses[200].headers, name).toHaveProperty("X-Total-Count");
    }
  });
});
