// The purchase as the pages run it, without JavaScript: /create-checkout, /checkout/:order with
// its validation in the spec's order, the sandbox's card step and 3-D Secure page, the return,
// discount codes, and who may see an order.
import { eq, like } from "drizzle-orm";
import { futureExpiry } from "#tests/support/cards.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as checkoutRouteModule from "#app/routes/checkout/route.tsx";
import * as createCheckoutRouteModule from "#app/routes/create-checkout.tsx";
import * as sandbox3dsModule from "#app/routes/sandbox-3ds.tsx";
import { CHECKOUT_MESSAGES as M } from "#shared/checkout-messages.ts";
import { coupons, entitlements, orders, payments, products } from "#server/db/schema/index.ts";
import type { Services } from "#server/services.ts";
import { SANDBOX_MESSAGES } from "#server/payments/sandbox-gateway.ts";
import { signedInCustomer } from "#tests/support/customers.ts";
import { createTestDatabase, type TestDatabase } from "#tests/support/database.ts";
import { formPost, thrownResponse } from "#tests/support/requests.ts";
import { CHECKOUT_FORM } from "#tests/support/checkout.ts";
import { createRouterContext, loaderArgs } from "#tests/support/router-context.ts";
import { createTestServices } from "#tests/support/services.ts";
import { customerPage } from "#tests/support/customer-pages.ts";

// The customer's pages run behind the customer layout's sign-in.
const checkoutRoute = customerPage(checkoutRouteModule);
const createCheckoutRoute = customerPage(createCheckoutRouteModule);
const sandbox3ds = customerPage(sandbox3dsModule);

let database: TestDatabase;
let services: Services;
let paperSku: string;

beforeAll(async () => {
  database = await createTestDatabase();
  services = await createTestServices(database);
  const [paper] = await database.db.select({ sku: products.sku }).from(products).where(like(products.sku, "LB-%")).limit(1);
  paperSku = paper!.sku;
});
afterAll(async () => {
  await services.close();
  await database.destroy();
});

function get(route: { loader: (args: never) => unknown }, url: string, params: Record<string, string>, cookie?: string) {
  const args = loaderArgs(services, url, params);
  const request = new Request(args.request.url, { headers: cookie ? { cookie } : {} });
  return route.loader({ ...args, request } as never);
}
function post(
  route: { action: (args: never) => unknown },
  url: string,
  params: Record<string, string>,
  fields: Record<string, string>,
  cookie?: string,
) {
  const request = formPost(url, fields, cookie);
  return route.action({
    request,
    params,
    context: createRouterContext(services),
    url: new URL(request.url),
    pattern: "",
  } as never);
}

/** Opens the EDU checkout as the /edu/ page's button does; gives the order's id. */
async function openEdu(cookie: string, code = "abbonamentoedu") {
  const response = await thrownResponse(
    post(createCheckoutRoute, `/create-checkout/${code}/`, { productcode: code }, {}, cookie) as Promise<unknown>,
  );
  expect(response.status).toBe(302);
  const location = response.headers.get("location")!;
  expect(location).toMatch(/^\/checkout\/[0-9a-f-]{36}\/$/);
  return location.split("/")[2]!;
}

const GOOD_FORM = CHECKOUT_FORM;

function pay(orderId: string, fields: Record<string, string>, cookie: string) {
  return post(checkoutRoute, `/checkout/${orderId}/`, { order: orderId }, { intent: "pay", ...fields }, cookie);
}

