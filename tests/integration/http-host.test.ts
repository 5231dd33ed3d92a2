// The Express host (server/http/app.ts) over HTTP, with the real app build: what it does for
// every route before and around React Router and the identity provider.
import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq, isNotNull } from "drizzle-orm";
import { products, users } from "#server/db/schema/index.ts";
import { MAX_BODY_BYTES } from "#server/http/body-limit.ts";
import { basicAuthorization } from "#server/identity/client-credentials.ts";
import { RATE_LIMIT_POLICIES } from "#server/security/rate-limits.ts";
import { signedInCustomer } from "#tests/support/customers.ts";
import { createTestDatabase, type TestDatabase } from "#tests/support/database.ts";
import { levelOf, startPortal, type Portal } from "#tests/support/http-app.ts";
import { newLifecycle } from "#server/http/shutdown.ts";

let database: TestDatabase;
let portal: Portal;
const lifecycle = newLifecycle();

beforeAll(async () => {
  database = await createTestDatabase();
  // Behind one proxy (the test itself), so each test can be a client of its own (X-Forwarded-For).
  portal = await startPortal(database, { TRUST_PROXY: "1" }, { lifecycle });
});
afterAll(async () => {
  await portal.close();
  await database.destroy();
});

/**
 * A POST sent with node:http, so the test controls the framing: `declaredLength` announces a
 * body (of which only `chunks` are sent), otherwise the chunks go chunked. Resolves with the
 * status, or "closed" when the server cut the connection without an answer.
 */
function rawPost(path: string, chunks: Buffer[], declaredLength?: number): Promise<number | "closed"> {
  return new Promise((resolve) => {
    const req = httpRequest(new URL(path, portal.origin), {
      method: "POST",
      headers: {
        origin: portal.origin,
        "content-type": "application/x-www-form-urlencoded",
        ...(declaredLength === undefined ? {} : { "content-length": String(declaredLength) }),
      },
    });
    req.on("response", (response) => {
      response.resume();
      resolve(response.statusCode!);
    });
    req.on("error", () => resolve("closed"));
    const write = (index: number) => {
      if (index === chunks.length) return declaredLength === undefined ? req.end() : undefined;
      req.write(chunks[index], () => setImmediate(() => write(index + 1)));
    };
    write(0);
  });
}

const formOf = (bytes: number) => Buffer.from(`firstname=${"a".repeat(bytes - "firstname=".length)}`);

describe("request bodies", () => {
  it("refuses a declared body over the limit with 413 before reading it, on portal and provider routes", async () => {
    for (const path of ["/register/", "/oidc/token", "/login/", "/qualsiasi"]) {
      // 100 MB announced, 1 KB sent: the answer comes without the rest.
      expect(await rawPost(path, [formOf(1024)], 100 * 1024 * 1024)).toBe(413);
      expect(await rawPost(path, [formOf(MAX_BODY_BYTES + 1)], MAX_BODY_BYTES + 1)).toBe(413);
    }
  });

  it("refuses a chunked body once it passes the limit", async () => {
    const chunk = Buffer.alloc(64 * 1024, "a");
    const before = portal.lines.length;
    const accounts = (await database.db.select().from(users)).length;
    const status = await rawPost("/register/", [formOf(16), ...Array<Buffer>(64).fill(chunk)]);
    // The answer is 413, unless the connection was cut while the client was still sending.
    expect([413, "closed"]).toContain(status);
    const logged = portal.lines.slice(before);
    expect(logged.some((line) => line.msg === "request body too large")).toBe(true);
    expect(logged.filter((line) => line.level >= levelOf("error"))).toEqual([]);
    expect(await database.db.select().from(users)).toHaveLength(accounts);
    // The provider stops reading a chunked body itself, past 56 KB (invalid_request).
    expect(await rawPost("/oidc/token", [formOf(16), ...Array<Buffer>(64).fill(chunk)])).toBe(400);
  });

  it("passes bodies within the limit on intact, chunked or not", async () => {
    /** A form posted chunked (no Content-Length), in 8 KB pieces. */
    const postChunked = (path: string, form: URLSearchParams, headers: Record<string, string> = {}) => {
      const bytes = new TextEncoder().encode(form.toString());
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          for (let at = 0; at < bytes.length; at += 8192) controller.enqueue(bytes.slice(at, at + 8192));
          controller.close();
        },
      });
      const init = {
        method: "POST",
        body,
        duplex: "half",
        headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
      };
      return portal.fetch(path, init as RequestInit);
    };
    const padding = (bytes: number) => "x".repeat(bytes);

    // 200 KB, of which the registration reads every field.
    const email = "chunked@example.it";
    const form = new URLSearchParams({
      firstname: "Lia",
      lastname: "Neri",
      email,
      password: "Segreta1!",
      terms: "on",
      nota: padding(200 * 1024),
    });
    expect((await postChunked("/register/", form, { origin: portal.origin })).status).toBe(302);
    expect(await database.db.select().from(users).where(eq(users.email, email))).toHaveLength(1);

    // 40 KB to the provider (which reads up to 56 KB itself): it reads the grant and refuses it.
    const authorization = basicAuthorization(portal.config.oidc.clientId, portal.config.secrets.oidcClient);
    const grant = new URLSearchParams({ grant_type: "refresh_token", refresh_token: "inventato", pad: padding(40 * 1024) });
    const token = await postChunked("/oidc/token", grant, { authorization });
    expect(token.status).toBe(400);
    expect(await token.json()).toMatchObject({ error: "invalid_grant" });
  });
});

