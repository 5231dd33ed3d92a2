// The JSON API under abuse: tokens past their ten minutes or of a customer signed out everywhere
// are refused by every operation that needs a customer; one customer's token gets nothing of
// another's (orders, lines, payments, hubs, coupons, books, account, password) and changes nothing;
// and property-based fuzzing of every operation's body, path and query (random JSON, the
// operations' own field names holding the wrong things, NUL characters, huge strings, prototype
// keys, the caller's own orders) never gets a 5xx or an error logged, always gets the API's answer
// shape, and writes nothing.
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { API_ERROR_CODES, API_MESSAGES } from "#server/api/errors.ts";
import { routeOf, type Operation } from "#server/api/operation.ts";
import { openApiPath } from "#server/api/openapi.ts";
import { API_OPERATIONS } from "#server/api/operations/index.ts";
import {
  activationRedemptions,
  auditLog,
  couponRedemptions,
  coupons,
  emailChangeRequests,
  entitlements,
  mailOutbox,
  orderItems,
  orders,
  passwordResetTokens,
  paymentAttempts,
  payments,
  readingSessions,
  userInterests,
  users,
} from "#server/db/schema/index.ts";
import type { Operator } from "#server/operators/context.ts";
import { signOutEverywhere } from "#server/operators/customers.ts";
import { MESSAGES } from "#shared/messages.ts";
import { apiClient, signInApp, type AppTokens } from "#tests/support/api-client.ts";
import { checkoutDetails } from "#tests/support/checkout.ts";
import { startApiPortal, stopApiPortal, type Manifests } from "#tests/support/api-portal.ts";
import type { TestDatabase } from "#tests/support/database.ts";
import { levelOf, type Portal } from "#tests/support/http-app.ts";

let database: TestDatabase;
let portal: Portal;
let modules: Manifests;

beforeAll(async () => ({ database, portal, modules } = await startApiPortal()));
afterAll(() => stopApiPortal({ database, portal }));

const MINUTE = 60_000;
const PASSWORD = "Segreta1!";
const EBOOK = "EB-9788828813217";
const UNKNOWN_ID = "00000000-0000-4000-8000-000000000000";
const refused = { status: 401, body: { error: { description: API_MESSAGES.unauthorized } } };
const notFound = { status: 404, body: { error: { description: API_MESSAGES.notFound } } };
const ZOD_ENGLISH = /invalid input|expected|too (big|small)|received|unrecognized/i;

/** A customer of its own for each test (none depends on what another did to its customer). */
async function newCustomer(name: string) {
  const customer = { email: `${name}@example.it`, password: PASSWORD };
  const registered = await portal.services.accounts.register({ ...customer, firstname: name, lastname: "Api" });
  if (!registered.ok) throw new Error("setup");
  return { ...customer, id: registered.user.id };
}

/** The customer's paid order of a product (the checkout and the sandbox's card, as the pages pay). */
async function paidOrder(userId: string, productCode: string): Promise<string> {
  const { checkout, payments, sandbox } = portal.services;
  const opened = await checkout.open(userId, productCode);
  if (!opened.ok) throw new Error(`setup: ${opened.reason}`);
  const started = await payments.start(userId, opened.orderId, checkoutDetails());
  if (!started.ok) throw new Error(`setup: ${started.reason}`);
  await sandbox!.confirmCard(started.setupId, "4242 4242 4242 4242");
  if ((await payments.settleSetup(started.setupId)).state !== "paid") throw new Error("setup: not paid");
  return opened.orderId;
}

/** What the checkout posts to 'check hub' with the customer's details: a complete, valid start. */
const hubDetails = (email: string) => ({
  customer_firstname: "Maria",
  customer_lastname: "Rossi",
  customer_email: email,
  terms_sales: true,
  terms_cancel: true,
  return_immediately: true,
});

const CUSTOMER_OPERATIONS = API_OPERATIONS.filter((op) => op.auth === "customer");

