// Property-based fuzzing of every form route through the whole HTTP stack (Express host, React
// Router, the portal's routes from the Vite dev build, the services over a test database): random
// fields, unicode, NUL characters, large values, duplicated fields, files and other content
// types, signed in and signed out. No answer may be a 5xx, and nothing may be written.
import { request } from "node:http";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  activationRedemptions,
  emailChangeRequests,
  entitlements,
  mailOutbox,
  orders,
  passwordResetTokens,
  readingSessions,
  paymentAttempts,
  payments,
  coupons,
  couponRedemptions,
  savedCheckoutDetails,
  sandboxGatewayObjects,
  sessions,
  subscriptionCardUpdates,
  subscriptionPeriods,
  subscriptions,
  jobs,
  userInterests,
  users,
} from "#server/db/schema/index.ts";
import { MESSAGES } from "#shared/messages.ts";
import { signedInCustomer } from "#tests/support/customers.ts";
import { createTestDatabase, type TestDatabase } from "#tests/support/database.ts";
import { levelOf, startPortal, type Portal } from "#tests/support/http-app.ts";

type FormRoute = {
  path: string;
  /** Field names the route reads: the fuzzer mixes them with random ones. */
  fields: string[];
  signedIn: boolean;
  /**
   * Any well-formed post is a valid submission (a form with no fields, or only checkboxes):
   * only malformed bodies are sent, since a well-formed one rightly changes something.
   */
  acceptsAnyForm?: boolean;
  /** The address of a thing of the signed-in customer's own (an order), made before the fuzzing. */
  pathFor?: (portal: Portal, userId: string) => Promise<string>;
};

/** The customer's own open order for EDU: the checkout's forms must refuse garbage on it too. */
async function ownCheckout(portal: Portal, userId: string): Promise<string> {
  const opened = await portal.services.checkout.open(userId, "abbonamentoedu");
  if (!opened.ok) throw new Error(`setup: ${opened.reason}`);
  return `/checkout/${opened.orderId}/`;
}

const UNKNOWN_ID = "00000000-0000-4000-8000-000000000000";
const FORM_ROUTES: FormRoute[] = [
  { path: "/register/", fields: ["firstname", "lastname", "email", "password", "terms", "website"], signedIn: false },
  { path: "/forgot-password/", fields: ["email"], signedIn: false },
  { path: "/forgot-password/reset/not-a-real-token/", fields: ["password", "confirmation"], signedIn: false },
  { path: "/mandatory-password/reset/not-a-real-token/", fields: ["password", "confirmation"], signedIn: false },
  { path: "/accedi/not-a-real-interaction/", fields: ["email", "password"], signedIn: false },
  { path: "/logout/", fields: ["redirect"], signedIn: false, acceptsAnyForm: true },
  { path: "/profile/confirm-email/not-a-real-token/", fields: [], signedIn: false, acceptsAnyForm: true },
  {
    path: "/profilo/primoaccesso/",
    fields: ["profession", "university", "degreeCourse", "subject", "interests", "mobile", "acceptTerms"],
    signedIn: true,
  },
  {
    path: "/profile/",
    fields: [
      "firstname",
      "lastname",
      "email",
      "currentPassword",
      "mobile",
      "profession",
      "university",
      "degreeCourse",
      "subject",
      "interests",
    ],
    signedIn: true,
  },
  { path: "/profile/preferences/", fields: ["acceptMarketing", "acceptCustomize"], signedIn: true, acceptsAnyForm: true },
  { path: "/profile/change-password/", fields: ["currentPassword", "password", "confirmation"], signedIn: true },
  { path: "/profile/delete-user/", fields: [], signedIn: true, acceptsAnyForm: true },
  { path: "/prodotti/attiva/", fields: ["code", "intent"], signedIn: true },
  { path: `/leggi/${UNKNOWN_ID}/`, fields: ["position"], signedIn: true },
  { path: `/leggi/${UNKNOWN_ID}/apri/`, fields: [], signedIn: true },
  { path: "/create-checkout/NON-IN-VENDITA/", fields: [], signedIn: true, acceptsAnyForm: true },
  {
    path: "/checkout/:own-order/",
    fields: [
      "intent",
      "couponcode",
      "customer_firstname",
      "customer_email",
      "shipment_address",
      "hasbilling",
      "billing_iscompany",
      "billing_vat",
      "billing_ssn",
      "terms_sales",
      "terms_cancel",
      "paymenthub",
      "cc_number",
      "cc_exp",
    ],
    signedIn: true,
    pathFor: ownCheckout,
  },
  { path: `/checkout/${UNKNOWN_ID}/`, fields: ["intent"], signedIn: true, acceptsAnyForm: true },
  { path: "/pagamenti/prova/3ds/sbx_seti_sconosciuto/", fields: ["decision"], signedIn: true, acceptsAnyForm: true },
  { path: "/pagamenti/prova/3ds-addebito/sbx_ch_sconosciuto/", fields: ["decision"], signedIn: true, acceptsAnyForm: true },
  { path: "/my-products/abbonamento/", fields: ["intent"], signedIn: true },
  { path: "/my-products/abbonamento/carta/", fields: ["cc_name", "cc_number", "cc_exp", "cc_csc", "card_step"], signedIn: true },
];

