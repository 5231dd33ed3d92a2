// EDU is sold once (decision 024): an eBook+EDU code (or an operator's grant) that makes EDU active
// while the customer is paying for EDU stops the payment wherever it settles — the card form, the
// 3-D Secure return, 'Verifica il pagamento', the reconciler, the API's checkpaymenthub, Stripe's
// webhook — or, when the charge was already under way, gives the charge back. The order ends
// 'cancelled' and says why, a mail says so, and the customer never holds a subscription beside
// the code's months. Each case activates the code after the payment started: the check where a
// payment starts cannot see it.
import { and, eq, like } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import * as checkoutRouteModule from "#app/routes/checkout/route.tsx";
import * as sandbox3dsRouteModule from "#app/routes/sandbox-3ds.tsx";
import CheckoutPage from "#app/routes/checkout/route.tsx";
import { API_OPERATIONS } from "#server/api/operations/index.ts";
import type { Config } from "#server/config.ts";
import { openDatabase, type DatabaseHandle } from "#server/db/client.ts";
import {
  couponRedemptions,
  coupons,
  entitlements,
  mailOutbox,
  orders,
  paymentAttempts,
  payments,
  products,
  sandboxGatewayObjects,
  subscriptions,
} from "#server/db/schema/index.ts";
import { createLogger } from "#server/logger.ts";
import { grantAccess } from "#server/operators/customers.ts";
import { createServices, type Services } from "#server/services.ts";
import { CHECKOUT_MESSAGES as M } from "#shared/checkout-messages.ts";
import { EDU_PRODUCT_CODE } from "#shared/library-constants.ts";
import { futureExpiry } from "#tests/support/cards.ts";
import { checkoutDetails } from "#tests/support/checkout.ts";
import { START } from "#tests/support/clock.ts";
import { testConfig } from "#tests/support/config.ts";
import { customerPage } from "#tests/support/customer-pages.ts";
import { signedInCustomer } from "#tests/support/customers.ts";
import { createTestDatabase, type TestDatabase } from "#tests/support/database.ts";
import { startFakeStripe, type FakeStripe } from "#tests/support/fake-stripe.ts";
import { decode, render } from "#tests/support/render-page.ts";
import { formPost, thrownResponse } from "#tests/support/requests.ts";
import { callRoute } from "#tests/support/router-context.ts";
import { createTestServices } from "#tests/support/services.ts";

const checkoutRoute = customerPage(checkoutRouteModule);
const sandbox3dsRoute = customerPage(sandbox3dsRouteModule);
const ORIGIN = "http://localhost:3000";
const CARDS = { good: "4242 4242 4242 4242", authentication: "4000 0025 0000 3155", unknown: "4000 0000 0000 0002" };
const CLOSED_SUBJECT = /^Ordine n° NX\S+ annullato: EDU è già attivo$/;

let database: TestDatabase;
let config: Config;
let services: Services;
/** A second instance of the portal on its own pool (PostgreSQL), or the same one (PGlite). */
let secondPool: DatabaseHandle | undefined;
let second: Services;
let clock = START;
let ebookId: string;

beforeAll(async () => {
  database = await createTestDatabase();
  config = testConfig({ PUBLIC_ORIGIN: ORIGIN });
  services = await createTestServices(database, config, { now: () => clock });
  if (database.connection) {
    secondPool = await openDatabase({ ...database.connection, poolMax: 5 });
    second = await createServices({ config, database: secondPool, log: createLogger("silent"), now: () => clock });
  } else {
    second = services;
  }
  const [ebook] = await database.db.select({ id: products.id }).from(products).where(like(products.sku, "EB-%")).limit(1);
  ebookId = ebook!.id;
});
afterAll(async () => {
  if (second !== services) await second.close();
  await services?.close();
  await secondPool?.close();
  await database?.destroy();
});
beforeEach(() => {
  clock = START;
});

const call = (
  route: Parameters<typeof callRoute>[1],
  kind: "loader" | "action",
  request: Request,
  params: Record<string, string>,
) => callRoute({ services, config }, route, kind, request, params);

/** A signed-in student with an EDU order open, its payment started and its card step under way. */
async function payingForEdu(card: string) {
  const customer = await signedInCustomer(services, database.db);
  const userId = customer.user.id;
  const opened = await services.checkout.open(userId, EDU_PRODUCT_CODE);
  if (!opened.ok) throw new Error(`setup: ${opened.reason}`);
  const started = await services.payments.start(userId, opened.orderId, checkoutDetails());
  if (!started.ok) throw new Error(`setup: ${started.reason}`);
  await services.sandbox!.confirmCard(started.setupId, card);
  return { userId, email: customer.user.email!, cookie: customer.cookie, orderId: opened.orderId, setupId: started.setupId };
}