/** Every operation that needs a customer, called with this token on these path parameters: their answers. */
async function callEveryCustomerOperation(token: string, params: Record<string, string>) {
  const answers = [];
  for (const op of CUSTOMER_OPERATIONS) {
    const path = routeOf(op).replace(/:([a-z]+)/g, (_m, name: string) => encodeURIComponent(params[name] ?? "x"));
    const response = await portal.fetch(path, {
      method: op.method,
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      ...(op.method === "POST" ? { body: JSON.stringify(op.body instanceof z.ZodArray ? [params.order] : {}) } : {}),
    });
    answers.push({ op: `${op.method} ${path}`, status: response.status, body: await response.json() });
  }
  return answers;
}

describe("a token", () => {
  it("is good for ten minutes by the verifying clock, and refused after by every operation", async () => {
    const customer = await newCustomer("scaduto");
    const { access_token: token } = await signInApp(portal.origin, customer);
    const call = apiClient(modules, token);
    expect((await call("aaa", "session", "tokeninfo")).status).toBe(200);
    // Its own times, as the provider stamped them (seconds): ten minutes of life.
    const { iat, exp } = JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString()) as { iat: number; exp: number };
    expect(exp - iat).toBe(600);
    // Only Date is faked: jose checks `exp` against it, the rest of the stack keeps real timers.
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      vi.setSystemTime(exp * 1000 - MINUTE);
      expect((await call("aaa", "session", "tokeninfo")).status).toBe(200);
      vi.setSystemTime(exp * 1000 + MINUTE);
      const tokeninfo = await call("aaa", "session", "tokeninfo");
      expect(tokeninfo).toMatchObject(refused);
      // RFC 6750 §3.1: the client is told its token is no good, so it refreshes it.
      expect(tokeninfo.response.headers.get("www-authenticate")).toBe('Bearer realm="api", error="invalid_token"');
      const answers = await callEveryCustomerOperation(token, { order: UNKNOWN_ID, hub: "card", code: "x" });
      expect(answers).toHaveLength(CUSTOMER_OPERATIONS.length);
      for (const answer of answers) expect(answer, answer.op).toMatchObject({ ...refused, op: answer.op });
    } finally {
      vi.useRealTimers();
    }
    // Back on the real clock, the same token is good again: the clock, nothing else, refused it.
    expect((await call("aaa", "session", "tokeninfo")).status).toBe(200);
  });

  it("is refused by every operation once its customer is signed out everywhere (customer:signout-all)", async () => {
    const customer = await newCustomer("disconnesso");
    const [first, second] = [await signInApp(portal.origin, customer), await signInApp(portal.origin, customer)];
    const opened = await apiClient(modules, first.access_token)("order", "order", "order_create_with_product_code", {
      params: { productcode: "abbonamentoedu" },
    });
    const orderId = opened.body!.result as string;
    for (const tokens of [first, second]) {
      const call = apiClient(modules, tokens.access_token);
      expect((await call("aaa", "session", "tokeninfo")).status).toBe(200);
      expect(await call("order", "order", "load", { body: [orderId] })).toMatchObject({
        status: 200,
        body: { result: [{ uuid: orderId }] },
      });
    }

    // The operator's command, as `npm run admin -- customer:signout-all <email>` runs it.
    const operator: Operator = { db: database.db, services: portal.services, actor: "operator:test" };
    const ended = await signOutEverywhere(operator, customer.email);
    expect(ended.providerRecords).toBeGreaterThan(0);

    for (const tokens of [first, second]) {
      // Unexpired, correctly signed, on the customer's own order: refused all the same.
      const answers = await callEveryCustomerOperation(tokens.access_token, { order: orderId, hub: "card", code: "x" });
      for (const answer of answers) expect(answer, answer.op).toMatchObject({ ...refused, op: answer.op });
      const renewed = await fetch(new URL("/oidc/token", portal.origin), {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: tokens.refresh_token, client_id: "novalex-app" }),
      });
      expect(renewed.status).toBe(400);
    }
    // The account itself is fine: signing in again gives a token that works.
    const again = await signInApp(portal.origin, customer);
    expect((await apiClient(modules, again.access_token)("aaa", "session", "tokeninfo")).status).toBe(200);
  });
});

