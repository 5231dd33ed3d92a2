// Start a payment through both doors: each refusal of the shared table (START_PAYMENT_REFUSALS)
// is brought about for a customer and submitted once through the checkout page's form and once
// through the API's checkpaymenthub, which must answer the same message with the same status.
// Beside it, what the API tells of the checkout: the poll of a hub never started, discount codes
// that do not exist, the body's published schema, and the order's data as it was sent.
import { randomBytes } from "node:crypto";
import { and, eq, like } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as checkoutRouteModule from "#app/routes/checkout/route.tsx";
import { coupons, orders, paymentAttempts, products } from "#server/db/schema/index.ts";
import { CHECKOUT_MESSAGES as M, START_PAYMENT_REFUSALS } from "#shared/checkout-messages.ts";
import { EDU_PRODUCT_CODE } from "#shared/library-constants.ts";
import type { StartPaymentRefusal } from "#server/commerce/start-payment.ts";
import { apiClient, signInApp, type ApiAnswer } from "#tests/support/api-client.ts";
import { buyWithSandboxCard, CHECKOUT_FORM, checkoutDetails } from "#tests/support/checkout.ts";
import { customerPage } from "#tests/support/customer-pages.ts";
import { signedInCustomer } from "#tests/support/customers.ts";
import { startApiPortal, stopApiPortal, type Manifests } from "#tests/support/api-portal.ts";
import type { TestDatabase } from "#tests/support/database.ts";
import type { Portal } from "#tests/support/http-app.ts";
import { formPost } from "#tests/support/requests.ts";
import { createRouterContext } from "#tests/support/router-context.ts";

const checkoutRoute = customerPage(checkoutRouteModule);

let database: TestDatabase;
let portal: Portal;
let modules: Manifests;

beforeAll(async () => ({ database, portal, modules } = await startApiPortal()));
afterAll(() => stopApiPortal({ database, portal }));

const CUSTOMER = { customer_firstname: "Maria", customer_lastname: "Rossi", customer_email: "maria.rossi@example.it" };
/** The page's 'Completa l'acquisto' with the sandbox's good card. */
const PAGE_FORM = CHECKOUT_FORM;
/** The same as an app sends it to checkpaymenthub. */
const API_BODY = { ...CUSTOMER, terms_sales: true, terms_cancel: true };

type Customer = { userId: string; cookie: string; call: ReturnType<typeof apiClient> };

/** A student signed in on the portal (a session cookie) and in the app (a bearer token). */
async function customer(): Promise<Customer> {
  const { user, cookie } = await signedInCustomer(portal.services, database.db);
  const tokens = await signInApp(portal.origin, { email: user.email!, password: "Segreta1!" });
  return { userId: user.id, cookie, call: apiClient(modules, tokens.access_token) };
}

async function openEdu(userId: string): Promise<string> {
  const opened = await portal.services.checkout.open(userId, EDU_PRODUCT_CODE);
  if (!opened.ok) throw new Error(`setup: ${opened.reason}`);
  return opened.orderId;
}

/** An eBook+EDU code activated by the customer meanwhile (another tab): EDU is active. */
async function activateEbookEdu(userId: string) {
  const { library, clock } = portal.services;
  const [ebook] = await database.db.select({ id: products.id }).from(products).where(like(products.sku, "EB-%")).limit(1);
  const { codes } = await library.activation.createBatch({ productId: ebook!.id, kind: "ebook_edu", label: "Prova", count: 1 });
  const result = await library.activation.activate({ userId, ip: "203.0.113.60", code: codes[0]!, now: clock() });
  if (!result.ok) throw new Error(`setup: activation ${result.reason}`);
}

