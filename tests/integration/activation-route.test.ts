// /prodotti/attiva as the modal calls it: checking as the user types (fetcher), confirming with
// JavaScript (fetcher) and without (a form post that redirects or shows the invalid mark).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { action as actionBare } from "#app/routes/activate-product.tsx";
import { eq } from "drizzle-orm";
import { entitlements, products } from "#server/db/schema/index.ts";
import type { Services } from "#server/services.ts";
import { signedInCustomer } from "#tests/support/customers.ts";
import { createTestDatabase, type TestDatabase } from "#tests/support/database.ts";
import { formPost, thrownResponse } from "#tests/support/requests.ts";
import { loaderArgs } from "#tests/support/router-context.ts";
import { createTestServices } from "#tests/support/services.ts";
import { behindSignIn } from "#tests/support/customer-pages.ts";

// The customer's pages run behind the customer layout's sign-in.
const action = behindSignIn(actionBare);

let database: TestDatabase;
let services: Services;
let codes: string[];
let productName: string;

beforeAll(async () => {
  database = await createTestDatabase();
  services = await createTestServices(database);
  const [product] = await database.db.select().from(products).limit(1);
  productName = product!.name;
  ({ codes } = await services.library.activation.createBatch({ productId: product!.id, kind: "ebook", label: "test", count: 5 }));
});
afterAll(async () => {
  await services.close();
  await database.destroy();
});

function post(fields: Record<string, string>, cookie?: string) {
  return action({ ...loaderArgs(services, "/prodotti/attiva"), request: formPost("/prodotti/attiva", fields, cookie) });
}

/** A refused activation: the mark the form shows, with the status the API answers too. */
function refusal(result: unknown) {
  const value = result as { type?: string; data: { state: string; code: string }; init?: ResponseInit | null };
  if (value?.type !== "DataWithResponseInit") throw new Error(`expected data(), got ${String(result)}`);
  return { status: value.init?.status ?? 200, data: value.data };
}

describe("the activation action", () => {
  it("sends a signed-out visitor to the login", async () => {
    const response = await thrownResponse(post({ code: codes[0]! }));
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toMatch(/^\/login\/\?redirect=/);
  });

  it("checks a code without activating it, and gives no mark to an empty field", async () => {
    const { user, cookie } = await signedInCustomer(services, database.db);
    expect(await post({ intent: "verify", code: ` ${codes[0]!} `, mode: "fetch" }, cookie)).toEqual({
      state: "valid",
      code: codes[0],
    });
    expect(await post({ intent: "verify", code: "ABCD-EFGH-JKMN-PQRS", mode: "fetch" }, cookie)).toMatchObject({
      state: "invalid",
    });
    expect(await post({ intent: "verify", code: "   ", mode: "fetch" }, cookie)).toEqual({ state: "empty", code: "" });
    expect(await post({ intent: "activate", code: "" }, cookie)).toEqual({ state: "empty", code: "" });
    expect(await database.db.select().from(entitlements).where(eq(entitlements.userId, user.id))).toHaveLength(0);
  });

  it("without JavaScript, activates a good code and goes to the dashboard with a toast", async () => {
    const { user, cookie } = await signedInCustomer(services, database.db);
    const response = (await post({ intent: "activate", code: codes[1]! }, cookie)) as Response;
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe("/dashboard/");
    expect(response.headers.get("set-cookie")).toMatch(/portal_toast=/);
    expect(await database.db.select().from(entitlements).where(eq(entitlements.userId, user.id))).toHaveLength(1);
  });

  it("with JavaScript too, goes to the dashboard with the toast, in place of the modal's history entry", async () => {
    const { cookie } = await signedInCustomer(services, database.db);
    const response = (await post({ intent: "activate", code: codes[2]!, mode: "fetch" }, cookie)) as Response;
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe("/dashboard/");
    expect(response.headers.get("x-remix-replace")).toBe("true");
    const toast = await services.flash.read(
      new Request("http://x/", { headers: { cookie: response.headers.get("set-cookie")! } }),
    );
    expect(toast).toMatchObject({ type: "success", title: "Prodotto attivato" });
    expect(toast?.message).toContain(productName);
    // The same customer again is told they already did it; anyone else gets the invalid mark.
    expect(refusal(await post({ intent: "activate", code: codes[2]! }, cookie))).toEqual({
      status: 409,
      data: { state: "already", code: codes[2] },
    });
    expect(await post({ intent: "verify", code: codes[2]!, mode: "fetch" }, cookie)).toEqual({
      state: "already",
      code: codes[2],
    });
    const other = await signedInCustomer(services, database.db);
    expect(refusal(await post({ intent: "activate", code: codes[2]! }, other.cookie))).toEqual({
      status: 404,
      data: { state: "invalid", code: codes[2] },
    });
  });

  it("refuses input longer than any code before looking it up", async () => {
    const { cookie } = await signedInCustomer(services, database.db);
    const result = refusal(await post({ intent: "activate", code: "X".repeat(500) }, cookie));
    expect(result).toMatchObject({ status: 404, data: { state: "invalid" } });
    expect(result.data.code.length).toBeLessThanOrEqual(64);
  });
});
