// What a client of the JSON API reads besides the body: the bearer scheme in any case, the 401's
// challenge (RFC 6750), the 429's Retry-After, the headers a browser's script may read (CORS), and
// a JSON answer even for a body the host refuses before the API sees it; and the reference lists,
// the same for everyone, cacheable by anyone and revalidated by their ETag.
import { request as httpRequest, type IncomingHttpHeaders } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { API_MESSAGES } from "#server/api/errors.ts";
import { MAX_BODY_BYTES } from "#server/http/body-limit.ts";
import { signInApp, type AppTokens } from "#tests/support/api-client.ts";
import { createTestDatabase, type TestDatabase } from "#tests/support/database.ts";
import { startPortal, type Portal } from "#tests/support/http-app.ts";

const APP_ORIGIN = "https://app.example.it";
const TOKEN_INFO = "/api/v1/aaa/session/tokeninfo/";

let database: TestDatabase;
let portal: Portal;
let tokens: AppTokens;

beforeAll(async () => {
  database = await createTestDatabase();
  portal = await startPortal(database, { API_CORS_ORIGINS: APP_ORIGIN });
  const customer = { email: "intestazioni@example.it", password: "Segreta1!" };
  const registered = await portal.services.accounts.register({ ...customer, firstname: "Ida", lastname: "Testa" });
  if (!registered.ok) throw new Error("setup");
  tokens = await signInApp(portal.origin, customer);
});

afterAll(async () => {
  await portal?.close();
  await database?.destroy();
});

const tokenInfo = (authorization?: string) => portal.fetch(TOKEN_INFO, authorization ? { headers: { authorization } } : {});

describe("the bearer token", () => {
  it("is taken with the scheme in any case and extra spaces before the token", async () => {
    for (const scheme of ["Bearer", "bearer", "BEARER", "bEaReR"]) {
      expect((await tokenInfo(`${scheme} ${tokens.access_token}`)).status, scheme).toBe(200);
    }
    expect((await tokenInfo(`bearer   ${tokens.access_token}`)).status).toBe(200);
  });

  it("missing, is asked for with a bare challenge; bad, is called invalid so the client refreshes it", async () => {
    const bare = 'Bearer realm="api"';
    const invalid = 'Bearer realm="api", error="invalid_token"';
    const cases: [string | undefined, string][] = [
      [undefined, bare],
      // Credentials of another scheme are no bearer token at all.
      [`Basic ${Buffer.from("a:b").toString("base64")}`, bare],
      [`Bearer ${tokens.access_token.slice(0, -4)}AAAA`, invalid],
      [`bearer ${tokens.access_token.slice(0, -4)}AAAA`, invalid],
      ["Bearer", invalid],
      ["Bearer not a token", invalid],
    ];
    for (const [index, [authorization, challenge]] of cases.entries()) {
      const response = await tokenInfo(authorization);
      expect(response.status, `case ${index}`).toBe(401);
      expect(response.headers.get("www-authenticate"), `case ${index}`).toBe(challenge);
      expect(await response.json()).toEqual({ error: { code: "unauthorized", description: API_MESSAGES.unauthorized } });
    }
  });
});

describe("a rate-limited call", () => {
  it("says in Retry-After how many seconds to wait: what is left of the limit's hour", async () => {
    // Password reset requests: 3 an hour for one address (known or not), then 429.
    const request = () =>
      portal.fetch("/api/v1/aaa/passwordreset/request/", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ username: "nessuno.qui@example.it" }),
      });
    for (let i = 0; i < 3; i++) expect((await request()).status).toBe(404);
    const refused = await request();
    expect(refused.status).toBe(429);
    const wait = Number(refused.headers.get("retry-after"));
    expect(Number.isInteger(wait)).toBe(true);
    expect(wait).toBeGreaterThan(3000);
    expect(wait).toBeLessThanOrEqual(3600);
    expect(((await refused.json()) as { error: { description: string } }).error.description).toMatch(/\S/);
  });
});

/** A POST announcing `declaredLength` bytes of JSON and sending only 1 KB: the answer, read whole. */
function postAnnouncing(path: string, declaredLength: number) {
  return new Promise<{ status: number; headers: IncomingHttpHeaders; body: string }>((resolve, reject) => {
    const req = httpRequest(new URL(path, portal.origin), {
      method: "POST",
      headers: { "content-type": "application/json", "content-length": String(declaredLength) },
    });
    req.on("response", (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () =>
        resolve({ status: response.statusCode!, headers: response.headers, body: Buffer.concat(chunks).toString() }),
      );
    });
    req.on("error", reject);
    req.write(`"${"a".repeat(1022)}`);
  });
}