/** Brings about each refusal for a new order of the customer: the order to submit. */
const SITUATIONS: Record<StartPaymentRefusal, (userId: string) => Promise<string>> = {
  // Its payment started and runs (its card step being opened): a second submit.
  async in_progress(userId) {
    const orderId = await openEdu(userId);
    const started = await portal.services.payments.start(userId, orderId, checkoutDetails());
    if (!started.ok) throw new Error(`setup: ${started.reason}`);
    await database.db.update(paymentAttempts).set({ status: "created" }).where(eq(paymentAttempts.orderId, orderId));
    return orderId;
  },
  paid: async (userId) => (await buyWithSandboxCard(portal.services, userId, EDU_PRODUCT_CODE)).orderId,
  async closed(userId) {
    const orderId = await openEdu(userId);
    await database.db.update(orders).set({ status: "cancelled" }).where(eq(orders.id, orderId));
    return orderId;
  },
  // Its discount code withdrawn after it was applied.
  async coupon_changed(userId) {
    const orderId = await openEdu(userId);
    const code = `PROVA${randomBytes(4).toString("hex").toUpperCase()}`;
    await database.db.insert(coupons).values({ code, description: "Prova", kind: "percent", percentOff: 10 });
    if (!(await portal.services.checkout.applyCoupon(userId, orderId, code))) throw new Error("setup: coupon refused");
    await database.db.update(coupons).set({ disabledAt: portal.services.clock() }).where(eq(coupons.code, code));
    return orderId;
  },
  // The hour's card payments spent, each started and given up.
  async rate_limited(userId) {
    const orderId = await openEdu(userId);
    for (;;) {
      const started = await portal.services.payments.start(userId, orderId, checkoutDetails());
      if (!started.ok) break;
      await portal.services.payments.reset(userId, orderId);
    }
    return orderId;
  },
  async edu_active(userId) {
    const orderId = await openEdu(userId);
    await activateEbookEdu(userId);
    return orderId;
  },
};

async function submitPage({ cookie }: Customer, orderId: string, fields: Record<string, string> = PAGE_FORM) {
  const request = formPost(`/checkout/${orderId}/`, { intent: "pay", ...fields }, cookie);
  return (await checkoutRoute.action({
    request,
    params: { order: orderId },
    context: createRouterContext(portal.services, portal.config),
    url: new URL(request.url),
    pattern: "",
  } as never)) as { init: { status: number }; data: { alert: { text: string } } };
}

const submitApi = ({ call }: Customer, orderId: string, body: object = API_BODY) =>
  call("order", "order", "order_checkpaymenthub", { params: { order: orderId, hub: "card" }, body });

const poll = ({ call }: Customer, orderId: string) =>
  call("order", "order", "order_checkpaymenthub", { params: { order: orderId, hub: "card" } });

describe("start a payment: each refusal, through the page and through the API", () => {
  for (const reason of Object.keys(START_PAYMENT_REFUSALS) as StartPaymentRefusal[]) {
    const { message, status } = START_PAYMENT_REFUSALS[reason];
    it(`${reason}: '${message}', ${status} from both`, async () => {
      const onPage = await customer();
      const page = await submitPage(onPage, await SITUATIONS[reason](onPage.userId));
      expect({ status: page.init.status, message: page.data.alert.text }).toEqual({ status, message });

      const inApp = await customer();
      const api = await submitApi(inApp, await SITUATIONS[reason](inApp.userId));
      expect({ status: api.status, message: (api.body as { error: { description: string } }).error.description }).toEqual({
        status,
        message,
      });
      if (status === 429) expect(Number(api.response.headers.get("retry-after"))).toBeGreaterThan(0);
    });
  }

  it("a field at fault: the same first message from both (the page's dialog, the API's field)", async () => {
    const onPage = await customer();
    const page = await submitPage(onPage, await openEdu(onPage.userId), { ...PAGE_FORM, terms_cancel: "" });
    expect({ status: page.init.status, message: page.data.alert.text }).toEqual({ status: 400, message: M.termsCancelMissing });
    const inApp = await customer();
    const api = await submitApi(inApp, await openEdu(inApp.userId), { ...API_BODY, terms_cancel: false });
    expect(api).toMatchObject({ status: 400, body: { error: { field: "terms_cancel", description: M.termsCancelMissing } } });
  });
});