/**
 * The tables a form could write to; compared in full before and after the fuzzing. (Sessions are
 * counted, not compared: a visit rightly refreshes its session's last-seen time.)
 */
const WATCHED_TABLES = {
  users,
  emailChangeRequests,
  userInterests,
  passwordResetTokens,
  mailOutbox,
  orders,
  entitlements,
  activationRedemptions,
  readingSessions,
  paymentAttempts,
  payments,
  coupons,
  couponRedemptions,
  savedCheckoutDetails,
  sandboxGatewayObjects,
  subscriptions,
  subscriptionPeriods,
  subscriptionCardUpdates,
  jobs,
};

let database: TestDatabase;
let portal: Portal;

beforeAll(async () => {
  database = await createTestDatabase();
  portal = await startPortal(database);
});

afterAll(async () => {
  await portal?.close();
  await database?.destroy();
});

async function snapshot(): Promise<string> {
  const contents: Record<string, unknown> = {};
  for (const [name, table] of Object.entries(WATCHED_TABLES)) {
    const rows = await database.db.select().from(table);
    contents[name] = rows.map((row) => JSON.stringify(row)).sort();
  }
  contents.sessions = (await database.db.select({ id: sessions.idHash }).from(sessions)).length;
  return JSON.stringify(contents);
}

type Body = { kind: string; headers: Record<string, string>; body: BodyInit };

const fieldName = (route: FormRoute) =>
  route.fields.length > 0
    ? fc.oneof(fc.constantFrom(...route.fields), fc.string({ maxLength: 12 }))
    : fc.string({ maxLength: 12 });
const fieldValue = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: "grapheme", maxLength: 40 }),
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.string({ maxLength: 10 }).map((s) => `${s}\u0000${s}`),
  // A lone surrogate: a form's UTF-8 cannot carry it (it arrives as U+FFFD), which is tried too.
  fc.string({ maxLength: 10 }).map((s) => `${s}\uD800${s}`),
  fc.constantFrom("", " ", "on", "true", "-1", "1e309", "<script>alert(1)</script>", "' or 1=1 --"),
  fc.integer({ min: 10_000, max: 300_000 }).map((n) => "x".repeat(n)),
);
const entries = (route: FormRoute) => fc.array(fc.tuple(fieldName(route), fieldValue), { maxLength: 8 });