describe("a body over the host's limit", () => {
  it("is refused under /api with the API's JSON error, not the portal's page", async () => {
    for (const declared of [MAX_BODY_BYTES + 1, 100 * 1024 * 1024]) {
      const answer = await postAnnouncing("/api/v1/aaa/passwordreset/request/", declared);
      expect(answer.status).toBe(413);
      expect(answer.headers["content-type"]).toMatch(/^application\/json/);
      expect(JSON.parse(answer.body)).toEqual({ error: { code: "body_too_large", description: API_MESSAGES.tooLarge } });
    }
    // The portal's pages keep their error page.
    const page = await postAnnouncing("/register/", MAX_BODY_BYTES + 1);
    expect(page.status).toBe(413);
    expect(page.headers["content-type"]).toMatch(/^text\/html/);
  });
});

describe("CORS", () => {
  const exposed = ["WWW-Authenticate", "Retry-After", "ETag", "X-Request-Id", "X-Total-Count"];
  const exposedOf = (response: Response) =>
    (response.headers.get("access-control-expose-headers") ?? "").split(",").map((name) => name.trim().toLowerCase());

  it("lets an allowed origin's script read the challenge, the wait, the validator and the request id", async () => {
    const preflight = await portal.fetch(TOKEN_INFO, {
      method: "OPTIONS",
      headers: { origin: APP_ORIGIN, "access-control-request-method": "GET", "access-control-request-headers": "authorization" },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe(APP_ORIGIN);
    const refused = await portal.fetch(TOKEN_INFO, { headers: { origin: APP_ORIGIN } });
    expect(refused.status).toBe(401);
    const answered = await portal.fetch(TOKEN_INFO, {
      headers: { origin: APP_ORIGIN, authorization: `Bearer ${tokens.access_token}` },
    });
    expect(answered.status).toBe(200);
    expect(answered.headers.get("x-request-id")).toBeTruthy();
    for (const response of [preflight, refused, answered]) {
      expect(exposedOf(response)).toEqual(expect.arrayContaining(exposed.map((name) => name.toLowerCase())));
    }
    // Another origin is told nothing.
    const elsewhere = await portal.fetch(TOKEN_INFO, { headers: { origin: "https://altro.example.it" } });
    expect(elsewhere.headers.get("access-control-allow-origin")).toBeNull();
    expect(elsewhere.headers.get("access-control-expose-headers")).toBeNull();
  });
});

describe("the OpenAPI document", () => {
  it("describes the 401's challenge, the 429's wait and the 413 of a body", async () => {
    type Responses = Record<string, { headers?: Record<string, unknown> }>;
    const doc = (await (await portal.fetch("/api/openapi.json")).json()) as {
      paths: Record<string, Record<string, { responses: Responses }>>;
    };
    const tokenInfoResponses = doc.paths["/api/v1/aaa/session/tokeninfo/"]!.get!.responses;
    expect(Object.keys(tokenInfoResponses[401]!.headers!)).toEqual(["WWW-Authenticate"]);
    const resetResponses = doc.paths["/api/v1/aaa/passwordreset/request/"]!.post!.responses;
    expect(Object.keys(resetResponses[429]!.headers!)).toEqual(["Retry-After"]);
    expect(resetResponses[413]).toBeDefined();
  });
});

describe("caching", () => {
  it("lets anyone keep the reference lists and revalidate them by ETag; a customer's answer is never stored", async () => {
    for (const path of [
      "/api/v1/pim/universita/getall/",
      "/api/v1/pim/professione/getall/",
      "/api/v1/ecommerce/producttype/search/",
    ]) {
      const first = await portal.fetch(path);
      expect([first.status, first.headers.get("cache-control")], path).toEqual([200, "public, max-age=300"]);
      const etag = first.headers.get("etag");
      expect(etag, path).toBeTruthy();
      // As a browser revalidates (fetch would add `no-cache` to a bare conditional request).
      const again = await portal.fetch(path, { headers: { "if-none-match": etag!, "cache-control": "max-age=0" } });
      expect(again.status, path).toBe(304);
    }
    const mine = await tokenInfo(`Bearer ${tokens.access_token}`);
    expect(mine.headers.get("cache-control")).toBe("no-store");
  });
});
