// The JSON API from the outside: a client signs in with code + PKCE as the app does, walks the
// manifest, and calls every operation; the abuse of tokens and ids is refused.
import { Validator } from "@seriousme/openapi-schema-validator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { routeOf } from "#server/api/operation.ts";
import { MESSAGES } from "#shared/messages.ts";
import { API_OPERATIONS } from "#server/api/operations/index.ts";
import { openApiPath } from "#server/api/openapi.ts";
import { apiClient, loadManifests, signInApp, type AppTokens } from "#tests/support/api-client.ts";
import { createTestDatabase, type TestDatabase } from "#tests/support/database.ts";
import { productOfType } from "#tests/support/catalog.ts";
import { startPortal, type Portal } from "#tests/support/http-app.ts";

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

  it("is a valid OpenAPI 3.1 document describing each route the server answers, and no other", async () => {
    const doc = (await (await portal.fetch("/api/openapi.json")).json()) as { openapi: string; paths: Record<string, object> };
    expect(doc.openapi).toBe("3.1.0");
    const checked = await new Validator().validate(doc);
    expect(checked.errors ?? []).toEqual([]);
    expect(checked.valid).toBe(true);
    const documented = Object.entries(doc.paths).flatMap(([path, methods]) => Object.keys(methods).map((m) => `${m} ${path}`));
    const served = API_OPERATIONS.map((op) => `${op.method.toLowerCase()} ${openApiPath(routeOf(op))}`);
    expect(documented.sort()).toEqual(served.sort());
  });
});