/** Bodies that are not acceptable forms: other content types, unreadable, files, NUL in a field's name. */
const malformedBody = (route: FormRoute): fc.Arbitrary<Body> =>
  fc.oneof(
    entries(route).map((e) => ({
      kind: "json",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(Object.fromEntries(e)),
    })),
    fc.string().map((s) => ({ kind: "text", headers: { "content-type": "text/plain" }, body: s })),
    fc.uint8Array({ maxLength: 200 }).map((bytes) => ({ kind: "no content type", headers: {}, body: bytes })),
    fc.string().map((s) => ({
      kind: "broken multipart",
      headers: { "content-type": "multipart/form-data; boundary=fuzz" },
      body: `--fuzz\r\n${s}`,
    })),
    entries(route).map((e) => {
      const form = new FormData();
      for (const [name, value] of e) form.append(name, value);
      form.append(route.fields[0] ?? "file", new Blob(["%PDF-1.4"]), "documento.pdf");
      return { kind: "file", headers: {}, body: form };
    }),
    fc.tuple(entries(route), fc.string({ maxLength: 10 })).map(([e, s]) => {
      const params = new URLSearchParams(e);
      params.append(`${route.fields[0] ?? "x"}\u0000`, s);
      return { kind: "NUL", headers: { "content-type": "application/x-www-form-urlencoded" }, body: params.toString() };
    }),
  );

/** Well-formed posts of random fields: urlencoded or multipart, with duplicates and odd values. */
const randomForm = (route: FormRoute): fc.Arbitrary<Body> =>
  fc.tuple(entries(route), fc.boolean()).map(([e, multipart]): Body => {
    if (!multipart) {
      return {
        kind: "urlencoded",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams(e).toString(),
      };
    }
    const form = new FormData();
    for (const [name, value] of e) form.append(name, value);
    return { kind: "multipart", headers: {}, body: form };
  });

/**
 * One request on a connection of its own: a server may rightly close a connection after refusing
 * a body it did not read, and that must not fail the next, unrelated request.
 */
async function send(path: string, body: Body, cookie: string | undefined, singleFetch: boolean) {
  const encoded = new Response(body.body);
  const bytes = Buffer.from(await encoded.arrayBuffer());
  const { origin } = portal;
  const headers: Record<string, string> = { origin, "content-length": String(bytes.length), ...(cookie ? { cookie } : {}) };
  const type =
    body.headers["content-type"] ?? (body.body instanceof Uint8Array ? undefined : encoded.headers.get("content-type"));
  if (type) headers["content-type"] = type;
  const url = new URL(singleFetch ? `${path.replace(/\/$/, "")}.data` : path, origin);
  return new Promise<{ status: number; requestId: string | undefined; text: string }>((resolve, reject) => {
    const req = request(url, { method: "POST", headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          requestId: res.headers["x-request-id"] as string | undefined,
          text: Buffer.concat(chunks).toString(),
        }),
      );
    });
    req.on("error", reject);
    req.end(bytes);
  });
}