describe("the provider's token endpoint", () => {
  const tokenRequest = (ip: string, authorization?: string) =>
    portal.fetch("/oidc/token", {
      method: "POST",
      headers: {
        "x-forwarded-for": ip,
        "content-type": "application/x-www-form-urlencoded",
        ...(authorization ? { authorization } : {}),
      },
      body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: "indovinato" }),
    });

  it("is rate limited per client address, except for the portal's own requests", async () => {
    const { points } = RATE_LIMIT_POLICIES.oidcTokenIp;
    const portalAuth = basicAuthorization(portal.config.oidc.clientId, portal.config.secrets.oidcClient);
    for (let i = 0; i < points; i++) expect((await tokenRequest("198.51.100.20")).status).not.toBe(429);
    const refused = await tokenRequest("198.51.100.20");
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await refused.json()).toMatchObject({ error: "invalid_request" });
    // A wrong secret is just another client.
    expect((await tokenRequest("198.51.100.20", basicAuthorization(portal.config.oidc.clientId, "sbagliato"))).status).toBe(429);

    // The portal refreshes for every customer from its own address: never refused.
    expect((await tokenRequest("198.51.100.20", portalAuth)).status).toBe(400); // invalid_grant
    // Other addresses have their own count.
    expect((await tokenRequest("198.51.100.21")).status).not.toBe(429);
  });
});

describe("caching of personal pages", () => {
  it("sends no-store with every page of a signed-in customer", async () => {
    const { cookie } = await signedInCustomer(portal.services, database.db);
    // One rule for all of them (server/http/no-store.ts): no page sets its own.
    for (const path of [
      "/profile/",
      "/dashboard/",
      "/profile/preferences/",
      "/profile/change-password/",
      "/prodotti/attiva/",
      "/help-center/",
    ]) {
      const response = await portal.fetch(path, { headers: { cookie } });
      expect(response.status, path).toBe(200);
      expect(response.headers.get("cache-control"), path).toBe("no-store");
    }
  });

  it("sends no-store with every answer that sets a cookie, and leaves other public answers alone", async () => {
    const login = await portal.fetch("/login/");
    expect(login.headers.getSetCookie()).not.toEqual([]);
    expect(login.headers.get("cache-control")).toBe("no-store");
    expect((await portal.fetch("/help-center/")).headers.get("cache-control")).toBeNull();

    // A cover is the same for everyone: cacheable even when a signed-in browser asks.
    const { cookie } = await signedInCustomer(portal.services, database.db);
    const [product] = await database.db
      .select({ cover: products.cover })
      .from(products)
      .where(isNotNull(products.cover))
      .limit(1);
    const cover = await portal.fetch(`/media/copertine/${product!.cover}.svg`, { headers: { cookie } });
    expect(cover.status).toBe(200);
    expect(cover.headers.get("cache-control")).toMatch(/^public/);
  });
});

