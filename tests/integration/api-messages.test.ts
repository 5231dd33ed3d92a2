// What a client reads of a refusal: a stable `code` from the documented set, the `field` at fault
// when one is, and an Italian description that names it; never zod's English, and for a bad '%'
// in the path a message about the address, not about a JSON body.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { API_ERROR_CODES, API_MESSAGES } from "#server/api/errors.ts";
import { signInApp, type AppTokens } from "#tests/support/api-client.ts";
import { createTestDatabase, type TestDatabase } from "#tests/support/database.ts";
import { startPortal, type Portal } from "#tests/support/http-app.ts";

const UNKNOWN_ID = "00000000-0000-4000-8000-000000000000";
const REGISTER = "/api/user/register/";

let database: TestDatabase;
let portal: Portal;
let tokens: AppTokens;

beforeAll(async () => {
  database = await createTestDatabase();
  portal = await startPortal(database);
  const customer = { email: "messaggi@example.it", password: "Segreta1!" };
  const registered = await portal.services.accounts.register({ ...customer, firstname: "Mia", lastname: "Testa" });
  if (!registered.ok) throw new Error("setup");
  tokens = await signInApp(portal.origin, customer);
});

afterAll(async () => {
  await portal?.close();
  await database?.destroy();
});

async function answer(path: string, init: { method?: string; body?: unknown; bearer?: boolean } = {}) {
  const response = await portal.fetch(path, {
    method: init.method ?? "GET",
    headers: {
      "content-type": "application/json",
      ...(init.bearer ? { authorization: `Bearer ${tokens.access_token}` } : {}),
    },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  return { status: response.status, body: (await response.json()) as unknown };
}

const account = {
  username: "nuovo@example.it",
  password: "Segreta1!",
  firstname: "Nina",
  lastname: "Nuova",
  client_id: "novalex-app",
};
const refusal = (code: string, field: string | undefined, description: string) => ({
  status: 400,
  body: { error: { code, ...(field && { field }), description } },
});

describe("a field's 400", () => {
  it("says in Italian that a missing field is required, and names it", async () => {
    const { firstname: _missing, ...rest } = account;
    expect(await answer(REGISTER, { method: "POST", body: rest })).toEqual(
      refusal("invalid_field", "firstname", "Il campo firstname è obbligatorio"),
    );
  });

  it("says how long a field may be", async () => {
    const path = `/api/v1/order/order/checkpaymenthub/${UNKNOWN_ID}/${"x".repeat(41)}/`;
    expect(await answer(path, { method: "POST", body: {}, bearer: true })).toEqual(
      refusal("invalid_field", "hub", "Il campo hub è troppo lungo: al massimo 40 caratteri"),
    );
  });

  it("says which type a field must have", async () => {
    expect(await answer(REGISTER, { method: "POST", body: { ...account, firstname: 5 } })).toEqual(
      refusal("invalid_field", "firstname", "Il campo firstname deve essere un testo"),
    );
  });

  it("names a query value that is not one", async () => {
    expect(await answer("/api/v1/ecommerce/product/getproductpage/?sku=a&sku=b")).toEqual(
      refusal("invalid_field", "sku", "Il campo sku deve essere un testo"),
    );
  });

  it("keeps the message a schema words itself (the pages' own)", async () => {
    expect(await answer(REGISTER, { method: "POST", body: { ...account, lastname: " " } })).toEqual(
      refusal("invalid_field", "lastname", "Cognome obbligatorio"),
    );
  });

  it("says a body that is no object is not one", async () => {
    expect(await answer(REGISTER, { method: "POST", body: "testo" })).toEqual(
      refusal("invalid_request", undefined, API_MESSAGES.notObject),
    );
  });
});

describe("a '%' in the path that encodes nothing", () => {
  it("is a 400 about the address, on an operation's path and on an unknown one", async () => {
    for (const path of ["/api/v1/order/order/verify_codiceattivazione/%E0%A4%A/", "/api/v1/nessuno/%ZZ"]) {
      expect(await answer(path), path).toEqual(refusal("bad_address", undefined, API_MESSAGES.badEscape));
    }
  });
});

describe("the OpenAPI error schema", () => {
  it("lists every code a refusal may carry, and the field", async () => {
    const document = (await answer("/api/openapi.json")).body as {
      components: {
        schemas: { Error: { properties: { error: { required: string[]; properties: Record<string, { enum?: string[] }> } } } };
      };
    };
    const error = document.components.schemas.Error.properties.error;
    expect(error.required).toEqual(["code", "description"]);
    expect(error.properties.code!.enum).toEqual([...API_ERROR_CODES]);
    expect(Object.keys(error.properties)).toContain("field");
  });
});