/** The tables a call could write to: compared in full before and after. */
const WATCHED_TABLES = {
  users,
  userInterests,
  emailChangeRequests,
  passwordResetTokens,
  mailOutbox,
  auditLog,
  orders,
  orderItems,
  payments,
  paymentAttempts,
  coupons,
  couponRedemptions,
  activationRedemptions,
  entitlements,
  readingSessions,
};

/** Every row of the watched tables, by table (a difference shows as the rows that changed). */
async function snapshot(): Promise<Record<string, string[]>> {
  const contents: Record<string, string[]> = {};
  for (const [name, table] of Object.entries(WATCHED_TABLES)) {
    contents[name] = (await database.db.select().from(table)).map((row) => JSON.stringify(row)).sort();
  }
  return contents;
}

describe("another customer's token", () => {
  it("gets nothing of a customer's orders, lines, payments, hubs, coupons, books and account, and changes nothing", async () => {
    const [owner, intruder] = [await newCustomer("proprietaria"), await newCustomer("intruso")];
    const ownerTokens = await signInApp(portal.origin, owner);
    const asOwner = apiClient(modules, ownerTokens.access_token);
    // The owner: a paid eBook (a payment, a line, the book to read) and an open EDU order with a coupon.
    const paidId = await paidOrder(owner.id, EBOOK);
    const [payment] = await portal.services.customerOrders.payments(owner.id);
    const [paid] = await portal.services.customerOrders.load(owner.id, [paidId]);
    const ebookId = paid!.items[0]!.productId;
    const openId = (
      await asOwner("order", "order", "order_create_with_product_code", { params: { productcode: "abbonamentoedu" } })
    ).body!.result as string;
    expect(await asOwner("order", "order", "order_addcoupon", { params: { order: openId, code: "BENVENUTO10" } })).toMatchObject({
      status: 200,
      body: { result: true },
    });
    expect((await asOwner("reader", "userproductsession", "read", { body: [ebookId] })).status).toBe(200);
    const ownerStatus = await asOwner("reader", "userproductsession", "status", { body: [ebookId] });
    expect(ownerStatus.body!.result).toMatchObject({ ebook_is_expired: false, startedreading: expect.any(Number) });

    const call = apiClient(modules, (await signInApp(portal.origin, intruder)).access_token);
    const before = await snapshot();
    const theirs = { order: openId, hub: "card" };
    // Reads: nothing, as if the ids did not exist (api.test.ts covers order load and the hubs list).
    expect((await call("order", "order", "load", { body: [openId, paidId] })).body).toEqual({ result: [] });
    expect((await call("order", "orderitem", "load", { body: [paid!.items[0]!.id] })).body).toEqual({ result: [] });
    expect((await call("order", "orderpayment", "load", { body: [payment!.id] })).body).toEqual({ result: [] });
    expect(await call("order", "order", "order_getpaymenthub", { params: theirs })).toMatchObject(notFound);
    // Whether the paid order is paid: not said either.
    expect(await call("order", "order", "order_checkpaymenthub", { params: { order: paidId, hub: "card" } })).toMatchObject(
      notFound,
    );
    // Writes on the owner's open order: the coupon neither added nor removed, no payment started.
    for (const name of ["order_addcoupon", "order_rmcoupon"]) {
      expect(await call("order", "order", name, { params: { order: openId, code: "BENVENUTO10" } })).toMatchObject(notFound);
    }
    expect(
      await call("order", "order", "order_checkpaymenthub", { params: theirs, body: hubDetails(intruder.email) }),
    ).toMatchObject(notFound);
    expect(await call("order", "order", "order_resetpaymenthub", { params: { order: openId } })).toMatchObject(notFound);
    // The owner's book: neither opened nor its status told, as if it did not exist (api-answers.test.ts
    // compares with products that do not).
    expect(await call("reader", "userproductsession", "read", { body: [ebookId] })).toMatchObject(notFound);
    expect(await call("reader", "userproductsession", "status", { body: [ebookId] })).toMatchObject(notFound);
    // The owner's account, by its uuid: not loaded, not saved, its password neither checked nor changed.
    expect((await call("aaa", "user", "load", { body: [owner.id] })).body).toEqual({ result: [] });
    expect(await call("aaa", "user", "save", { body: { uuid: owner.id, firstname: "Intruso" } })).toMatchObject(notFound);
    expect(await call("aaa", "user", "verifypassword", { body: { uuid: owner.id, password: PASSWORD } })).toMatchObject(notFound);
    expect(
      await call("aaa", "user", "changepassword", {
        body: { uuid: owner.id, currentpassword: PASSWORD, password: "Rubata1234!" },
      }),
    ).toMatchObject(notFound);

    expect(await snapshot()).toEqual(before);
    // The owner is still signed in (a password change would have ended that) with the same password.
    expect((await asOwner("aaa", "session", "tokeninfo")).status).toBe(200);
    expect((await asOwner("aaa", "user", "verifypassword", { body: { uuid: owner.id, password: PASSWORD } })).body).toEqual({
      result: true,
    });
  });
});

