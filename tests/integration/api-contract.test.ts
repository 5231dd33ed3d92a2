// What the documents say is what the server does (issue 28): a client that knows only
// /api/openapi.json, the manifests and discovery gets no status the document does not list, has
// its out-of-schema inputs refused rather than replaced, and finds what the documents promise.
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, loadManifests, signInApp, type AppTokens } from "#tests/support/api-client.ts";
import { createTestDatabase, type TestDatabase } from "#tests/support/database.ts";
import { startPortal, type Portal } from "#tests/support/http-app.ts";

type OpenApiOperation = { security: unknown[]; parameters: { name: string; in: string }[]; responses: Record<string, unknown> };
type OpenApi = { paths: Record<string, Record<string, OpenApiOperation>> };

let database: TestDatabase;
let portal: Portal;
let tokens: AppTokens;
let doc: OpenApi;
const customer = { email: "contratto.cliente@example.it", password: "Segreta1!" };

beforeAll(async () => {
  database = await createTestDatabase();
  portal = await startPortal(database);
  const registered = await portal.services.accounts.register({ ...customer, firstname: "Carla", lastname: "Contratto" });
  if (!registered.ok) throw new Error("setup");
  tokens = await signInApp(portal.origin, customer);
  doc = (await (await portal.fetch("/api/openapi.json")).json()) as OpenApi;
});

afterAll(async () => {
  await portal?.close();
  await database?.destroy();
});

/**
 * The status of a request sent as is: node's http, since fetch sends no body with a GET and a
 * client's library may (the server must still answer it with a status the document lists).
 */
function statusOf(method: string, path: string, { headers = {}, body }: { headers?: Record<string, string>; body?: string }) {
  return new Promise<number>((resolve, reject) => {
    let status: number | undefined;
    const length = body === undefined ? {} : { "content-length": String(Buffer.byteLength(body)) };
    const req = request(new URL(path, portal.origin), { method, headers: { ...headers, ...length } }, (res) => {
      status = res.statusCode ?? 0;
      res.resume();
      res.on("end", () => resolve(status!));
    });
    // A server may answer (413, 415) before it has read a body, and close: the answer is what counts.
    req.on("error", (error) =>
      status === undefined
        ? reject(new Error(`${method} ${path} ${JSON.stringify(headers)} ${body?.slice(0, 20)}: ${error.message}`))
        : resolve(status),
    );
    req.end(body);
  });
}

/** A documented path with its parameters filled in (any value: the server judges it). */
const addressOf = (path: string) => path.replace(/\{[^}]+\}/g, "x");