describe("every form route, fuzzed", () => {
  it.each(FORM_ROUTES)("$path answers malformed and random posts without a 5xx and writes nothing", async (route) => {
    const customer = route.signedIn ? await signedInCustomer(portal.services, database.db, "student") : null;
    const path = route.pathFor && customer ? await route.pathFor(portal, customer.user.id) : route.path;
    const before = await snapshot();
    const bodies = route.acceptsAnyForm ? malformedBody(route) : fc.oneof(malformedBody(route), randomForm(route));
    await fc.assert(
      fc.asyncProperty(bodies, fc.boolean(), async (body, singleFetch) => {
        const { status } = await send(path, body, customer?.cookie, singleFetch);
        expect(status, `${body.kind} post`).toBeLessThan(500);
        if (body.kind !== "urlencoded" && body.kind !== "multipart") expect(status, body.kind).toBeGreaterThanOrEqual(400);
      }),
      { numRuns: 40 },
    );
    expect(await snapshot()).toBe(before);
  });

  it.each(FORM_ROUTES.filter((route) => !route.acceptsAnyForm))(
    "$path answers a NUL, a lone surrogate and an over-long value in each field without a 5xx and writes nothing",
    async (route) => {
      const customer = route.signedIn ? await signedInCustomer(portal.services, database.db, "student") : null;
      const path = route.pathFor && customer ? await route.pathFor(portal, customer.user.id) : route.path;
      const before = await snapshot();
      for (const field of route.fields) {
        for (const value of ["Maria\u0000Rossi", "Maria\uD800", "x".repeat(10_000)]) {
          for (const singleFetch of [false, true]) {
            const body: Body = {
              kind: "urlencoded",
              headers: { "content-type": "application/x-www-form-urlencoded" },
              body: new URLSearchParams({ [field]: value }).toString(),
            };
            const { status } = await send(path, body, customer?.cookie, singleFetch);
            expect(status, `${field}=${JSON.stringify(value.slice(0, 12))}`).toBeLessThan(500);
          }
        }
      }
      expect(await snapshot()).toBe(before);
    },
  );

  it("refuses a NUL beside its field, in a form otherwise valid, and writes nothing", async () => {
    const customer = await signedInCustomer(portal.services, database.db, "student");
    const checkout = await ownCheckout(portal, customer.user.id);
    const registration = { firstname: "Maria", lastname: "Rossi", email: "nul@example.it", password: "Segreta1!", terms: "on" };
    const profile = { firstname: "Maria", lastname: "Rossi", email: customer.user.email ?? "", mobile: "" };
    const cases = [
      ...["firstname", "lastname", "email"].map((field) => ({
        path: "/register/",
        form: registration,
        field,
        cookie: undefined,
      })),
      ...["firstname", "lastname"].map((field) => ({ path: "/profile/", form: profile, field, cookie: customer.cookie })),
      {
        path: checkout,
        form: { intent: "coupon-apply", couponcode: "BENVENUTO10" },
        field: "couponcode",
        cookie: customer.cookie,
      },
    ];
    const before = await snapshot();
    for (const { path, form, field, cookie } of cases) {
      const body: Body = {
        kind: "urlencoded",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ ...form, [field]: `${form[field as keyof typeof form]}\u0000` }).toString(),
      };
      const { status, text } = await send(path, body, cookie, false);
      expect({ path, field, status }).toEqual({ path, field, status: 400 });
      expect(text, `${path} ${field}`).toContain(MESSAGES.fieldCharacters);
    }
    expect(await snapshot()).toBe(before);
  });

  it("logs a refused post at warn, with the request id and without the body", async () => {
    const json = { kind: "json", headers: { "content-type": "application/json" }, body: '{"email":"x@example.it"}' };
    const response = await send("/register/", json, undefined, false);
    expect(response.status).toBe(415);
    const ofRequest = portal.lines.filter((line) => (line.req as { id?: string } | undefined)?.id === response.requestId);
    expect(ofRequest.find((line) => line.msg === "malformed form post refused")).toMatchObject({ level: levelOf("warn") });
    expect(JSON.stringify(portal.lines)).not.toContain("x@example.it");
  });
});

/**
 * Every address that carries an id or a code, in its path or its query: random values (unicode,
 * NUL characters, percent signs, very long ones) must answer without a 5xx and log no error.
 */
