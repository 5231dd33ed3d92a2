// The JSON API under abuse: tokens past their ten minutes or of a customer signed out everywhere
// are refused, and property-based fuzzing of every operation's body, path and query (random JSON,
// the operations' own field names holding the wrong things, NUL characters, huge strings,
// prototype keys) never gets a 5xx, always gets the API's answer shape, and writes nothing.
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { API_MESSAGES } from "../../server/api/errors.ts";
import { routeOf, type Operation } from "../../server/api/operation.ts";
import { API_OPERATIONS } from "../../server/api/operations/index.ts";
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
} from "../../server/db/schema.ts";
import { apiClient, loadManifests, signInApp, type AppTokens } from "../support/api-client.ts";
import { createTestDatabase, type TestDatabase } from "../support/database.ts";
import { levelOf, startPortal, type Portal } from "../support/http-app.ts";

let database: TestDatabase;
let portal: Portal;
let modules: Awaited<ReturnType<typeof loadManifests>>;
let customerId: string;
const customer = { email: "abuso.api@example.it", password: "Segreta1!" };

beforeAll(async () => {
  database = await createTestDatabase();
  portal = await startPortal(database);
  const registered = await portal.services.accounts.register({ ...customer, firstname: "Abuso", lastname: "Api" });
  if (!registered.ok) throw new Error("setup");
  customerId = registered.user.id;
  modules = await loadManifests(portal.origin);
});

afterAll(async () => {
  await portal?.close();
  await database?.destroy();
});

const MINUTE = 60_000;
const refused = { status: 401, body: { error: { description: API_MESSAGES.unauthorized } } };

describe("a token", () => {
  it("is good for ten minutes by the verifying clock, and refused after", async () => {
    const call = apiClient(modules, (await signInApp(portal.origin, customer)).access_token);
    const issuedAt = Date.now();
    // Only Date is faked: jose checks `exp` against it, the rest of the stack keeps real timers.
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      vi.setSystemTime(issuedAt + 9 * MINUTE);
      expect((await call("aaa", "session", "tokeninfo")).status).toBe(200);
      vi.setSystemTime(issuedAt + 11 * MINUTE);
      expect(await call("aaa", "session", "tokeninfo")).toMatchObject(refused);
    } finally {
      vi.useRealTimers();
    }
  });

  it("is refused once its customer is signed out everywhere (customer:signout-all, a password reset)", async () => {
    const [first, second] = [await signInApp(portal.origin, customer), await signInApp(portal.origin, customer)];
    for (const tokens of [first, second]) {
      expect((await apiClient(modules, tokens.access_token)("aaa", "session", "tokeninfo")).status).toBe(200);
    }
    await portal.services.endAllSessions(customerId);
    for (const tokens of [first, second]) {
      expect(await apiClient(modules, tokens.access_token)("aaa", "session", "tokeninfo")).toMatchObject(refused);
      const renewed = await fetch(new URL("/oidc/token", portal.origin), {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: tokens.refresh_token, client_id: "novalex-app" }),
      });
      expect(renewed.status).toBe(400);
    }
  });
});

/** The tables a call could write to: compared in full before and after the fuzzing. */
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

async function snapshot(): Promise<string> {
  const contents: Record<string, string[]> = {};
  for (const [name, table] of Object.entries(WATCHED_TABLES)) {
    contents[name] = (await database.db.select().from(table)).map((row) => JSON.stringify(row)).sort();
  }
  return JSON.stringify(contents);
}

/** The field names an operation's body or query reads: the fuzzer fills them with the wrong things. */
function fieldsOf(schema: z.ZodType | undefined): string[] {
  return schema instanceof z.ZodObject ? Object.keys(schema.shape) : [];
}

const hostile = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.string({ unit: "grapheme", maxLength: 30 }),
  fc.string({ maxLength: 10 }).map((s) => `${s}\u0000${s}`),
  fc.integer({ min: 10_000, max: 70_000 }).map((n) => "x".repeat(n)),
  fc.constantFrom(null, true, -1, 1e308, "", " ", "00000000-0000-4000-8000-000000000000", "__proto__", "<script>"),
);

/** Keys a body may hold: the operation's own, prototype keys, anything. */
const keyOf = (fields: string[]) =>
  fc.oneof(fc.constantFrom(...fields, "__proto__", "constructor", "prototype"), fc.string({ maxLength: 12 }));

/** Bodies that can never be a valid call: any JSON, or an object of the operation's fields holding junk. */
const hostileBody = (fields: string[]) =>
  fc.oneof(
    fc.jsonValue({ maxDepth: 4 }).map((value) => JSON.stringify(value)),
    fc.dictionary(keyOf(fields), hostile, { maxKeys: 8 }).map((value) => JSON.stringify(value)),
    fc.array(hostile, { maxLength: 5 }).map((value) => JSON.stringify(value)),
    fc.string({ maxLength: 40 }),
    fc.constantFrom("{", "[".repeat(3000), '{"a":1}{"b":2}', "\u0000", "1e999"),
  );

/** A path or query parameter: random text, NUL characters, dots, long, or a uuid of nothing. */
const pathValue = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.string({ maxLength: 10 }).map((s) => `${s}\u0000`),
  fc.constantFrom(".", "..", "%", "00000000-0000-4000-8000-000000000000", "card", "abbonamentoedu-non"),
  fc.integer({ min: 300, max: 3000 }).map((n) => "a".repeat(n)),
);

/**
 * Runs per operation. No fuzzed call can be a valid one that rightly writes: a write needs an id of
 * the caller's own (an order, their uuid) or a complete valid registration, which random input
 * does not produce, so "nothing written" holds for every operation without exceptions.
 */
const FUZZ_RUNS = 20;

function pathFor(op: Operation, values: string[]): string {
  let i = 0;
  return routeOf(op).replace(/:([a-z]+)/g, () => encodeURIComponent(values[i++ % values.length] ?? "x"));
}

describe("every operation, fuzzed", () => {
  let tokens: AppTokens;
  beforeAll(async () => {
    tokens = await signInApp(portal.origin, customer);
  });

  it.each(API_OPERATIONS.map((op) => ({ op, name: `${op.method} ${routeOf(op)}` })))(
    "$name answers hostile input without a 5xx, in the API's shape, and writes nothing",
    async ({ op }) => {
      const before = await snapshot();
      const fields = [...fieldsOf(op.body), ...fieldsOf(op.query)];
      // Within the HTTP server's header limit (16 KB): past it Node answers 431 before the portal runs.
      const query = fc.dictionary(keyOf(fields), pathValue, { maxKeys: 4 });
      await fc.assert(
        fc.asyncProperty(
          fc.array(pathValue, { minLength: 1, maxLength: 3 }),
          query,
          hostileBody(fields),
          async (values, params, body) => {
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
            expect(
              lines.filter((line) => line.level >= levelOf("error")).map((line) => line.msg),
              label,
            ).toEqual([]);
            if (op.redirect && response.status === 302) return;
            const answer = (await response.json()) as { result?: unknown; error?: { description?: unknown } };
            if (response.status >= 400) {
              expect(typeof answer.error?.description, label).toBe("string");
              expect(answer.error!.description, label).not.toBe("");
            } else {
              expect(Object.keys(answer), label).toEqual(["result"]);
            }
          },
        ),
        { numRuns: FUZZ_RUNS },
      );
      expect(await snapshot()).toBe(before);
    },
  );
});