describe("the API's payment hub", () => {
  it("polls a hub never started as `none`, one started and given up as `canceled`", async () => {
    const me = await customer();
    const orderId = await openEdu(me.userId);
    expect(await poll(me, orderId)).toMatchObject({ status: 200, body: { result: { state: "none", message: null } } });
    expect(await submitApi(me, orderId)).toMatchObject({ status: 200, body: { result: { state: "started" } } });
    expect(await me.call("order", "order", "order_resetpaymenthub", { params: { order: orderId } })).toMatchObject({
      body: { result: true },
    });
    expect(await poll(me, orderId)).toMatchObject({ status: 200, body: { result: { state: "canceled" } } });
  });

  it("says a second submit finds the payment under way, and starts nothing more", async () => {
    const me = await customer();
    const orderId = await openEdu(me.userId);
    expect((await submitApi(me, orderId)).status).toBe(200);
    expect(await submitApi(me, orderId)).toMatchObject({
      status: 409,
      body: { error: { code: "conflict", description: M.paymentAlreadyStarted } },
    });
    const attempts = await database.db.select().from(paymentAttempts).where(eq(paymentAttempts.orderId, orderId));
    expect(attempts).toHaveLength(1);
  });

  it("answers `false`, not an error, to a discount code that does not exist, has expired or cannot be one", async () => {
    const me = await customer();
    const orderId = await openEdu(me.userId);
    const expired = `SCADUTO${randomBytes(3).toString("hex").toUpperCase()}`;
    const yesterday = new Date(portal.services.clock().getTime() - 86_400_000);
    await database.db
      .insert(coupons)
      .values({ code: expired, description: "Scaduto", kind: "percent", percentOff: 10, validUntil: yesterday });
    for (const code of ["NONESISTE", expired, "X".repeat(101), "a b!?"]) {
      const answer: ApiAnswer = await me.call("order", "order", "order_addcoupon", { params: { order: orderId, code } });
      expect({ code, status: answer.status, body: answer.body }).toEqual({ code, status: 200, body: { result: false } });
    }
  });

  it("publishes the body with every §3 field, its type, and when it is required", async () => {
    const doc = (await (await portal.fetch("/api/openapi.json")).json()) as {
      paths: Record<string, { post?: { requestBody: { content: { "application/json": { schema: BodySchema } } } } }>;
    };
    type BodySchema = {
      properties: Record<string, { description?: string; type?: string; anyOf?: unknown[] }>;
      additionalProperties: boolean;
      anyOf: { required?: string[]; allOf?: { if: unknown; then: { required: string[] } }[] }[];
    };
    const path = Object.keys(doc.paths).find((p) => p.includes("/checkpaymenthub/"))!;
    const body = doc.paths[path]!.post!.requestBody.content["application/json"].schema;
    expect(body.additionalProperties).toBe(false);
    for (const field of ["billingaddress_postcode", "billingaddress_city", "billingaddress_province", "shipment_postcode"])
      expect(body.properties[field]).toMatchObject({ type: "string", description: expect.stringContaining("obbligatori") });
    expect(body.properties.hasbilling!.anyOf).toBeDefined();
    expect(body.properties.shipment_city!.description).toContain("spedizione");
    const start = body.anyOf.find((branch) => branch.required)!;
    expect(start.required).toEqual(expect.arrayContaining(["customer_firstname", "customer_email", "terms_sales"]));
    const whenRequired = start.allOf!.flatMap((rule) => rule.then.required);
    expect(whenRequired).toEqual(
      expect.arrayContaining(["billing_vat", "billing_sdi", "billing_ssn", "billingaddress_postcode", "billingaddress_city"]),
    );
  });

  it("gives back in order/load what checkpaymenthub accepted", async () => {
    const me = await customer();
    const orderId = await openEdu(me.userId);
    const sent = {
      ...API_BODY,
      hasbilling: true,
      billing_iscompany: true,
      billing_name: "Studio Legale Conti S.r.l.",
      billing_vat: "00743110157",
      billing_sdi: "M5UXCR1",
      billingaddress_firstname: "Luca",
      billingaddress_lastname: "Conti",
      billingaddress_address: "Corso Italia 10",
      billingaddress_postcode: "20122",
      billingaddress_city: "Milano",
      billingaddress_province: "mi",
    };
    expect((await submitApi(me, orderId, sent)).status).toBe(200);
    const loaded = await me.call("order", "order", "load", { body: [orderId] });
    const [order] = (loaded.body as { result: Record<string, unknown>[] }).result;
    expect(order).toMatchObject({
      ...CUSTOMER,
      hasbilling: true,
      billing_iscompany: true,
      billing_name: "Studio Legale Conti S.r.l.",
      billing_vat: "00743110157",
      billing_sdi: "M5UXCR1",
      billing_ssn: null,
      billingaddress_firstname: "Luca",
      billingaddress_postcode: "20122",
      billingaddress_city: "Milano",
      billingaddress_province: "MI",
      shipment_address: null,
      terms_sales: true,
      terms_cancel: true,
      shown_total_option_advance_false: order!.total,
    });
    const [row] = await database.db
      .select({ status: orders.status })
      .from(orders)
      .where(and(eq(orders.id, orderId), eq(orders.userId, me.userId)));
    expect(row!.status).toBe("waitforpayment");
  });
});