const ADDRESSES: { path: (value: string) => string; signedIn: boolean }[] = [
  { path: (v) => `/create-checkout/${v}/`, signedIn: true },
  { path: (v) => `/checkout/${v}/`, signedIn: true },
  { path: (v) => `/ricevuta/${v}/`, signedIn: true },
  { path: (v) => `/ricevuta/NX261122-7K3M9Q/${v}/`, signedIn: true },
  { path: (v) => `/leggi/${v}/`, signedIn: true },
  { path: (v) => `/pagamenti/prova/3ds/${v}/`, signedIn: true },
  { path: (v) => `/pagamenti/prova/3ds-addebito/${v}/`, signedIn: true },
  { path: (v) => `/checkout/${UNKNOWN_ID}/?setup_intent=${v}&redirect_status=succeeded`, signedIn: true },
  { path: (v) => `/my-products/abbonamento/carta/?setup_intent=${v}&redirect_status=succeeded`, signedIn: true },
  { path: (v) => `/my-products/abbonamento/carta/?session_id=${v}`, signedIn: true },
  { path: (v) => `/my-products/abbonamento/?payment_intent=${v}`, signedIn: true },
  { path: (v) => `/pagamenti/carta/ritorno/?session_id=${v}`, signedIn: true },
  { path: (v) => `/my-products/?page=${v}`, signedIn: true },
  { path: (v) => `/landingpage/${v}/`, signedIn: false },
  { path: (v) => `/media/copertine/${v}`, signedIn: false },
  { path: (v) => `/forgot-password/reset/${v}/`, signedIn: false },
  { path: (v) => `/mandatory-password/reset/${v}/`, signedIn: false },
  { path: (v) => `/profile/confirm-email/${v}/`, signedIn: false },
  { path: (v) => `/accedi/${v}/`, signedIn: false },
  { path: (v) => `/login/?redirect=${v}`, signedIn: false },
];

const addressValue = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.string({ unit: "grapheme", maxLength: 30 }),
  fc.string({ maxLength: 10 }).map((s) => `${s}\u0000${s}`),
  fc.constantFrom("", ".", "..", "%", "%00", "%zz", "sbx_seti_\u0000", "pi_x\u0000", UNKNOWN_ID, "-1", "1e309"),
  fc.integer({ min: 300, max: 5000 }).map((n) => "a".repeat(n)),
);

describe("every address with an id, fuzzed", () => {
  it.each(ADDRESSES.map((a) => ({ ...a, name: a.path("…") })))(
    "$name answers without a 5xx and logs no error",
    async (address) => {
      const customer = address.signedIn ? await signedInCustomer(portal.services, database.db, "student") : null;
      const before = await snapshot();
      await fc.assert(
        fc.asyncProperty(addressValue, fc.constantFrom("GET", "POST"), async (value, method) => {
          const path = address.path(encodeURIComponent(value));
          const response = await portal.fetch(path, {
            method,
            headers: { origin: portal.origin, ...(customer ? { cookie: customer.cookie } : {}) },
          });
          const lines = await portal.linesOf(response);
          expect(response.status, `${method} ${path.slice(0, 80)}`).toBeLessThan(500);
          expect(
            lines.filter((line) => line.level >= levelOf("error")).map((line) => line.msg),
            `${method} ${path.slice(0, 80)}`,
          ).toEqual([]);
        }),
        { numRuns: 25 },
      );
      expect(await snapshot()).toBe(before);
    },
  );

  it("answers a NUL in an id with 400, logged as a warning", async () => {
    const customer = await signedInCustomer(portal.services, database.db, "student");
    for (const path of [
      "/create-checkout/%00/",
      "/ricevuta/%00/",
      `/checkout/${UNKNOWN_ID}/?setup_intent=%00`,
      "/my-products/abbonamento/carta/?setup_intent=%00",
      "/my-products/abbonamento/?payment_intent=%00",
    ]) {
      const response = await portal.fetch(path, { headers: { cookie: customer.cookie } });
      const lines = await portal.linesOf(response);
      expect(response.status, path).toBe(400);
      expect(Math.max(...lines.map((line) => line.level)), path).toBe(levelOf("warn"));
    }
  });

  it("logs a POST to a page without an action (405) as a warning", async () => {
    const response = await portal.fetch("/help-center/", {
      method: "POST",
      headers: { origin: portal.origin, "content-type": "application/x-www-form-urlencoded" },
      body: "q=1",
    });
    const lines = await portal.linesOf(response);
    expect(response.status).toBe(405);
    expect(lines.some((line) => line.level >= levelOf("error"))).toBe(false);
    expect(lines.find((line) => line.msg === "request refused by the router")).toMatchObject({ level: levelOf("warn") });
  });
});