/** The field names an operation's body or query reads: the fuzzer fills them with the wrong things. */
function fieldsOf(schema: z.ZodType | undefined): string[] {
  return schema instanceof z.ZodObject ? Object.keys(schema.shape) : [];
}

const hostile = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.string({ unit: "grapheme", maxLength: 30 }),
  fc.string({ maxLength: 10 }).map((s) => `${s}\u0000${s}`),
  // A lone surrogate: JSON's "\ud800" carries it, UTF-8 (and so PostgreSQL) cannot.
  fc.string({ maxLength: 10 }).map((s) => `${s}\uD800${s}`),
  fc.integer({ min: 10_000, max: 70_000 }).map((n) => "x".repeat(n)),
  fc.constantFrom(null, true, -1, 1e308, "", " ", UNKNOWN_ID, "__proto__", "<script>"),
);

/** Keys a body may hold: the operation's own, prototype keys, anything. */
const keyOf = (fields: string[]) =>
  fc.oneof(fc.constantFrom(...fields, "__proto__", "constructor", "prototype"), fc.string({ maxLength: 12 }));

/** Bodies: any JSON, an object of the operation's fields holding junk, or no JSON at all. */
const hostileBody = (fields: string[]) =>
  fc.oneof(
    fc.jsonValue({ maxDepth: 4 }).map((value) => JSON.stringify(value)),
    fc.dictionary(keyOf(fields), hostile, { maxKeys: 8 }).map((value) => JSON.stringify(value)),
    fc.array(hostile, { maxLength: 5 }).map((value) => JSON.stringify(value)),
    fc.string({ maxLength: 40 }),
    fc.constantFrom("{", "[".repeat(3000), '{"a":1}{"b":2}', "\u0000", "1e999"),
  );

/** A path or query parameter: random text, NUL characters, dots, long, a uuid of nothing, or the caller's own orders. */
const pathValue = (own: string[]) =>
  fc.oneof(
    fc.string({ maxLength: 30 }),
    fc.string({ maxLength: 10 }).map((s) => `${s}\u0000`),
    fc.constantFrom(".", "..", "%", UNKNOWN_ID, "card", "abbonamentoedu-non"),
    fc.constantFrom(...own),
    fc.integer({ min: 300, max: 3000 }).map((n) => "a".repeat(n)),
  );

/**
 * Runs per operation (about 50 operations: well under a minute on PGlite). No fuzzed call
 * can be a valid one that rightly writes: a write needs a valid body for the caller's own account
 * (its uuid is never generated), a product code or a coupon that exists (never generated), a
 * complete checkout form, or a valid registration. The caller's own orders are among the path
 * values on purpose: on them a `{}` body to 'check hub' is the polling call (200, reads only),
 * 'remove coupon' finds none (false, writes nothing), 'reset' finds no payment to cancel. So
 * "nothing written" holds for every operation, with no exceptions.
 */
const FUZZ_RUNS = 20;