describe("refused cross-site posts", () => {
  const post = (headers: Record<string, string>, path = "/profile/preferences/") =>
    portal.fetch(path, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
      body: "newsletter=on",
    });

  it.each([
    ["by the host (another site's Origin)", { origin: "https://evil.example" }, 403],
    // The portal's own Origin, but the request names another host: React Router refuses the action.
    ["by React Router (another host)", { origin: "", "x-forwarded-host": "evil.example" }, 400],
    [
      "by React Router (another host, data request)",
      { origin: "", "x-forwarded-host": "evil.example", path: "/profile/preferences/_.data" },
      400,
    ],
    ["by the host (Origin: null)", { origin: "null" }, 403],
  ])("are logged %s as the client's fault: warn, no stack, with the request id", async (_by, given, status) => {
    const { path, ...headers } = given as Record<string, string>;
    const response = await post({ ...headers, origin: headers.origin || portal.origin }, path);
    expect(response.status).toBe(status);
    const lines = await portal.linesOf(response);
    expect(lines.length).toBeGreaterThan(0); // every line carries the request id
    expect(lines.filter((line) => line.level >= levelOf("error"))).toEqual([]);
    expect(lines.some((line) => line.level === levelOf("warn"))).toBe(true);
    expect(JSON.stringify(lines)).not.toMatch(/"stack"/);
  });
});

describe("the request log", () => {
  const linesOf = async (response: Response) => JSON.stringify(await portal.linesOf(response));

  it.each([
    "/oidc/auth?client_id=portal-frontend&response_type=code&state=SEGRETO&login_hint=maria.rossi%40example.it",
    "/oidc/session/end?id_token_hint=SEGRETO&client_id=portal-frontend",
    "/oauthcb?code=SEGRETO&state=SEGRETO&iss=x",
    "/accedi/abc?SEGRETO=1",
  ])("keeps no query string of the identity route %s", async (path) => {
    const response = await portal.fetch(path, { headers: { referer: `${portal.origin}/oauthcb?code=SEGRETO` } });
    const logged = await linesOf(response);
    expect(logged).toContain(`"url":"${path.split("?")[0]}?[redacted]"`);
    expect(logged).not.toContain("SEGRETO");
    expect(logged).not.toContain("maria.rossi");
  });

  it("keeps no query string of the redirects to identity routes", async () => {
    const response = await portal.fetch("/login/?redirect=/profile/");
    const state = new URL(response.headers.get("location")!).searchParams.get("state")!;
    const logged = await linesOf(response);
    expect(logged).toContain("/oidc/auth?[redacted]");
    expect(logged).not.toContain(state);
    expect(logged).toContain('"url":"/login/?redirect=/profile/"'); // other routes keep theirs
  });
});

describe("a stopping instance", () => {
  /** `method` `path` on a connection of its own: the status, the Connection header, the body. */
  const ask = (method: string, path: string) =>
    new Promise<{ status: number; connection: string | undefined; body: string }>((resolve, reject) => {
      const req = httpRequest(new URL(path, portal.origin), { method, agent: false }, (res) => {
        let body = "";
        res.on("data", (chunk: Buffer) => (body += chunk.toString()));
        res.on("end", () => resolve({ status: res.statusCode!, connection: res.headers.connection, body }));
      });
      req.on("error", reject);
      req.end();
    });

  it("is unready while it drains and still serves, closing each connection; then turns GETs away for another instance", async () => {
    expect((await ask("GET", "/readyz")).status).toBe(200);
    const page = await ask("GET", "/login/");
    const logged = portal.lines.length;
    lifecycle.stopping = true;
    try {
      expect(await ask("GET", "/readyz")).toMatchObject({ status: 503, connection: "close", body: '{"status":"stopping"}' });
      expect(await ask("GET", "/login/")).toMatchObject({ status: page.status, connection: "close" });
      expect(await ask("GET", "/healthz")).toMatchObject({ status: 200, connection: "close" });

      lifecycle.turningAway = true;
      const turnedAway = await ask("GET", "/login/");
      expect(turnedAway).toMatchObject({ status: 503, connection: "close" });
      expect(turnedAway.body).toBe("Il portale si sta riavviando: riprova tra qualche istante.");
      expect((await ask("HEAD", "/login/")).status).toBe(503);
      // A POST may not be sent again by the proxy: it is served (here refused as cross-site, as ever).
      expect((await ask("POST", "/login/")).status).not.toBe(503);
      expect((await ask("GET", "/healthz")).status).toBe(200);
      // What is turned away is the proxy's to send elsewhere, not an error of the portal's log.
      expect(portal.lines.slice(logged).filter((line) => line.level >= levelOf("error"))).toEqual([]);
    } finally {
      Object.assign(lifecycle, newLifecycle());
    }
  });
});