describe("a client built from the OpenAPI document alone", () => {
  it("gets only statuses the document lists for the operation, whatever it sends wrong", async () => {
    const seen: string[] = [];
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        const listed = Object.keys(op.responses);
        const check = async (what: string, init: { headers?: Record<string, string>; body?: string; query?: string }) => {
          const status = await statusOf(method.toUpperCase(), addressOf(path) + (init.query ?? ""), init);
          seen.push(`${status}`);
          expect(listed, `${method} ${path} ${what}`).toContain(String(status));
        };
        const bearer = { authorization: `Bearer ${tokens.access_token}` };
        const json = { "content-type": "application/json", ...bearer };
        await check("without a token", {});
        await check("with an unknown query parameter", { headers: bearer, query: "?sconosciuto=1" });
        const other = method === "get" ? "post" : "get";
        if (!methods[other]) {
          const response = await portal.fetch(addressOf(path), { method: other.toUpperCase(), headers: bearer });
          await response.arrayBuffer();
          expect(response.status, `${other} ${path}`).toBe(405);
          expect(listed, `${method} ${path} answers 405 to ${other}`).toContain("405");
        }
        // Unknown objects: every path parameter and the body's id an uuid of nothing.
        const unknown = crypto.randomUUID();
        const status = await statusOf(method.toUpperCase(), path.replace(/\{[^}]+\}/g, unknown), {
          headers: json,
          ...(method === "post" ? { body: JSON.stringify([unknown]) } : {}),
        });
        seen.push(`${status}`);
        expect(listed, `${method} ${path} with an unknown id`).toContain(String(status));
        if (method === "post")
          await check("with an unknown body field", { headers: json, body: JSON.stringify({ sconosciuto: 1 }) });
        // A GET's body too: a client's library may send one, and the answer must still be a listed one.
        await check("with a body not in JSON", { headers: { ...bearer, "content-type": "text/plain" }, body: "x" });
        await check("with a body too large", { headers: json, body: JSON.stringify({ x: "a".repeat(70 * 1024) }) });
        await check("with a body that is not JSON", { headers: json, body: "{" });
      }
    }
    // The calls did reach the checks they were meant for.
    expect(seen).toEqual(expect.arrayContaining(["400", "401", "404", "413", "415"]));
  });

  it("refuses query values outside the documented schema with 400, not a default", async () => {
    const call = apiClient(await loadManifests(portal.origin), tokens.access_token);
    const refused = [
      ["ecommerce", "product", "magento_getriviste", { limit: 0 }],
      ["ecommerce", "product", "magento_getcorsi", { limit: "abc" }],
      ["ecommerce", "product", "magento_getbooks", { limit: 101 }],
      ["order", "order", "myorders", { limit: 0 }],
      ["ecommerce", "order", "order_getlastuserorders", { page: 0 }],
      ["ecommerce", "order", "order_getlastuserorders", { num: "abc" }],
      ["ecommerce", "order", "order_getlastuserorders", { onlyactive: "forse" }],
      ["pim", "corsolaurea", "getall-corsolaurea", { universita: "abc" }],
      ["pim", "corsolaurea", "getall-corsolaurea", { universita: crypto.randomUUID() }],
      ["pim", "professione", "getall-professione", { sconosciuto: 1 }],
    ] as const;
    for (const [module, model, name, params] of refused) {
      const answer = await call(module, model, name, { params });
      expect(answer.status, `${name} ${JSON.stringify(params)}`).toBe(400);
      expect(answer.body?.error?.description).toBeTruthy();
    }
    // The same operations with documented values answer.
    expect((await call("ecommerce", "product", "magento_getriviste", { params: { limit: 1 } })).status).toBe(200);
    expect((await call("ecommerce", "order", "order_getlastuserorders", { params: { page: 1, num: 5 } })).status).toBe(200);
  });

  it("refuses unknown body fields on writes with 400, and changes nothing", async () => {
    const modules = await loadManifests(portal.origin);
    const call = apiClient(modules, tokens.access_token);
    const me = async () =>
      ((await call("aaa", "session", "tokeninfo")).body!.result as { user: { uuid: string; firstname: string } }).user;
    const { uuid } = await me();
    const saved = await call("aaa", "user", "save", { body: { uuid, firstname: "Nuovo", nome_sbagliato: "x" } });
    expect(saved.status).toBe(400);
    expect((await me()).firstname).toBe("Carla");

    const register = (extra: object) =>
      portal.fetch("/api/user/register/", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          username: "nuovo.contratto@example.it",
          password: "Segreta1!",
          firstname: "Nuovo",
          lastname: "Cliente",
          client_id: "novalex-app",
          ...extra,
        }),
      });
    expect((await register({ newsletter: true })).status).toBe(400);
    expect(await portal.services.accounts.findActiveByEmail("nuovo.contratto@example.it")).toBeFalsy();
    // Every field docs/api.md documents is taken.
    expect((await register({})).status).toBe(200);

    const product = await call("order", "order", "order_create_with_product_code", { params: { productcode: "sconosciuto" } });
    expect(product.status).toBe(404);
  });
});

describe("the documents", () => {
  it("hold no $schema inside the OpenAPI document's schemas", () => {
    const nested: string[] = [];
    const walk = (value: unknown, at: string) => {
      if (!value || typeof value !== "object") return;
      for (const [key, inner] of Object.entries(value)) {
        if (key === "$schema") nested.push(at);
        walk(inner, `${at}/${key}`);
      }
    };
    walk(doc.paths, "#/paths");
    expect(nested).toEqual([]);
  });

  it("document the media download as the 302 it answers, with its Location and no body", async () => {
    const download = doc.paths["/api/v1/media/resource/download/{resource}/"]!.get!;
    const redirect = download.responses["302"] as { headers: Record<string, unknown>; content?: unknown };
    expect(download.responses["200"]).toBeUndefined();
    expect(redirect.headers).toHaveProperty("Location");
    expect(redirect.content).toBeUndefined();
    const answer = await portal.fetch("/api/v1/media/resource/download/copertina-1/");
    expect(answer.status).toBe(302);
    expect(answer.headers.get("location")).toBeTruthy();
  });

  it("list the api scope in discovery", async () => {
    const discovery = (await (await portal.fetch("/oidc/.well-known/openid-configuration")).json()) as {
      scopes_supported: string[];
    };
    expect(discovery.scopes_supported).toContain("api");
    expect(discovery.scopes_supported).toContain("openid");
  });

  it("give each related manifest the version the root one has", async () => {
    const root = (await (await portal.fetch("/api/manifest.json")).json()) as { version: string; relations: string[] };
    expect(root.relations.length).toBeGreaterThan(0);
    for (const relation of root.relations) {
      const related = (await (await fetch(relation)).json()) as { version?: string };
      expect(related.version, relation).toBe(root.version);
    }
  });
});