describe("/create-checkout/:productcode", () => {
  it("sends a signed-out visitor to the login, and comes back", async () => {
    const response = await thrownResponse(
      get(createCheckoutRoute, "/create-checkout/abbonamentoedu/", { productcode: "abbonamentoedu" }) as Promise<unknown>,
    );
    expect(response.headers.get("location")).toBe("/login/?redirect=%2Fcreate-checkout%2Fabbonamentoedu%2F");
  });

  it("shows the product on a GET and creates nothing; the POST opens one order however often it is sent", async () => {
    const { user, cookie } = await signedInCustomer(services, database.db);
    const page = (await get(
      createCheckoutRoute,
      "/create-checkout/abbonamentoedu/",
      { productcode: "abbonamentoedu" },
      cookie,
    )) as {
      product: { name: string };
    };
    expect(page.product.name).toBe("EDU - Abbonamento 6 mesi");
    expect(await database.db.select().from(orders).where(eq(orders.userId, user.id))).toHaveLength(0);
    const first = await openEdu(cookie);
    expect(await openEdu(cookie)).toBe(first);
    // Now a GET finds the open order and goes to it.
    const again = await thrownResponse(
      get(createCheckoutRoute, "/create-checkout/abbonamentoedu/", { productcode: "abbonamentoedu" }, cookie) as Promise<unknown>,
    );
    expect(again.headers.get("location")).toBe(`/checkout/${first}/`);
    expect(await database.db.select().from(orders).where(eq(orders.userId, user.id))).toHaveLength(1);
  });

  it("answers an unknown code with the description and a way back", async () => {
    const { cookie } = await signedInCustomer(services, database.db);
    const result = (await post(createCheckoutRoute, "/create-checkout/NIENTE/", { productcode: "NIENTE" }, {}, cookie)) as {
      init: { status: number };
      data: { error: string; back: string };
    };
    expect(result.init.status).toBe(404);
    expect(result.data).toMatchObject({ error: M.productUnavailable, back: "/dashboard/" });
  });
});