function pathFor(op: Operation, values: string[]): string {
  let i = 0;
  return routeOf(op).replace(/:([a-z]+)/g, () => encodeURIComponent(values[i++ % values.length] ?? "x"));
}

/** Whether the body would pass the operation's schema (only then does its handler run). */
function passesSchema(op: Operation, body: string): boolean {
  try {
    return op.body?.safeParse(JSON.parse(body)).success ?? false;
  } catch {
    return false;
  }
}

describe("every operation, fuzzed", () => {
  let tokens: AppTokens;
  let own: string[];
  let openapi: { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
  beforeAll(async () => {
    openapi = await (await portal.fetch("/api/openapi.json")).json();
    const customer = await newCustomer("fuzz");
    tokens = await signInApp(portal.origin, customer);
    // Its own orders: one paid, one open with no coupon and no payment started.
    const opened = await portal.services.checkout.open(customer.id, "abbonamentoedu");
    if (!opened.ok) throw new Error("setup");
    own = [await paidOrder(customer.id, EBOOK), opened.orderId];
  });

  it.each(API_OPERATIONS.map((op) => ({ op, name: `${op.method} ${routeOf(op)}` })))(
    "$name answers hostile input without a 5xx, in the API's shape, with a status its document lists, and writes nothing",
    async ({ op }) => {
      const before = await snapshot();
      // The statuses the published document lists for the operation: a client handles these and no other.
      const listed = Object.keys(openapi.paths[openApiPath(routeOf(op))]![op.method.toLowerCase()]!.responses);
      const fields = [...fieldsOf(op.body), ...fieldsOf(op.query)];
      // Within the HTTP server's header limit (16 KB): past it Node answers 431 before the portal runs.
      const query = fc.dictionary(keyOf(fields), pathValue(own), { maxKeys: 4 });
      await fc.assert(
        fc.asyncProperty(
          fc.array(pathValue(own), { minLength: 1, maxLength: 3 }),
          query,
          hostileBody(fields),
          async (values, params, body) => {
            // The one public call that writes on a schema-valid body (it would also need a real
            // client_id, which is never generated): kept out for certain.
            fc.pre(!(op.name === "register" && passesSchema(op, body)));
            const search = new URLSearchParams(params).toString();
            const path = `${pathFor(op, values)}${search ? `?${search}` : ""}`;
            const response = await portal.fetch(path, {
              method: op.method,
              headers: {
                "content-type": "application/json",
                ...(op.auth === "customer" ? { authorization: `Bearer ${tokens.access_token}` } : {}),
              },
              ...(op.method === "POST" ? { body } : {}),
            });
            const lines = await portal.linesOf(response.clone());
            const label = `${op.method} ${path.slice(0, 100)} ${body.slice(0, 60)}`;
            expect(response.status, label).toBeLessThan(500);
            expect(listed, label).toContain(String(response.status));
            expect(
              lines.filter((line) => line.level >= levelOf("error")).map((line) => line.msg),
              label,
            ).toEqual([]);
            if (op.redirect && response.status === 302) return;
            expect(response.status === 200 || response.status >= 400, `${label}: ${response.status}`).toBe(true);
            const answer = (await response.json()) as { result?: unknown; error?: { code?: unknown; description?: unknown } };
            if (response.status >= 400) {
              expect(Object.keys(answer), label).toEqual(["error"]);
              expect(API_ERROR_CODES, label).toContain(answer.error?.code);
              expect(typeof answer.error?.description, label).toBe("string");
              expect(answer.error!.description, label).not.toBe("");
              // zod's own English ("Invalid input: expected string…", "Too big: …") never reaches a client.
              expect(answer.error!.description, label).not.toMatch(ZOD_ENGLISH);
            } else {
              expect(Object.keys(answer), label).toEqual(["result"]);
            }
          },
        ),
        { numRuns: FUZZ_RUNS },
      );
      expect(await snapshot()).toEqual(before);
    },
  );
});

/** What no text column can hold, and what no field is meant to (§7 bodies are at most 64 KB). */
const UNSTORABLE = { NUL: "Maria\u0000Rossi", "lone surrogate": "Maria\uD800" } as const;
const OVER_LONG = "x".repeat(10_000);

describe("every string field of every operation", () => {
  let customer: Awaited<ReturnType<typeof newCustomer>>;
  let tokens: AppTokens;
  let openOrder: string;
  beforeAll(async () => {
    customer = await newCustomer("campi");
    tokens = await signInApp(portal.origin, customer);
    const opened = await portal.services.checkout.open(customer.id, "abbonamentoedu");
    if (!opened.ok) throw new Error("setup");
    openOrder = opened.orderId;
  });

  /**
   * A body each of these operations accepts (and would act on): one field spoiled, it must be
   * refused, so a NUL reaching PostgreSQL (a 500) or a lone surrogate stored as U+FFFD shows.
   */
  const validBodies = (): Record<string, Record<string, unknown>> => ({
    register: {
      username: "nuova@example.it",
      password: PASSWORD,
      firstname: "Nuova",
      lastname: "Cliente",
      client_id: portal.config.oidc.clientId,
    },
    save: { uuid: customer.id, firstname: "Maria", lastname: "Rossi", mobile: "3331234567" },
    verifypassword: { uuid: customer.id, password: PASSWORD },
    changepassword: { uuid: customer.id, currentpassword: PASSWORD, password: "Cambiata1234!" },
    order_checkpaymenthub: hubDetails(customer.email),
  });

  const pathOf = (op: Operation) =>
    routeOf(op).replace(/:([a-z]+)/g, (_m, name: string) => ({ order: openOrder, hub: "card" })[name] ?? "x");

  it.each(API_OPERATIONS.filter((op) => op.body || op.query).map((op) => ({ op, name: `${op.method} ${routeOf(op)}` })))(
    "$name refuses NUL and lone surrogates with the field's 400, over-long values without a 5xx, and writes nothing",
    async ({ op }) => {
      const before = await snapshot();
      const base = validBodies()[op.name] ?? {};
      const call = (path: string, body?: unknown) =>
        portal.fetch(path, {
          method: op.method,
          headers: {
            "content-type": "application/json",
            ...(op.auth === "customer" ? { authorization: `Bearer ${tokens.access_token}` } : {}),
          },
          ...(op.method === "POST" ? { body: JSON.stringify(body ?? {}) } : {}),
        });
      // The base's flags (terms_sales: true) are not string fields.
      const bodyFields = (op.body instanceof z.ZodArray ? [] : [...new Set([...fieldsOf(op.body), ...Object.keys(base)])]).filter(
        (field) => typeof (base[field] ?? "") === "string",
      );
      for (const field of bodyFields) {
        for (const [kind, value] of Object.entries(UNSTORABLE)) {
          const response = await call(pathOf(op), { ...base, [field]: value });
          expect({ field, kind, status: response.status, body: await response.json() }).toEqual({
            field,
            kind,
            status: 400,
            body: { error: { code: "invalid_field", field, description: MESSAGES.fieldCharactersNamed(field) } },
          });
        }
        const response = await call(pathOf(op), { ...base, [field]: OVER_LONG });
        expect(response.status, `${field} over-long`).toBeLessThan(500);
        expect(response.status, `${field} over-long`).not.toBe(200);
      }
      // A list of ids: an item that cannot be stored is refused as well.
      if (op.body instanceof z.ZodArray) {
        for (const value of [...Object.values(UNSTORABLE), OVER_LONG]) {
          const response = await call(pathOf(op), [value]);
          expect(response.status, JSON.stringify(value.slice(0, 12))).toBeLessThan(500);
          expect(response.status).not.toBe(200);
        }
      }
      // A query travels in the address: a NUL is %00 there, and a lone surrogate cannot be written.
      for (const field of fieldsOf(op.query)) {
        for (const value of [UNSTORABLE.NUL, OVER_LONG]) {
          const response = await call(`${pathOf(op)}?${new URLSearchParams({ [field]: value })}`);
          expect(response.status, `${field}=${value.slice(0, 12)}`).toBeLessThan(500);
        }
      }
      expect(await snapshot()).toEqual(before);
    },
  );
});
