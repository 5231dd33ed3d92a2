// The checkout's card step on Stripe, as the pages run it, with the real `stripe` SDK against the
// local stand-in of Stripe's API: with JavaScript the action answers the SetupIntent's client
// secret for Stripe.js (after the form's checks, the card widget's last); without it, Stripe's
// hosted page in setup mode and its return through /pagamenti/carta/ritorno/, which only the
// session's own customer gets through; a customer who never comes back is settled by the webhook.
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as checkoutRouteModule from "#app/routes/checkout/route.tsx";
import * as createCheckoutRouteModule from "#app/routes/create-checkout.tsx";
import * as cardReturnRouteModule from "#app/routes/stripe-card-return.tsx";
import { CHECKOUT_MESSAGES as M } from "#shared/checkout-messages.ts";
import type { Config } from "#server/config.ts";
import { orders, paymentAttempts, payments } from "#server/db/schema/index.ts";
import type { Services } from "#server/services.ts";
import { testConfig } from "#tests/support/config.ts";
import { signedInCustomer } from "#tests/support/customers.ts";
import { createTestDatabase, type TestDatabase } from "#tests/support/database.ts";
import { startFakeStripe, type FakeStripe } from "#tests/support/fake-stripe.ts";
import { formPost, thrownResponse } from "#tests/support/requests.ts";
import { callRoute } from "#tests/support/router-context.ts";
import { createTestServices } from "#tests/support/services.ts";
import { customerPage } from "#tests/support/customer-pages.ts";

// The customer's pages run behind the customer layout's sign-in.
const checkoutRoute = customerPage(checkoutRouteModule);
const createCheckoutRoute = customerPage(createCheckoutRouteModule);
const cardReturnRoute = customerPage(cardReturnRouteModule);

const ORIGIN = "http://localhost:3000";

let database: TestDatabase;
let stripe: FakeStripe;
let config: Config;
let services: Services;

beforeAll(async () => {
  database = await createTestDatabase();
  stripe = await startFakeStripe();
  config = testConfig({
    PUBLIC_ORIGIN: ORIGIN,
    ...stripe.env,
  });
  services = await createTestServices(database, config);
});
afterAll(async () => {
  services?.close();
  await stripe?.close();
  await database?.destroy();
});

type Route = Parameters<typeof callRoute>[1];
const call = (route: Route, kind: "loader" | "action", request: Request, params: Record<string, string>) =>
  callRoute({ services, config }, route, kind, request, params);
const get = (route: Route, url: string, params: Record<string, string>, cookie: string) =>
  call(route, "loader", new Request(new URL(url, ORIGIN), { headers: { cookie } }), params);
const post = (route: Route, url: string, params: Record<string, string>, fields: Record<string, string>, cookie: string) =>
  call(route, "action", formPost(new URL(url, ORIGIN).href, fields, cookie), params);

const FORM = {
  intent: "pay",
  customer_firstname: "Maria",
  customer_lastname: "Rossi",
  customer_email: "maria.rossi@example.it",
  terms_sales: "1",
  terms_cancel: "1",
  paymenthub: "card",
};
/** What the page adds when its card widget (Stripe.js) is there. */
const WIDGET = { card_step: "elements", card_state: "ready" };

async function eduOrder() {
  const customer = await signedInCustomer(services, database.db);
  const response = await thrownResponse(
    post(
      createCheckoutRoute,
      "/create-checkout/abbonamentoedu/",
      { productcode: "abbonamentoedu" },
      {},
      customer.cookie,
    ) as Promise<unknown>,
  );
  const orderId = response.headers.get("location")!.split("/")[2]!;
  return { ...customer, orderId };
}

const pay = (orderId: string, fields: Record<string, string>, cookie: string) =>
  post(checkoutRoute, `/checkout/${orderId}/`, { order: orderId }, fields, cookie);

async function orderStatus(orderId: string) {
  return (await database.db.select({ status: orders.status }).from(orders).where(eq(orders.id, orderId)))[0]!.status;
}
async function attemptOf(orderId: string) {
  return (await database.db.select().from(paymentAttempts).where(eq(paymentAttempts.orderId, orderId)))[0]!;
}