describe("/checkout/:order", () => {
  it("is its owner's only: anyone else goes home, and sees nothing", async () => {
    const owner = await signedInCustomer(services, database.db);
    const orderId = await openEdu(owner.cookie);
    const other = await signedInCustomer(services, database.db);
    // One at a time: each is started only when awaited.
    const attempts = [
      () => get(checkoutRoute, `/checkout/${orderId}/`, { order: orderId }, other.cookie),
      () => pay(orderId, GOOD_FORM, other.cookie),
      () => post(checkoutRoute, `/checkout/${orderId}/`, { order: orderId }, { intent: "check" }, other.cookie),
      () => get(checkoutRoute, "/checkout/not-an-id/", { order: "not-an-id" }, owner.cookie),
    ];
    for (const attempt of attempts) {
      const response = await thrownResponse(attempt() as Promise<unknown>);
      expect(response.headers.get("location")).toBe("/");
    }
    expect((await database.db.select().from(orders).where(eq(orders.id, orderId)))[0]!.status).toBe("new");
  });

  it("refuses in the spec's order, in the dialog 'Errore', and changes nothing", async () => {
    const { cookie } = await signedInCustomer(services, database.db);
    const orderId = await openEdu(cookie);
    const steps: [Record<string, string>, string][] = [
      [{}, M.firstnameMissing],
      [{ customer_firstname: "Maria" }, M.lastnameMissing],
      [{ customer_firstname: "Maria", customer_lastname: "Rossi" }, M.emailMissing],
      [{ ...GOOD_FORM, customer_email: "non-una-email" }, M.emailInvalid],
      [{ ...GOOD_FORM, hasbilling: "1", billing_iscompany: "1" }, M.companyNameMissing],
      [{ ...GOOD_FORM, hasbilling: "1", billing_iscompany: "1", billing_name: "Studio Legale Rossi" }, M.vatMissing],
      [
        { ...GOOD_FORM, hasbilling: "1", billing_iscompany: "1", billing_name: "Studio", billing_vat: "12345678903" },
        // Its check digit holds: the office code (890) is what is wrong, and the message says so.
        M.vatOfficeInvalid,
      ],
      [
        { ...GOOD_FORM, hasbilling: "1", billing_iscompany: "1", billing_name: "Studio", billing_vat: "06363391002" },
        M.vatCheckDigitInvalid,
      ],
      [
        { ...GOOD_FORM, hasbilling: "1", billing_iscompany: "1", billing_name: "Studio", billing_vat: "06363391001" },
        M.sdiMissing,
      ],
      [{ ...GOOD_FORM, hasbilling: "1", billing_iscompany: "0" }, M.ssnMissing],
      [{ ...GOOD_FORM, hasbilling: "1", billing_ssn: "RSSMRA85T10A562T" }, M.ssnInvalid],
      [{ ...GOOD_FORM, hasbilling: "1", billing_ssn: "RSSMRA85T10A562S", billing_pec: "pec" }, M.pecInvalid],
      [{ ...GOOD_FORM, hasbilling: "1", billing_ssn: "RSSMRA85T10A562S" }, M.billingFirstnameMissing],
      [{ ...GOOD_FORM, terms_sales: "" }, M.termsSalesMissing],
      [{ ...GOOD_FORM, terms_cancel: "" }, M.termsCancelMissing],
      [{ ...GOOD_FORM, paymenthub: "" }, M.paymentHubMissing],
      [{ ...GOOD_FORM, paymenthub: "sepa" }, M.paymentHubUnsupported],
      [{ ...GOOD_FORM, cc_number: "4242 4242 4242 4241" }, M.cardNumberInvalid],
      [{ ...GOOD_FORM, cc_exp: "01/20" }, M.cardExpired],
    ];
    for (const [fields, message] of steps) {
      const result = (await pay(orderId, Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== "")), cookie)) as {
        init: { status: number };
        data: { alert: { title: string; text: string }; values: Record<string, string> };
      };
      expect(result.init.status, message).toBe(400);
      expect(result.data.alert, message).toEqual({ title: M.errorTitle, text: message });
      // The card number and code are never sent back.
      expect(result.data.values.cc_number).toBeUndefined();
      expect(result.data.values.cc_csc).toBeUndefined();
    }
    expect((await database.db.select().from(orders).where(eq(orders.id, orderId)))[0]!.status).toBe("new");
  });

  it("asks a paper book for the shipping address", async () => {
    const { cookie } = await signedInCustomer(services, database.db);
    const orderId = await openEdu(cookie, paperSku);
    const result = (await pay(orderId, GOOD_FORM, cookie)) as { data: { alert: { text: string } } };
    expect(result.data.alert.text).toBe(M.shipmentFirstnameMissing);
    const bad = (await pay(
      orderId,
      {
        ...GOOD_FORM,
        shipment_firstname: "Maria",
        shipment_lastname: "Rossi",
        shipment_address: "Via Roma 1",
        shipment_postcode: "184",
        shipment_city: "Roma",
        shipment_province: "RM",
      },
      cookie,
    )) as { data: { alert: { text: string } } };
    expect(bad.data.alert.text).toBe(M.postcodeInvalid);
  });

  it("buys EDU with the good test card: 'Ordine confermato', EDU active, one payment", async () => {
    const { user, cookie } = await signedInCustomer(services, database.db);
    const orderId = await openEdu(cookie);
    const form = (await get(checkoutRoute, `/checkout/${orderId}/`, { order: orderId }, cookie)) as {
      order: { status: string; totalCents: number; customer: { firstname: string } };
    };
    expect(form.order).toMatchObject({ status: "new", totalCents: 450, customer: { firstname: "Maria" } });

    const paid = await thrownResponse(pay(orderId, GOOD_FORM, cookie) as Promise<unknown>);
    const back = new URL(paid.headers.get("location")!, "http://localhost:3000");
    expect(back.pathname).toBe(`/checkout/${orderId}/`);
    expect(back.searchParams.get("redirect_status")).toBe("succeeded");
    expect(back.searchParams.get("setup_intent")).toMatch(/^sbx_seti_/);

    const after = (await get(checkoutRoute, back.pathname + back.search, { order: orderId }, cookie)) as {
      order: { status: string };
    };
    expect(after.order.status).toBe("payed");
    const [payment] = await database.db.select().from(payments).where(eq(payments.orderId, orderId));
    expect(payment).toMatchObject({ amountCents: 450, cardLast4: "4242" });
    expect(await database.db.select().from(entitlements).where(eq(entitlements.userId, user.id))).toHaveLength(1);
    // A second 'Completa l'acquisto' (a resubmitted page) charges nothing more, and says why.
    expect(await pay(orderId, GOOD_FORM, cookie)).toMatchObject({
      init: { status: 409 },
      data: { alert: { text: M.orderAlreadyPaid } },
    });
    expect(await database.db.select().from(payments).where(eq(payments.orderId, orderId))).toHaveLength(1);
  });

  it("with a declined card: back to the form with 'Card Payment Failed' and the provider's message", async () => {
    const { cookie } = await signedInCustomer(services, database.db);
    const orderId = await openEdu(cookie);
    const response = await thrownResponse(
      pay(orderId, { ...GOOD_FORM, cc_number: "4000 0000 0000 9995" }, cookie) as Promise<unknown>,
    );
    const back = new URL(response.headers.get("location")!, "http://localhost:3000");
    // The card was set up, its charge declined: the address does not say the step succeeded.
    expect(back.searchParams.get("redirect_status")).toBe("failed");
    const page = (await get(checkoutRoute, back.pathname + back.search, { order: orderId }, cookie)) as {
      order: { status: string };
      notice: { title: string; text: string; detail: string };
    };
    expect(page.order.status).toBe("new");
    expect(page.notice).toEqual({ title: M.errorTitle, text: M.cardPaymentFailed, detail: SANDBOX_MESSAGES.declined });
  });

  it("with 3-D Secure: the sandbox's page, failed then approved", async () => {
    const { cookie } = await signedInCustomer(services, database.db);
    const orderId = await openEdu(cookie);
    const toBank = await thrownResponse(
      pay(orderId, { ...GOOD_FORM, cc_number: "4000 0025 0000 3155" }, cookie) as Promise<unknown>,
    );
    const bankPath = toBank.headers.get("location")!;
    const setupId = bankPath.split("/")[4]!;
    expect(bankPath).toBe(`/pagamenti/prova/3ds/${setupId}/`);
    expect(await get(sandbox3ds, bankPath, { setup: setupId }, cookie)).toBeNull();
    // Somebody else cannot answer for the customer.
    const stranger = await signedInCustomer(services, database.db);
    expect(
      (
        await thrownResponse(
          post(sandbox3ds, bankPath, { setup: setupId }, { decision: "approve" }, stranger.cookie) as Promise<unknown>,
        )
      ).headers.get("location"),
    ).toBe("/");

    const denied = await thrownResponse(
      post(sandbox3ds, bankPath, { setup: setupId }, { decision: "deny" }, cookie) as Promise<unknown>,
    );
    const back = new URL(denied.headers.get("location")!, "http://localhost:3000");
    expect(back.searchParams.get("redirect_status")).toBe("failed");
    const waiting = (await get(checkoutRoute, back.pathname + back.search, { order: orderId }, cookie)) as {
      order: { status: string };
      notice: { text: string };
    };
    expect(waiting.order.status).toBe("waitforpayment");
    expect(waiting.notice.text).toBe(SANDBOX_MESSAGES.authenticationFailed);

    // The card step waits: only the card is asked again, and this time the bank approves.
    const again = await thrownResponse(
      pay(
        orderId,
        { cc_name: "Maria Rossi", cc_number: "4000 0025 0000 3155", cc_exp: futureExpiry(), cc_csc: "123" },
        cookie,
      ) as Promise<unknown>,
    );
    expect(again.headers.get("location")).toBe(bankPath);
    const approved = await thrownResponse(
      post(sandbox3ds, bankPath, { setup: setupId }, { decision: "approve" }, cookie) as Promise<unknown>,
    );
    expect(new URL(approved.headers.get("location")!, "http://localhost:3000").searchParams.get("redirect_status")).toBe(
      "succeeded",
    );
    expect((await database.db.select().from(orders).where(eq(orders.id, orderId)))[0]!.status).toBe("payed");
  });

  it("applies and removes a discount code with posts, and recomputes the total", async () => {
    await database.db
      .insert(coupons)
      .values({ code: "BENVENUTO", description: "Benvenuto", kind: "amount", amountOffCents: 100 });
    const { cookie } = await signedInCustomer(services, database.db);
    const orderId = await openEdu(cookie);
    const apply = await thrownResponse(
      post(
        checkoutRoute,
        `/checkout/${orderId}/`,
        { order: orderId },
        { intent: "coupon-apply", couponcode: " benvenuto " },
        cookie,
      ) as Promise<unknown>,
    );
    expect(apply.headers.get("location")).toBe(`/checkout/${orderId}/`);
    const view = (await get(checkoutRoute, `/checkout/${orderId}/`, { order: orderId }, cookie)) as {
      order: { couponCode: string; discountCents: number; totalCents: number };
    };
    expect(view.order).toMatchObject({ couponCode: "BENVENUTO", discountCents: 100, totalCents: 350 });
    await thrownResponse(
      post(checkoutRoute, `/checkout/${orderId}/`, { order: orderId }, { intent: "coupon-remove" }, cookie) as Promise<unknown>,
    );
    const removed = (await get(checkoutRoute, `/checkout/${orderId}/`, { order: orderId }, cookie)) as {
      order: { couponCode: null; totalCents: number };
    };
    expect(removed.order).toMatchObject({ couponCode: null, totalCents: 450 });
  });
});
