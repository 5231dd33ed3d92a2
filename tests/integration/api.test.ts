// The JSON API from the outside: a client signs in with code + PKCE as the app does, walks the
// manifest, and calls every operation; the abuse of tokens and ids is refused.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { routeOf } from "../../server/api/operation.ts";
import { API_OPERATIONS } from "../../server/api/operations/index.ts";
import { openApiPath } from "../../server/api/openapi.ts";
import { apiClient, loadManifests, signInApp, type AppTokens } from "../support/api-client.ts";
import { createTestDatabase, type TestDatabase } from "../support/database.ts";
import { startPortal, type Portal } from "../support/http-app.ts";

let database: TestDatabase;
let portal: Portal;
let modules: Awaited<ReturnType<typeof loadManifests>>;
let tokens: AppTokens;
const customer = { email: "api.cliente@example.it", password: "Segreta1!" };

beforeAll(async () => {
  database = await createTestDatabase();
  portal = await startPortal(database);
  const registered = await portal.services.accounts.register({ ...customer, firstname: "Api", lastname: "Cliente" });
  if (!registered.ok) throw new Error("setup");
  modules = await loadManifests(portal.origin);
  tokens = await signInApp(portal.origin, customer);
});

afterAll(async () => {
  await portal?.close();
  await database?.destroy();
});

describe("the manifest and the OpenAPI document", () => {
  it("lists every operation under its module, with the root's relations leading to the others", () => {
    for (const op of API_OPERATIONS.filter((o) => o.module !== "direct")) {
      expect(modules[op.module]?.api[op.model]?.[op.name]).toEqual({ url: op.path, method: op.method });
      expect(modules[op.module]!.baseurl).toBe(`${portal.origin}/api/v1/${op.module}`);
    }
  });

  it("describes each route the server answers, and no other", async () => {
    const doc = (await (await portal.fetch("/api/openapi.json")).json()) as { openapi: string; paths: Record<string, object> };
    expect(doc.openapi).toBe("3.1.0");
    const documented = Object.entries(doc.paths).flatMap(([path, methods]) => Object.keys(methods).map((m) => `${m} ${path}`));
    const served = API_OPERATIONS.map((op) => `${op.method.toLowerCase()} ${openApiPath(routeOf(op))}`);
    expect(documented.sort()).toEqual(served.sort());
  });
});

describe("a signed-in customer", () => {
  it("gets a JWT for the API from the code + PKCE flow, and the provider offers the code flow only", async () => {
    expect(tokens.scope.split(" ")).toContain("api");
    expect(tokens.access_token.split(".")).toHaveLength(3);
    const discovery = (await (await portal.fetch("/oidc/.well-known/openid-configuration")).json()) as { response_types_supported: string[] };
    expect(discovery.response_types_supported).toEqual(["code"]);
  });

  it("reads its account and orders", async () => {
    const call = apiClient(modules, tokens.access_token);
    const info = await call("aaa", "session", "tokeninfo");
    expect(info.status).toBe(200);
    expect((info.body!.result as { user: { email: string } }).user.email).toBe(customer.email);
    const orders = await call("order", "order", "myorders", { params: { limit: 2 } });
    expect(orders).toMatchObject({ status: 200, body: { result: [] } });
  });

  it("is refused without a token, with a forged one, and after revoking its refresh token", async () => {
    const call = apiClient(modules);
    expect((await call("aaa", "session", "tokeninfo")).status).toBe(401);
    const forged = tokens.access_token.slice(0, -4) + "AAAA";
    expect((await call("aaa", "session", "tokeninfo", { token: forged })).status).toBe(401);

    const other = await signInApp(portal.origin, customer);
    expect((await call("aaa", "session", "tokeninfo", { token: other.access_token })).status).toBe(200);
    const revoked = await fetch(new URL("/oidc/token/revocation", portal.origin), {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: other.refresh_token, client_id: "novalex-app" }),
    });
    expect(revoked.status).toBe(200);
    expect((await call("aaa", "session", "tokeninfo", { token: other.access_token })).status).toBe(401);
    // The first sign-in is another grant: still good.
    expect((await call("aaa", "session", "tokeninfo", { token: tokens.access_token })).status).toBe(200);
  });
});