/** An eBook+EDU code activated by the customer (in another tab): 6 months of EDU from now. */
async function activateEbookEdu(userId: string, via: Services = services) {
  const { codes } = await via.library.activation.createBatch({ productId: ebookId, kind: "ebook_edu", label: "Prova", count: 1 });
  const result = await via.library.activation.activate({ userId, ip: "203.0.113.60", code: codes[0]!, now: clock });
  if (!result.ok) throw new Error(`setup: activation ${result.reason}`);
}

async function orderRow(orderId: string) {
  return (await database.db.select().from(orders).where(eq(orders.id, orderId)))[0]!;
}

/** The sandbox's charges of an order. */
async function chargesOf(orderId: string) {
  const rows = await database.db.select().from(sandboxGatewayObjects).where(eq(sandboxGatewayObjects.kind, "charge"));
  return rows
    .map((row) => row.data as { status: string; amountCents: number; refundedCents?: number; metadata: Record<string, string> })
    .filter((data) => data.metadata.order_id === orderId);
}

async function eduGrantsOf(userId: string) {
  return database.db
    .select({ source: entitlements.source, startsAt: entitlements.startsAt, expiresAt: entitlements.expiresAt })
    .from(entitlements)
    .innerJoin(products, eq(products.id, entitlements.productId))
    .where(and(eq(entitlements.userId, userId), eq(products.code, EDU_PRODUCT_CODE)));
}

async function mailsTo(userId: string) {
  await services.jobs.runDue();
  return database.db
    .select({ subject: mailOutbox.subject, text: mailOutbox.text })
    .from(mailOutbox)
    .where(eq(mailOutbox.userId, userId));
}

/** The payment stopped before any charge: the order closed and saying why, nothing charged, EDU the code's only, a mail. */
async function expectStoppedBeforeCharging({ userId, orderId }: { userId: string; orderId: string }) {
  expect(await orderRow(orderId)).toMatchObject({ status: "cancelled", closedReason: "edu_already_active" });
  const [attempt] = await database.db.select().from(paymentAttempts).where(eq(paymentAttempts.orderId, orderId));
  expect(attempt!.status).toBe("canceled");
  expect(await chargesOf(orderId)).toEqual([]);
  expect(await database.db.select().from(payments).where(eq(payments.orderId, orderId))).toEqual([]);
  expect(await database.db.select().from(subscriptions).where(eq(subscriptions.userId, userId))).toEqual([]);
  expect((await eduGrantsOf(userId)).map((g) => g.source)).toEqual(["activation_code"]);
  const mails = (await mailsTo(userId)).filter((m) => CLOSED_SUBJECT.test(m.subject));
  expect(mails).toHaveLength(1);
  expect(mails[0]!.text).toContain("Non ti abbiamo addebitato nulla.");
}

/** What the checkout page shows of the order now (its loader, rendered). */
async function checkoutPage(orderId: string, cookie: string, query = "") {
  const data = (await call(
    checkoutRoute,
    "loader",
    new Request(`${ORIGIN}/checkout/${orderId}/${query}`, { headers: { cookie } }),
    { order: orderId },
  )) as Awaited<ReturnType<typeof checkoutRouteModule.loader>>;
  return { data, text: decode(await render(CheckoutPage, data, `/checkout/${orderId}/`)) };
}