describe("a signed-in customer", () => {
  it("gets a JWT for the API from the code + PKCE flow, and the provider offers the code flow only", async () => {
    expect(tokens.scope.split(" ")).toContain("api");
    expect(tokens.access_token.split(".")).toHaveLength(3);
    const discovery = (await (await portal.fetch("/oidc/.well-known/openid-configuration")).json()) as {
      response_types_supported: string[];
    };
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

describe("every operation through the manifest", () => {
  it("answers each one as a client of the publisher would call it, and pays one charge for 30 concurrent checks", async () => {
    const called = new Set<string>();
    const base = apiClient(modules, tokens.access_token);
    const call: typeof base = async (module, model, name, options) => {
      called.add(`${module}.${model}.${name}`);
      const answer = await base(module, model, name, options);
      expect(answer.status, `${module}.${model}.${name}: ${JSON.stringify(answer.body)}`).toBeLessThan(500);
      return answer;
    };
    const resultOf = async (...args: Parameters<typeof call>) => {
      const answer = await call(...args);
      expect(answer.status, `${args.slice(0, 3).join(".")}: ${JSON.stringify(answer.body)}`).toBe(200);
      return answer.body!.result as never;
    };
    const { services, origin } = portal;
    const me = (await resultOf("aaa", "session", "tokeninfo")) as { user: { uuid: string } };
    expect(await resultOf("aaa", "user", "load", { body: [me.user.uuid] })).toHaveLength(1);

    // Reference lists: public.
    const anonymous = apiClient(modules);
    const professions = (await anonymous("pim", "professione", "getall-professione")).body!.result as {
      uuid: string;
      code: string;
    }[];
    expect(professions.length).toBeGreaterThan(0);
    called.add("pim.professione.getall-professione");
    expect(await resultOf("pim", "professione", "load", { body: [professions[0]!.uuid] })).toHaveLength(1);
    const universities = (await resultOf("pim", "universita", "getall-universita")) as { uuid: string }[];
    const courses = (await resultOf("pim", "corsolaurea", "getall-corsolaurea", {
      params: { universita: universities[0]!.uuid },
    })) as {
      universita: string;
    }[];
    expect(courses.every((c) => c.universita === universities[0]!.uuid)).toBe(true);
    const interests = (await resultOf("pim", "interesse", "getall-interesse")) as { uuid: string }[];
    expect(interests).not.toHaveLength(0);
    expect(await resultOf("pim", "materia", "getall-materia")).not.toHaveLength(0);

    // An activation code, checked then redeemed, and the book read.
    const ebook = await productOfType(database.db, "ebook");
    const { codes } = await services.library.activation.createBatch({
      productId: ebook.id,
      kind: "ebook",
      label: "api",
      count: 1,
    });
    expect(await resultOf("order", "order", "order_verify_codiceattivazione", { params: { code: codes[0]! } })).toBe(true);
    const activated = (await resultOf("order", "order", "order_create_with_codiceattivazione", {
      params: { code: codes[0]! },
    })) as {
      order: string;
      product: string;
    };
    expect(activated.product).toBe(ebook.id);
    // Its order's line names its product's type, as a bought one does.
    const [activatedOrder] = (await resultOf("order", "order", "load", { body: [activated.order] })) as {
      items: { uuid: string; producttype: string | null }[];
    }[];
    expect(activatedOrder!.items.map((item) => item.producttype)).toEqual(["ebook"]);
    expect(await resultOf("order", "orderitem", "load", { body: [activatedOrder!.items[0]!.uuid] })).toEqual([
      expect.objectContaining({ producttype: "ebook" }),
    ]);
    expect((await call("order", "order", "order_create_with_codiceattivazione", { params: { code: codes[0]! } })).status).toBe(
      409,
    );
    expect(await resultOf("reader", "userproductsession", "status", { body: [ebook.id] })).toMatchObject({
      ebook_is_expired: false,
    });
    const read = (await resultOf("reader", "userproductsession", "read", { body: [ebook.id] })) as { url: string };
    expect(read.url.startsWith(origin)).toBe(true);

    // EDU bought through the API: order, coupon on and off, hub, card step, 30 checks at once.
    const orderId = (await resultOf("order", "order", "order_create_with_product_code", {
      params: { productcode: "abbonamentoedu" },
    })) as string;
    expect(await resultOf("order", "order", "order_getpaymenthubs", { params: { order: orderId } })).toHaveLength(1);
    expect(await resultOf("order", "order", "order_getpaymenthub", { params: { order: orderId, hub: "card" } })).toMatchObject({
      key: "card",
    });
    expect(await resultOf("order", "order", "order_addcoupon", { params: { order: orderId, code: "BENVENUTO10" } })).toBe(true);
    expect(await resultOf("order", "order", "order_rmcoupon", { params: { order: orderId, code: "BENVENUTO10" } })).toBe(true);
    const details = {
      customer_firstname: "Api",
      customer_lastname: "Cliente",
      customer_email: customer.email,
      terms_sales: true,
      terms_cancel: true,
      return_immediately: true,
    };
    const refused = await call("order", "order", "order_checkpaymenthub", {
      params: { order: orderId, hub: "card" },
      body: { ...details, terms_sales: false },
    });
    expect(refused).toMatchObject({ status: 400, body: { error: { description: "Devi accettare le condizioni di acquisto" } } });
    expect(
      await resultOf("order", "order", "order_checkpaymenthub", { params: { order: orderId, hub: "card" }, body: details }),
    ).toMatchObject({
      state: "started",
    });
    expect(await resultOf("order", "order", "order_resetpaymenthub", { params: { order: orderId } })).toBe(true);
    await resultOf("order", "order", "order_checkpaymenthub", { params: { order: orderId, hub: "card" }, body: details });
    const setupId = await services.payments.pendingSetup(me.user.uuid, orderId);
    expect(await services.sandbox!.confirmCard(setupId!, "4242 4242 4242 4242")).toEqual({ status: "succeeded" });
    const checks = await Promise.all(
      Array.from({ length: 30 }, () =>
        call("order", "order", "order_checkpaymenthub", { params: { order: orderId, hub: "card" } }),
      ),
    );
    expect(checks.every((c) => c.status === 200)).toBe(true);
    expect(checks.some((c) => (c.body!.result as { state: string }).state === "paid")).toBe(true);

    const payments = (await resultOf("order", "order", "mypayments")) as { uuid: string; ordercode: string }[];
    expect(payments).toHaveLength(1);
    expect(await resultOf("order", "orderpayment", "load", { body: [payments[0]!.uuid] })).toHaveLength(1);
    const active = (await resultOf("order", "order", "myactiveorders")) as { uuid: string }[];
    expect(active.map((o) => o.uuid)).toContain(orderId);
    expect(await resultOf("order", "order", "myorders", { params: { limit: 2 } })).toHaveLength(2);
    expect(await resultOf("order", "order", "load", { body: [orderId] })).toMatchObject([
      { uuid: orderId, status: { code: "payed" } },
    ]);
    const edu = (await resultOf("aaa", "session", "tokeninfo")) as { user: { has_edu_upto: number } };
    expect(edu.user.has_edu_upto).toBeGreaterThan(services.clock().getTime());

    // The order's lines, and the names of statuses and payment methods, by code.
    const [paidOrder] = (await resultOf("order", "order", "load", { body: [orderId] })) as { items: { uuid: string }[] }[];
    expect(await resultOf("order", "orderitem", "load", { body: [paidOrder!.items[0]!.uuid] })).toMatchObject([
      { order: orderId },
    ]);
    expect(await resultOf("order", "orderstatus", "load", { body: ["payed", "nessuno"] })).toEqual([
      { code: "payed", name: "Pagato" },
    ]);
    expect(await resultOf("order", "paymentmethod", "load", { body: ["card_setup"] })).toEqual([
      { code: "card_setup", name: "Carta di Credito" },
    ]);
    expect(await resultOf("order", "paymentstatus", "load", { body: ["payed"] })).toEqual([{ code: "payed", name: "Pagato" }]);

    // The last orders, as the shop lists them.
    const mine = (await resultOf("order", "order", "myorders")) as { uuid: string; ordercode: string }[];
    expect(await resultOf("ecommerce", "order", "order_getlastuserorder")).toMatchObject({ uuid: mine[0]!.uuid });
    expect(
      await resultOf("ecommerce", "order", "order_getlastuserorders", {
        params: { onlyactive: 1, hidepaper: 1, num: 1, page: 2 },
      }),
    ).toMatchObject([{ uuid: mine[1]!.uuid }]);
    expect(
      await resultOf("ecommerce", "order", "order_getlastuserorders", { params: { ordercode: mine[1]!.ordercode } }),
    ).toMatchObject([{ uuid: mine[1]!.uuid }]);

    // The catalogue: types, newest books, journals and courses, a product page, an ISBN, the boxes.
    type Product = {
      uuid: string;
      sku: string;
      isbn: string | null;
      buylink: string;
      producttype: { uuid: string; code: string };
    };
    const types = (await resultOf("ecommerce", "producttype", "producttype_search")) as { uuid: string; code: string }[];
    expect(types.map((t) => t.code).sort()).toEqual(["abbonamento", "corso", "ebook", "paper_flex", "paper_hard", "rivista"]);
    expect(await resultOf("pim", "producttype", "load", { body: [types[0]!.uuid] })).toEqual([types[0]]);
    const books = (await resultOf("ecommerce", "product", "magento_getbooks", {
      params: { additionalfilters: "legal_professions=1", limit: 3 },
    })) as Product[];
    expect(books).toHaveLength(3);
    expect(books.every((b) => ["ebook", "paper_flex", "paper_hard"].includes(b.producttype.code))).toBe(true);
    expect(await call("ecommerce", "product", "magento_getbooks", { params: { additionalfilters: "tutti=1" } })).toMatchObject({
      status: 400,
      body: { error: { description: "Filtro non valido: usa student=1 oppure legal_professions=1" } },
    });
    for (const [name, code] of [
      ["magento_getriviste", "rivista"],
      ["magento_getcorsi", "corso"],
    ] as const) {
      const list = (await resultOf("ecommerce", "product", name, { params: { limit: 2 } })) as Product[];
      expect(list.length).toBeGreaterThan(0);
      expect(list.every((p) => p.producttype.code === code)).toBe(true);
    }
    const book = books.find((b) => b.isbn)!;
    expect(await resultOf("pim", "product", "load", { body: [book.uuid] })).toEqual([book]);
    expect(await resultOf("ecommerce", "product", "magento_getproductpage", { params: { sku: book.sku } })).toBe(book.buylink);
    expect(await resultOf("ecommerce", "product", "product_search", { params: { isbn: book.isbn!, limit: 1 } })).toMatchObject([
      { isbn: book.isbn },
    ]);
    const discover = (await resultOf("ecommerce", "boxdiscover", "getdiscover", {
      params: { areacode: "dashboard_studenti" },
    })) as Product[];
    expect(discover.length).toBeGreaterThan(0);
    expect(discover.every((p) => p.isbn)).toBe(true);
    expect(
      await resultOf("ecommerce", "boxpromoarea", "getbox", { params: { areacode: "dashboard_studenti_top_right" } }),
    ).toMatchObject({ areacode: "dashboard_studenti_top_right" });
    expect((await call("ecommerce", "boxpromoarea", "getbox", { params: { areacode: "nessuna_area" } })).status).toBe(404);
    expect(
      await resultOf("ecommerce", "boxcontactarea", "getbox", { params: { areacode: "dashboard_contatti" } }),
    ).not.toHaveLength(0);

    // The account: saved as the client read it, with the profession set once; the password
    // checked and changed (the app stays signed in, another sign-in ends).
    const other = professions.find((p) => p.code === "other")!;
    const saved = (await resultOf("aaa", "user", "save", {
      body: { ...me.user, firstname: "Apina", professione: other.uuid, interessi: [interests[0]!.uuid], accept_marketing: true },
    })) as { firstname: string; professione: string; accept_marketing: boolean };
    expect(saved).toMatchObject({ firstname: "Apina", professione: other.uuid, accept_marketing: true });
    expect(await call("aaa", "user", "save", { body: { uuid: me.user.uuid, lastname: " " } })).toMatchObject({
      status: 400,
      body: { error: { description: MESSAGES.lastnameRequired } },
    });
    expect((await call("aaa", "user", "save", { body: { uuid: me.user.uuid, email: "altra@example.it" } })).body).toEqual({
      error: {
        code: "invalid_field",
        field: "email",
        description: "L'email si cambia dalla pagina 'Il mio account' del portale",
      },
    });
    expect((await call("aaa", "user", "save", { body: { uuid: crypto.randomUUID(), firstname: "X" } })).status).toBe(404);
    const account = { uuid: me.user.uuid };
    expect(await resultOf("aaa", "user", "verifypassword", { body: { ...account, password: customer.password } })).toBe(true);
    expect(await resultOf("aaa", "user", "verifypassword", { body: { ...account, password: "Sbagliata1!" } })).toBe(false);
    expect(
      await call("aaa", "user", "changepassword", {
        body: { ...account, currentpassword: "Sbagliata1!", password: "Nuova1234!" },
      }),
    ).toMatchObject({ status: 400, body: { error: { description: MESSAGES.currentPasswordWrong } } });
    const elsewhere = await signInApp(origin, customer);
    for (const [from, to] of [
      [customer.password, "Nuova1234!"],
      ["Nuova1234!", customer.password],
    ]) {
      expect(await resultOf("aaa", "user", "changepassword", { body: { ...account, currentpassword: from, password: to } })).toBe(
        true,
      );
    }
    expect((await base("aaa", "session", "tokeninfo")).status).toBe(200);
    expect((await base("aaa", "session", "tokeninfo", { token: elsewhere.access_token })).status).toBe(401);
    expect(await call("aaa", "session", "google-loginlink", { body: { url: origin } })).toMatchObject({
      status: 404,
      body: { error: { description: "L'accesso con Google non è disponibile" } },
    });

    // The cover, by its key.
    const cover = await call("media", "resource", "download", { params: { resource: "nonexistent-cover" } });
    expect(cover.status).toBe(302);
    expect(cover.response.headers.get("location")).toBe("/media/copertine/nonexistent-cover.svg");

    // Password links, public.
    expect(await resultOf("aaa", "passwordreset", "request", { body: { username: customer.email } })).toBe(true);
    expect(await resultOf("aaa", "passwordreset", "verify", { body: { token: "not-a-token" } })).toBe(false);
    expect(await resultOf("aaa", "passwordresetfrommagento", "verify", { body: { token: "not-a-token" } })).toBe(false);

    const everyOperation = API_OPERATIONS.filter((o) => o.module !== "direct").map((o) => `${o.module}.${o.model}.${o.name}`);
    expect([...called].sort()).toEqual(everyOperation.sort());
  });

  it("takes the direct calls at their addresses", async () => {
    const post = (path: string, body: unknown) =>
      portal.fetch(path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    const account = {
      username: "nuovo.api@example.it",
      password: "Segreta1!",
      firstname: "Nuovo",
      lastname: "Cliente",
      client_id: "novalex-app",
    };
    expect(await (await post("/api/user/register/", account)).json()).toEqual({ result: true });
    const again = await post("/api/user/register/", account);
    expect(again.status).toBe(409);
    expect(await again.json()).toEqual({ error: { code: "conflict", description: "Email già registrata" } });
    const weak = await post("/api/user/register/", { ...account, username: "altro@example.it", password: "debole" });
    expect(await weak.json()).toEqual({
      error: { code: "invalid_field", field: "password", description: "La password non rispetta i requisiti" },
    });
    for (const path of ["/api/passwordreset/reset/", "/api/passwordresetfrommagento/reset/"]) {
      const dead = await post(path, { token: "x".repeat(43), password: "Segreta1!" });
      expect(dead.status).toBe(400);
      expect(await dead.json()).toEqual({
        error: {
          code: "invalid_request",
          description: "La sessione è scaduta, prova a richiedere di nuovo il cambio della password",
        },
      });
    }
  });
});

describe("social sign-in", () => {
  it("gives the address that starts it on the portal, coming back only to a page of the portal", async () => {
    const social = await startPortal(database, {
      SOCIAL_OIDC_ISSUER: "http://127.0.0.1:9/",
      SOCIAL_OIDC_CLIENT_ID: "portale",
      SOCIAL_OIDC_CLIENT_SECRET: "segreto",
    });
    try {
      const link = async (url: unknown) => {
        const response = await social.fetch("/api/v1/aaa/session/google-loginlink/", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ url }),
        });
        expect(response.status).toBe(200);
        return new URL(((await response.json()) as { result: string }).result);
      };
      const mine = await link(`${social.origin}/my-products/?tab=attivi`);
      expect(mine.origin + mine.pathname).toBe(`${social.origin}/login/`);
      expect(Object.fromEntries(mine.searchParams)).toEqual({ via: "social", redirect: "/my-products/?tab=attivi" });
      for (const elsewhere of ["https://evil.example/", "//evil.example/x", "javascript:alert(1)"]) {
        expect((await link(elsewhere)).searchParams.get("redirect")).toBe("/");
      }
    } finally {
      await social.close();
    }
  });
});

describe("abuse", () => {
  it("never shows another customer's order or payment", async () => {
    const other = { email: "altro.cliente@example.it", password: "Segreta1!" };
    await portal.services.accounts.register({ ...other, firstname: "Altro", lastname: "Cliente" });
    const theirs = apiClient(modules, (await signInApp(portal.origin, other)).access_token);
    const mine = (await apiClient(modules, tokens.access_token)("order", "order", "myorders")).body!.result as { uuid: string }[];
    expect(mine.length).toBeGreaterThan(0);
    const orderId = mine[0]!.uuid;
    expect((await theirs("order", "order", "load", { body: [orderId] })).body).toEqual({ result: [] });
    expect((await theirs("order", "order", "order_getpaymenthubs", { params: { order: orderId } })).status).toBe(404);
    expect((await theirs("order", "order", "order_resetpaymenthub", { params: { order: orderId } })).status).toBe(404);
    expect((await theirs("order", "order", "order_checkpaymenthub", { params: { order: orderId, hub: "card" } })).status).toBe(
      404,
    );
  });

  it("answers fuzzed JSON with 4xx, never 5xx, and writes nothing", async () => {
    const before = await portal.services.customerOrders.list(
      (await portal.services.accounts.findActiveByEmail(customer.email))!.id,
    );
    const bodies: string[] = [
      "",
      "{",
      "null",
      "[]",
      "[null]",
      '"x"',
      "1e999",
      '{"__proto__":{"a":1}}',
      JSON.stringify({ token: ["a"] }),
      "\u0000",
      "[".repeat(5000),
    ];
    for (const op of API_OPERATIONS.filter((o) => o.method === "POST")) {
      const path = routeOf(op).replace(/:([a-z]+)/g, (_m, name: string) =>
        name === "order" ? "00000000-0000-4000-8000-000000000000" : "x%00y",
      );
      for (const body of bodies) {
        const response = await portal.fetch(path, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${tokens.access_token}` },
          body,
        });
        expect(response.status, `${path} ${body.slice(0, 20)}`).toBeGreaterThanOrEqual(400);
        expect(response.status, `${path} ${body.slice(0, 20)}`).toBeLessThan(500);
      }
    }
    const nul = await portal.fetch("/api/v1/order/order/verify_codiceattivazione/x%00y/", {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect(nul.status).toBe(400);
    expect(await nul.json()).toEqual({ error: { code: "bad_address", description: "Indirizzo non valido" } });
    const after = await portal.services.customerOrders.list(
      (await portal.services.accounts.findActiveByEmail(customer.email))!.id,
    );
    expect(after).toEqual(before);
  });
});