/** 'Completa l'acquisto' without JavaScript: the address of Stripe's hosted page, and its session. */
async function toHostedPage(orderId: string, cookie: string) {
  const response = await thrownResponse(pay(orderId, FORM, cookie) as Promise<unknown>);
  expect(response.status).toBe(303);
  const url = new URL(response.headers.get("location")!);
  expect(url.origin).toBe("https://checkout.stripe.com");
  const sessionId = url.pathname.split("/").pop()!;
  return { url, sessionId, session: stripe.checkoutSession(sessionId)! };
}

/** The customer's choice on the hosted page (served by the stand-in, as checkout.stripe.com): where it sends them. */
async function onHostedPage(url: URL, fields: Record<string, string>) {
  const response = await fetch(`${stripe.apiBase}${url.pathname}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields),
    redirect: "manual",
  });
  return response.headers.get("location");
}

describe("the checkout with Stripe, with JavaScript", () => {
  it("gives the page Stripe.js's key, and after the checks the client secret and the return address", async () => {
    const { orderId, cookie } = await eduOrder();
    const page = (await get(checkoutRoute, `/checkout/${orderId}/`, { order: orderId }, cookie)) as {
      stripeKey: string;
      sandbox: boolean;
    };
    expect(page).toMatchObject({ stripeKey: "pk_test_fake", sandbox: false });

    const answer = (await pay(orderId, { ...FORM, ...WIDGET }, cookie)) as {
      cardStep: { clientSecret: string; returnUrl: string };
    };
    const attempt = await attemptOf(orderId);
    expect(answer.cardStep).toEqual({
      clientSecret: stripe.setupIntent(attempt.setupId!)!.client_secret,
      returnUrl: `${ORIGIN}/checkout/${orderId}/`,
    });
    expect(await orderStatus(orderId)).toBe("waitforpayment");
    // No card field of the sandbox was asked for, and none is stored: the card is Stripe.js's.
    expect(attempt.status).toBe("awaiting_customer");
  });

  it("says the card widget is not ready only after the form's own checks, and starts nothing", async () => {
    const { orderId, cookie } = await eduOrder();
    const steps: [Record<string, string>, string][] = [
      [{ ...FORM, customer_firstname: "", card_step: "elements", card_state: "provider_loading" }, M.firstnameMissing],
      [{ ...FORM, card_step: "elements", card_state: "provider_loading" }, M.cardProviderNotReady],
      [{ ...FORM, card_step: "elements", card_state: "element_loading" }, M.cardElementNotReady],
      [{ ...FORM, card_step: "elements", card_state: "failed" }, M.cardProviderFailed],
      [{ ...FORM, card_step: "elements", card_state: "whatever" }, M.cardProviderNotReady],
    ];
    for (const [fields, message] of steps) {
      const result = (await pay(orderId, fields, cookie)) as { init: { status: number }; data: { alert: { text: string } } };
      expect(result.init.status, message).toBe(400);
      expect(result.data.alert.text).toBe(message);
    }
    expect(await orderStatus(orderId)).toBe("new");
  });

  it("after a card refused at setup, answers the same setup's secret for another card, and pays", async () => {
    const { orderId, cookie, user } = await eduOrder();
    const first = (await pay(orderId, { ...FORM, ...WIDGET }, cookie)) as { cardStep: { clientSecret: string } };
    const setupId = first.cardStep.clientSecret.split("_secret_")[0]!;
    // What Stripe.js does with the card typed in the Payment Element: it is declined.
    const declined = await fetch(`${stripe.apiBase}/v1/setup_intents/${setupId}/confirm`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        key: stripe.publishableKey,
        client_secret: first.cardStep.clientSecret,
        payment_method: "pm_card_chargeDeclined",
      }),
    });
    expect(declined.status).toBe(402);
    expect(((await declined.json()) as { error: { message: string } }).error.message).toBe("La carta è stata rifiutata.");

    // The page comes back with the card step waiting: its widget posts only the card's state.
    const again = (await pay(orderId, { intent: "pay", ...WIDGET }, cookie)) as { cardStep: { clientSecret: string } };
    expect(again.cardStep.clientSecret).toBe(first.cardStep.clientSecret);
    stripe.confirmSetup(setupId, "pm_card_visa");
    expect(await services.payments.check(user.id, orderId)).toEqual({ state: "paid" });
  });

  it("refuses the publishable key anything but an intent whose client secret it holds", async () => {
    const { orderId, cookie } = await eduOrder();
    const { cardStep } = (await pay(orderId, { ...FORM, ...WIDGET }, cookie)) as { cardStep: { clientSecret: string } };
    const setupId = cardStep.clientSecret.split("_secret_")[0]!;
    const read = (secret: string) =>
      fetch(
        `${stripe.apiBase}/v1/setup_intents/${setupId}?${new URLSearchParams({ key: stripe.publishableKey, client_secret: secret })}`,
      );
    expect((await read(cardStep.clientSecret)).status).toBe(200);
    expect((await read(`${setupId}_secret_wrong`)).status).toBe(404);
    const customers = await fetch(`${stripe.apiBase}/v1/customers`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ key: stripe.publishableKey, email: "x@example.it" }),
    });
    expect(customers.status).toBe(403);
  });
});

describe("the checkout with Stripe, without JavaScript: the hosted page", () => {
  it("goes to a session in setup mode for the customer and the attempt, and back to the same checkout", async () => {
    const { orderId, cookie, user } = await eduOrder();
    const { url, sessionId, session } = await toHostedPage(orderId, cookie);
    const attempt = await attemptOf(orderId);
    const own = stripe.setupIntent(attempt.setupId!)!;
    expect(session).toMatchObject({
      mode: "setup",
      status: "open",
      currency: "eur",
      customer: own.customer,
      locale: "it",
      success_url: `${ORIGIN}/pagamenti/carta/ritorno/?session_id={CHECKOUT_SESSION_ID}`,
      cancel_url: `${ORIGIN}/checkout/${orderId}/`,
      setupIntentData: { metadata: { order_id: orderId, attempt_id: attempt.id } },
    });

    // 'Annulla' comes back to the checkout, where the card step waits; 'Paga' after it completes.
    expect(await onHostedPage(url, { action: "cancel" })).toBe(`${ORIGIN}/checkout/${orderId}/`);
    const back = new URL((await onHostedPage(url, { action: "pay", card: "4242 4242 4242 4242" }))!);
    expect(back.href).toBe(`${ORIGIN}/pagamenti/carta/ritorno/?session_id=${sessionId}`);

    const response = await thrownResponse(get(cardReturnRoute, back.pathname + back.search, {}, cookie) as Promise<unknown>);
    const sessionSetup = stripe.checkoutSession(sessionId)!.setup_intent as string;
    expect(response.headers.get("location")).toBe(`/checkout/${orderId}/?setup_intent=${sessionSetup}&redirect_status=succeeded`);
    // The attempt now has the session's setup; the one 'Completa l'acquisto' made is cancelled.
    expect((await attemptOf(orderId)).setupId).toBe(sessionSetup);
    expect(stripe.setupIntent(own.id as string)!.status).toBe("canceled");
    // Coming back twice changes nothing.
    const twice = await thrownResponse(get(cardReturnRoute, back.pathname + back.search, {}, cookie) as Promise<unknown>);
    expect(twice.headers.get("location")).toBe(response.headers.get("location"));

    // The return is the checkout's usual one: the setup read from Stripe, then the check (a POST) pays.
    const page = (await get(checkoutRoute, response.headers.get("location")!, { order: orderId }, cookie)) as {
      returned: { setupStatus: string };
    };
    expect(page.returned).toMatchObject({ setupStatus: "succeeded" });
    expect(
      await thrownResponse(
        post(checkoutRoute, `/checkout/${orderId}/`, { order: orderId }, { intent: "check" }, cookie) as Promise<unknown>,
      ),
    ).toBeInstanceOf(Response);
    expect(await orderStatus(orderId)).toBe("payed");
    const [payment] = await database.db.select().from(payments).where(eq(payments.orderId, orderId));
    expect(payment).toMatchObject({ gateway: "stripe", amountCents: 450, cardLast4: "4242" });
    expect(await services.payments.check(user.id, orderId)).toEqual({ state: "paid" });
  });

  it("sends anyone but the session's customer, and any session that is not a completed one, to /", async () => {
    const owner = await eduOrder();
    const { url, sessionId } = await toHostedPage(owner.orderId, owner.cookie);
    const other = await eduOrder();
    const returnOf = (id: string, cookie: string) =>
      thrownResponse(
        get(cardReturnRoute, `/pagamenti/carta/ritorno/?session_id=${encodeURIComponent(id)}`, {}, cookie) as Promise<unknown>,
      );

    // Still open: not paid on the page.
    expect((await returnOf(sessionId, owner.cookie)).headers.get("location")).toBe("/");
    await onHostedPage(url, { action: "pay", card: "4242424242424242" });
    // Another customer, even one with a Stripe customer and an order of their own.
    await toHostedPage(other.orderId, other.cookie);
    for (const [id, cookie] of [
      [sessionId, other.cookie],
      ["cs_test_unknown", owner.cookie],
      ["not-a-session", owner.cookie],
      ["", owner.cookie],
    ] as const) {
      expect((await returnOf(id, cookie)).headers.get("location"), id).toBe("/");
    }
    // Nothing of the owner's attempt changed.
    expect((await attemptOf(owner.orderId)).setupId).not.toBe(stripe.checkoutSession(sessionId)!.setup_intent);
    expect((await returnOf(sessionId, owner.cookie)).headers.get("location")).toMatch(
      new RegExp(`^/checkout/${owner.orderId}/\\?setup_intent=seti_`),
    );
  });

  it("shows a card declined on the hosted page there, and never leaves it", async () => {
    const { orderId, cookie } = await eduOrder();
    const { url } = await toHostedPage(orderId, cookie);
    const response = await fetch(`${stripe.apiBase}${url.pathname}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ action: "pay", card: "4000 0000 0000 0002" }),
      redirect: "manual",
    });
    expect(response.status).toBe(402);
    expect(await response.text()).toContain("La carta è stata rifiutata.");
    expect(await orderStatus(orderId)).toBe("waitforpayment");
  });

  it("adopts the session's setup once when returns and webhooks come at once, and pays once", async () => {
    const { orderId, cookie } = await eduOrder();
    const { url, sessionId } = await toHostedPage(orderId, cookie);
    const own = (await attemptOf(orderId)).setupId!;
    const back = new URL((await onHostedPage(url, { action: "pay", card: "4242 4242 4242 4242" }))!);
    const setup = stripe.setupIntent(stripe.checkoutSession(sessionId)!.setup_intent as string)!;
    const event = stripe.signedEvent("setup_intent.succeeded", {
      id: setup.id,
      object: "setup_intent",
      metadata: setup.metadata,
    });
    const cancels = () => stripe.requests.filter((r) => r.path === `/v1/setup_intents/${own}/cancel`).length;

    const [returns, hooks] = await Promise.all([
      Promise.all(
        Array.from({ length: 5 }, () =>
          thrownResponse(get(cardReturnRoute, back.pathname + back.search, {}, cookie) as Promise<unknown>),
        ),
      ),
      Promise.all(Array.from({ length: 3 }, () => services.stripeWebhooks!.handle(Buffer.from(event.payload), event.signature))),
    ]);
    for (const response of returns) {
      expect(response.headers.get("location")).toBe(`/checkout/${orderId}/?setup_intent=${setup.id}&redirect_status=succeeded`);
    }
    for (const answer of hooks) expect(answer.status).toBe(200);
    expect((await attemptOf(orderId)).setupId).toBe(setup.id);
    expect(cancels()).toBe(1);
    expect(await orderStatus(orderId)).toBe("payed");
    expect(await database.db.select().from(payments).where(eq(payments.orderId, orderId))).toHaveLength(1);
    expect(
      stripe.succeededCharges.filter((id) => (stripe.paymentIntent(id)?.metadata as Record<string, string>).order_id === orderId),
    ).toHaveLength(1);
  });

  it("pays a customer who never came back from the hosted page, by the webhook", async () => {
    const { orderId, cookie } = await eduOrder();
    const { url, sessionId } = await toHostedPage(orderId, cookie);
    await onHostedPage(url, { action: "pay", card: "4242 4242 4242 4242" });
    const setup = stripe.setupIntent(stripe.checkoutSession(sessionId)!.setup_intent as string)!;
    const event = stripe.signedEvent("setup_intent.succeeded", {
      id: setup.id,
      object: "setup_intent",
      metadata: setup.metadata,
    });
    const answer = await services.stripeWebhooks!.handle(Buffer.from(event.payload), event.signature);
    expect(answer.status).toBe(200);
    expect(await orderStatus(orderId)).toBe("payed");
    expect((await attemptOf(orderId)).setupId).toBe(setup.id);
  });
});
