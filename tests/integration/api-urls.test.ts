// §7's URL rule as a client reads it from the documents alone: it loads /api/manifest.json and
// its relations, builds every operation's address from `baseurl` and `url` (never from the
// server's modules), with and without the trailing slash, and no address is one the router does
// not know. The issue's literal examples ("any path part from ':' on is replaced by the supplied
// parameter", so no trailing slash) are answered by their operations.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { API_MESSAGES } from "#server/api/errors.ts";
import { signInApp } from "#tests/support/api-client.ts";
import { createTestDatabase, type TestDatabase } from "#tests/support/database.ts";
import { startPortal, type Portal } from "#tests/support/http-app.ts";

type Entry = { url: string; method: "GET" | "POST" };
type Manifest = { code: string; baseurl: string; url_rule: string; api: Record<string, Record<string, Entry>> };

let database: TestDatabase;
let portal: Portal;
let manifests: Manifest[];
let token: string;
let openOrder: string;
const customer = { email: "indirizzi@example.it", password: "Segreta1!" };

beforeAll(async () => {
  database = await createTestDatabase();
  portal = await startPortal(database);
  const registered = await portal.services.accounts.register({ ...customer, firstname: "Indirizzi", lastname: "Api" });
  if (!registered.ok) throw new Error("setup");
  const opened = await portal.services.checkout.open(registered.user.id, "abbonamentoedu");
  if (!opened.ok) throw new Error("setup");
  openOrder = opened.orderId;
  token = (await signInApp(portal.origin, customer)).access_token;
  const root = (await (await portal.fetch("/api/manifest.json")).json()) as {
    modules: Record<string, Manifest>;
    relations: string[];
  };
  const related = await Promise.all(root.relations.map(async (address) => (await (await fetch(address)).json()) as Manifest));
  manifests = [...Object.values(root.modules), ...related];
});

afterAll(async () => {
  await portal?.close();
  await database?.destroy();
});

/** Sample values of the manifests' path parameters: objects of this customer where one is needed. */
const sample = (name: string) =>
  ({ order: openOrder, hub: "card", code: "DEM0-EBK0-0000-0001", productcode: "abbonamentoedu", resource: "copertina" })[name] ??
  "x";

/** §7: `baseurl/url`, each `:name` part replaced by its encoded parameter; the other form drops the final '/'. */
function addresses(baseurl: string, url: string): string[] {
  const path = url.replace(/:([A-Za-z0-9_]+)/g, (_m, name: string) => encodeURIComponent(sample(name)));
  const slashed = `${baseurl}/${path.endsWith("/") ? path : `${path}/`}`;
  return [slashed, slashed.slice(0, -1)];
}

/** §7 literally: everything from the first ':' on replaced by the supplied parameter (a path suffix). */
const literal = (baseurl: string, url: string, supplied: string) => `${baseurl}/${url.slice(0, url.indexOf(":"))}${supplied}`;

function entry(module: string, model: string, name: string) {
  const manifest = manifests.find((m) => m.code === module);
  const found = manifest?.api[model]?.[name];
  if (!manifest || !found) throw new Error(`no ${module}.${model}.${name} in the manifests`);
  return { baseurl: manifest.baseurl, ...found };
}