describe("EDU activated while its payment waits: every path that settles stops it, nothing is charged", () => {
  it("the card form: a card the sandbox refused, a code in another tab, then 4242 on the form", async () => {
    const paying = await payingForEdu(CARDS.unknown);
    expect(await orderRow(paying.orderId)).toMatchObject({ status: "waitforpayment" });
    await activateEbookEdu(paying.userId);

    const response = await thrownResponse(
      call(
        checkoutRoute,
        "action",
        formPost(
          `${ORIGIN}/checkout/${paying.orderId}/`,
          { intent: "pay", cc_name: "Maria Rossi", cc_number: CARDS.good, cc_exp: futureExpiry(), cc_csc: "123" },
          paying.cookie,
        ),
        { order: paying.orderId },
      ) as Promise<unknown>,
    );
    expect(response.headers.get("location")).toBe(`/checkout/${paying.orderId}/`);
    await expectStoppedBeforeCharging(paying);
    // The card step was cancelled at the gateway: it can no longer succeed.
    expect(await services.sandbox!.confirmCard(paying.setupId, CARDS.good)).toEqual({ status: "not_pending" });

    const { data, text } = await checkoutPage(paying.orderId, paying.cookie);
    expect(data.order.status).toBe("cancelled");
    expect(text).toContain(M.closedTitle);
    expect(text).toContain(M.eduOrderClosed);
    expect(text).toMatch(/Il tuo accesso a EDU è attivo fino (al|all')\s?\d{2}\/\d{2}\/\d{4}\./);
    expect(text).toContain(M.eduOrderClosedNothingCharged);
  });

  it("the 3-D Secure return: 'Autorizza' after the code was activated", async () => {
    const paying = await payingForEdu(CARDS.authentication);
    await activateEbookEdu(paying.userId);
    const response = await thrownResponse(
      call(
        sandbox3dsRoute,
        "action",
        formPost(`${ORIGIN}/pagamenti/prova/3ds/${paying.setupId}/`, { decision: "approve" }, paying.cookie),
        { setup: paying.setupId },
      ) as Promise<unknown>,
    );
    const back = new URL(response.headers.get("location")!, ORIGIN);
    expect(back.pathname).toBe(`/checkout/${paying.orderId}/`);
    await expectStoppedBeforeCharging(paying);
    const { text } = await checkoutPage(paying.orderId, paying.cookie, back.search);
    expect(text).toContain(M.eduOrderClosed);
  });

  it("'Verifica il pagamento' on the return page", async () => {
    const paying = await payingForEdu(CARDS.authentication);
    await services.sandbox!.authenticate(paying.setupId, true);
    await activateEbookEdu(paying.userId);
    await thrownResponse(
      call(checkoutRoute, "action", formPost(`${ORIGIN}/checkout/${paying.orderId}/`, { intent: "check" }, paying.cookie), {
        order: paying.orderId,
      }) as Promise<unknown>,
    );
    await expectStoppedBeforeCharging(paying);
  });

  it("the reconciler, for a customer who closed the page", async () => {
    const paying = await payingForEdu(CARDS.authentication);
    await services.sandbox!.authenticate(paying.setupId, true);
    await activateEbookEdu(paying.userId);
    await second.payments.reconcile();
    await expectStoppedBeforeCharging(paying);
  });

  it("the API's checkpaymenthub (the app polling with an empty body), with the reason as its message", async () => {
    const paying = await payingForEdu(CARDS.authentication);
    await services.sandbox!.authenticate(paying.setupId, true);
    await activateEbookEdu(paying.userId);
    const check = API_OPERATIONS.find((op) => op.name === "order_checkpaymenthub")!;
    const answer = await check.handle({
      params: { order: paying.orderId, hub: "card" },
      query: undefined,
      body: {},
      caller: { userId: paying.userId, grantId: "grant", clientId: "novalex-app" },
      ip: "203.0.113.60",
      services,
      config,
      log: createLogger("silent"),
    } as never);
    expect(answer).toEqual({ state: "canceled", message: M.eduOrderClosed, setup_intent_client_secret: null });
    await expectStoppedBeforeCharging(paying);
  });

  it("an operator's grant of EDU (customer:grant) while the customer pays", async () => {
    const paying = await payingForEdu(CARDS.authentication);
    await grantAccess({ db: database.db, services, actor: "operator:test" }, paying.email, EDU_PRODUCT_CODE, 3);
    await services.sandbox!.authenticate(paying.setupId, true);
    expect(await services.payments.settleSetup(paying.setupId)).toEqual({ state: "canceled", reason: "edu_already_active" });
    expect(await orderRow(paying.orderId)).toMatchObject({ status: "cancelled", closedReason: "edu_already_active" });
    expect(await chargesOf(paying.orderId)).toEqual([]);
    expect((await eduGrantsOf(paying.userId)).map((g) => g.source)).toEqual(["operator"]);
  });

  it("gives the discount code's use back", async () => {
    await database.db
      .insert(coupons)
      .values({ code: "EDUSCONTO", description: "Prova", kind: "amount", amountOffCents: 50, maxRedemptions: 1 });
    const customer = await signedInCustomer(services, database.db);
    const userId = customer.user.id;
    const opened = await services.checkout.open(userId, EDU_PRODUCT_CODE);
    if (!opened.ok) throw new Error("setup");
    expect(await services.checkout.applyCoupon(userId, opened.orderId, "EDUSCONTO")).toBe(true);
    const started = await services.payments.start(userId, opened.orderId, checkoutDetails());
    if (!started.ok) throw new Error(`setup: ${started.reason}`);
    await services.sandbox!.confirmCard(started.setupId, CARDS.authentication);
    await services.sandbox!.authenticate(started.setupId, true);
    await activateEbookEdu(userId);
    expect(await services.payments.settleSetup(started.setupId)).toMatchObject({ state: "canceled" });
    expect(await database.db.select().from(couponRedemptions).where(eq(couponRedemptions.orderId, opened.orderId))).toEqual([]);
    const [coupon] = await database.db.select().from(coupons).where(eq(coupons.code, "EDUSCONTO"));
    expect(coupon!.redemptions).toBe(0);
  });
});

describe("EDU activated while the charge is under way: the charge is given back", () => {
  it("records the charge, refunds it through the refunds job, opens no subscription, and says so", async () => {
    const paying = await payingForEdu(CARDS.authentication);
    await services.sandbox!.authenticate(paying.setupId, true);
    // The code is activated the moment the bank confirms the charge: after the claim, before the record.
    const gateway = services.sandbox!.gateway;
    const confirmCharge = gateway.confirmCharge.bind(gateway);
    gateway.confirmCharge = async (...args) => {
      const charge = await confirmCharge(...args);
      await activateEbookEdu(paying.userId);
      return charge;
    };
    try {
      expect(await services.payments.settleSetup(paying.setupId)).toEqual({ state: "canceled", reason: "edu_already_active" });
    } finally {
      gateway.confirmCharge = confirmCharge;
    }
    expect(await orderRow(paying.orderId)).toMatchObject({ status: "cancelled", closedReason: "edu_already_active" });
    expect(await database.db.select().from(subscriptions).where(eq(subscriptions.userId, paying.userId))).toEqual([]);
    expect((await eduGrantsOf(paying.userId)).map((g) => g.source)).toEqual(["activation_code"]);

    await services.jobs.runDue();
    const [payment] = await database.db.select().from(payments).where(eq(payments.orderId, paying.orderId));
    expect(payment).toMatchObject({ status: "refunded", amountCents: 450 });
    const charges = await chargesOf(paying.orderId);
    expect(charges).toHaveLength(1);
    expect(charges[0]!.refundedCents).toBe(charges[0]!.amountCents);
    const mails = (await mailsTo(paying.userId)).filter((m) => CLOSED_SUBJECT.test(m.subject));
    expect(mails).toHaveLength(1);
    expect(mails[0]!.text).toMatch(/L'importo di 4,50\s€ addebitato sulla tua carta ti viene rimborsato per intero/);
    // No confirmation of a purchase that did not happen.
    expect((await mailsTo(paying.userId)).some((m) => m.subject.startsWith("Ordine confermato"))).toBe(false);

    const { text } = await checkoutPage(paying.orderId, paying.cookie);
    expect(text).toMatch(/L'importo di 4,50\s€ addebitato sulla tua carta ti viene rimborsato per intero/);
    // The page's check answers as the records say, not 'paid'.
    expect(await services.payments.check(paying.userId, paying.orderId)).toEqual({
      state: "canceled",
      reason: "edu_already_active",
    });
  });
});

describe("EDU activated after the purchase settled: the code's months replace the next charges", () => {
  it("keeps the paid month, moves the next charge after the code's months", async () => {
    const paying = await payingForEdu(CARDS.good);
    expect(await services.payments.settleSetup(paying.setupId)).toEqual({ state: "paid" });
    await activateEbookEdu(paying.userId);
    const [sub] = await database.db.select().from(subscriptions).where(eq(subscriptions.userId, paying.userId));
    expect(sub).toMatchObject({ status: "active", freeMonths: 6, freeBy: "activation_code" });
    await expectNoEduPaidTwice(paying.userId);
  });
});

/**
 * No instant of EDU is both paid for and given free, and no two grants of it overlap: the months a
 * subscription charged and the months a code or an operator gave are disjoint.
 */
async function expectNoEduPaidTwice(userId: string) {
  const grants = (await eduGrantsOf(userId))
    .filter((g) => g.expiresAt && g.expiresAt > g.startsAt)
    .sort((a, b) => a.startsAt.getTime() - b.startsAt.getTime());
  for (let i = 1; i < grants.length; i++) {
    expect(grants[i]!.startsAt.getTime(), JSON.stringify(grants)).toBeGreaterThanOrEqual(grants[i - 1]!.expiresAt!.getTime());
  }
}

describe("the code activated and the payment settled at once, over and over, on two instances", () => {
  // Which one wins is up to the machine; the tests above fix each order. Whatever the order, the
  // customer ends with one source of EDU at a time and no charge kept for months a code gives.
  it("ends every time either paid with the code's months after it, or closed with the money back", async () => {
    for (let round = 0; round < 16; round++) {
      const paying = await payingForEdu(CARDS.authentication);
      await services.sandbox!.authenticate(paying.setupId, true);
      const [a, b] = round % 2 === 0 ? [services, second] : [second, services];
      const settle = () => a.payments.settleSetup(paying.setupId);
      const activate = () => activateEbookEdu(paying.userId, b);
      await Promise.all(round % 4 < 2 ? [activate(), settle()] : [settle(), activate()]);
      await services.payments.reconcile();
      await services.jobs.runDue();

      const order = await orderRow(paying.orderId);
      const charges = await chargesOf(paying.orderId);
      const kept = charges.filter((c) => c.status === "succeeded" && (c.refundedCents ?? 0) < c.amountCents);
      const recorded = await database.db.select().from(payments).where(eq(payments.orderId, paying.orderId));
      const [sub] = await database.db.select().from(subscriptions).where(eq(subscriptions.userId, paying.userId));
      if (order.status === "payed") {
        expect(kept, `round ${round}`).toHaveLength(1);
        expect(recorded.map((p) => p.status)).toEqual(["payed"]);
        // The code's 6 months took the place of the next charges.
        expect(sub, `round ${round}`).toMatchObject({ status: "active", freeMonths: 6 });
      } else {
        expect(order, `round ${round}`).toMatchObject({ status: "cancelled", closedReason: "edu_already_active" });
        expect(kept, `round ${round}`).toEqual([]);
        expect(
          recorded.every((p) => p.status === "refunded"),
          `round ${round}`,
        ).toBe(true);
        expect(sub, `round ${round}`).toBeUndefined();
      }
      await expectNoEduPaidTwice(paying.userId);
    }
  });
});

describe("Stripe's webhook", () => {
  let stripe: FakeStripe;
  let stripeServices: Services;
  beforeAll(async () => {
    stripe = await startFakeStripe();
    stripeServices = await createTestServices(database, testConfig({ PUBLIC_ORIGIN: ORIGIN, ...stripe.env }), {
      now: () => clock,
    });
  });
  afterAll(async () => {
    await stripeServices?.close();
    await stripe?.close();
  });

  it("settles a setup that succeeded after the code was activated: nothing charged at Stripe", async () => {
    const customer = await signedInCustomer(stripeServices, database.db);
    const userId = customer.user.id;
    const opened = await stripeServices.checkout.open(userId, EDU_PRODUCT_CODE);
    if (!opened.ok) throw new Error("setup");
    const started = await stripeServices.payments.start(userId, opened.orderId, checkoutDetails());
    if (!started.ok) throw new Error(`setup: ${started.reason}`);
    await activateEbookEdu(userId, stripeServices);
    stripe.confirmSetup(started.setupId, "pm_card_visa");
    const setup = stripe.setupIntent(started.setupId)!;
    const event = stripe.signedEvent("setup_intent.succeeded", {
      id: setup.id,
      object: "setup_intent",
      metadata: setup.metadata,
    });
    expect((await stripeServices.stripeWebhooks!.handle(Buffer.from(event.payload), event.signature)).status).toBe(200);
    expect(await orderRow(opened.orderId)).toMatchObject({ status: "cancelled", closedReason: "edu_already_active" });
    expect(
      stripe.succeededCharges.filter(
        (id) => (stripe.paymentIntent(id)?.metadata as Record<string, string>).order_id === opened.orderId,
      ),
    ).toEqual([]);
  });
});

describe("before the payment starts", () => {
  it("'Completa l'acquisto' is refused while EDU runs, and the order stays as it was", async () => {
    const customer = await signedInCustomer(services, database.db);
    const opened = await services.checkout.open(customer.user.id, EDU_PRODUCT_CODE);
    if (!opened.ok) throw new Error("setup");
    await activateEbookEdu(customer.user.id);
    expect(await services.payments.start(customer.user.id, opened.orderId, checkoutDetails())).toEqual({
      ok: false,
      reason: "edu_active",
    });
    expect(await orderRow(opened.orderId)).toMatchObject({ status: "new", closedReason: null });
    expect(await database.db.select().from(paymentAttempts).where(eq(paymentAttempts.orderId, opened.orderId))).toEqual([]);
  });
});