async function send(address: string, method: string, { bearer, body }: { bearer?: string; body?: unknown } = {}) {
  const response = await fetch(address, {
    method,
    redirect: "manual",
    headers: { "content-type": "application/json", ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  const parsed = response.headers.get("content-type")?.includes("json") ? (JSON.parse(text) as Answer["body"]) : null;
  return { address: `${method} ${address}`, status: response.status, body: parsed };
}
type Answer = { status: number; body: { result?: unknown; error?: { description: string } } | null };

/** The router's own answer to an address no operation has (an operation's 404 says something else). */
const unrouted = (answer: Answer) =>
  (answer.status === 404 && answer.body?.error?.description === API_MESSAGES.unknownAddress) || answer.status === 405;

describe("§7's URL rule", () => {
  it("is stated by every manifest, the docs page and the OpenAPI document, the trailing slash optional", async () => {
    expect(manifests.map((m) => m.code).sort()).toEqual(["aaa", "ecommerce", "media", "order", "pim", "reader"]);
    for (const manifest of manifests) expect(manifest.url_rule, manifest.code).toMatch(/barra finale è facoltativa/);
    expect(await (await portal.fetch("/api/docs/")).text()).toContain("barra finale è facoltativa");
    const openapi = (await (await portal.fetch("/api/openapi.json")).json()) as { info: { description: string } };
    expect(openapi.info.description).toContain("risponde allo stesso modo anche senza");
  });

  it("reaches every operation of the manifests with and without the trailing slash", async () => {
    const answers = [];
    for (const manifest of manifests) {
      for (const operations of Object.values(manifest.api)) {
        for (const { url, method } of Object.values(operations)) {
          for (const address of addresses(manifest.baseurl, url)) {
            // A GET with the customer's token; a POST without one and with an empty body, so that it
            // is refused (401, or the public ones' 400) by its operation and changes nothing.
            answers.push(await send(address, method, method === "GET" ? { bearer: token } : { body: {} }));
          }
        }
      }
    }
    expect(answers.length).toBeGreaterThan(80);
    expect(answers.filter(unrouted)).toEqual([]);
    // A POST's refusal comes from its operation: the route was found.
    expect(answers.filter((a) => a.address.startsWith("POST")).every((a) => [400, 401, 429].includes(a.status))).toBe(true);
  });

  it("reaches the direct calls with and without the trailing slash", async () => {
    for (const path of ["user/register/", "passwordreset/reset/", "passwordresetfrommagento/reset/"]) {
      for (const address of addresses(`${portal.origin}/api`, path)) {
        const answer = await send(address, "POST", { body: {} });
        expect(answer).toMatchObject({ address: answer.address, status: 400 });
      }
    }
  });

  it("answers the issue's literal addresses from their operations", async () => {
    const verify = entry("order", "order", "order_verify_codiceattivazione");
    expect(await send(literal(verify.baseurl, verify.url, "DEM0-EBK0-0000-0001"), "GET", { bearer: token })).toMatchObject({
      status: 200,
      body: { result: false },
    });

    const create = entry("order", "order", "order_create_with_product_code");
    const created = await send(literal(create.baseurl, create.url, "abbonamentoedu"), "POST", { bearer: token });
    expect(created).toMatchObject({ status: 200, body: { result: openOrder } });

    const coupon = entry("order", "order", "order_addcoupon");
    const added = await send(literal(coupon.baseurl, coupon.url, `${openOrder}/PROMO`), "POST", { bearer: token });
    expect(unrouted(added)).toBe(false);
    expect(added.status).toBe(200);

    const tokeninfo = entry("aaa", "session", "tokeninfo");
    const info = await send(`${tokeninfo.baseurl}/${tokeninfo.url.replace(/\/$/, "")}`, "GET", { bearer: token });
    expect(info).toMatchObject({ status: 200, body: { result: { user: { email: customer.email } } } });
  });

  it("tells an unknown address from another method on a known one, in either form", async () => {
    const create = entry("order", "order", "order_create_with_product_code");
    const [slashed, bare] = addresses(create.baseurl, create.url);
    for (const address of [slashed!, bare!]) {
      expect(await send(address, "GET", { bearer: token })).toMatchObject({
        status: 405,
        body: { error: { code: "method_not_allowed", description: API_MESSAGES.noOperation } },
      });
    }
    expect(await send(`${create.baseurl}/order/nessuna`, "GET")).toMatchObject({
      status: 404,
      body: { error: { code: "unknown_address", description: API_MESSAGES.unknownAddress } },
    });
  });
});
