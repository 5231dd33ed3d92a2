// The Stripe gateway with the real `stripe` SDK against a local stand-in of Stripe's API
// (tests/support/fake-stripe.ts), inside the whole portal: card setups and charges with the
// portal's idempotency keys, declines, 3-D Secure on the setup and on the charge, Stripe's own
// failures, and webhooks (signed by the SDK's test helper) applied once whatever their order.
import { count, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gatewayEvents, jobs, orders, paymentCustomers, payments } from "#server/db/schema/index.ts";
import { checkoutDetails } from "#tests/support/checkout.ts";
import { signedInCustomer } from "#tests/support/customers.ts";
import { createTestDatabase, type TestDatabase } from "#tests/support/database.ts";
import { startFakeStripe, type FakeStripe } from "#tests/support/fake-stripe.ts";
import { createStripeGateway, recordedCustomer, stripeClient } from "#server/payments/stripe-gateway.ts";
import { startPortal, type Portal } from "#tests/support/http-app.ts";

let database: TestDatabase;
let stripe: FakeStripe;
let portal: Portal;

beforeAll(async () => {
  database = await createTestDatabase();
  stripe = await startFakeStripe();
  portal = await startPortal(database, {
    ...stripe.env,
  });
});
afterAll(async () => {
  await portal?.close();
  await stripe?.close();
  await database?.destroy();
});

const details = checkoutDetails();

/** A customer's EDU order with its card setup started at Stripe. */
async function startedPayment() {
  const { user } = await signedInCustomer(portal.services, database.db);
  const opened = await portal.services.checkout.open(user.id, "abbonamentoedu");
  if (!opened.ok) throw new Error(opened.reason);
  const started = await portal.services.payments.start(user.id, opened.orderId, details);
  if (!started.ok) throw new Error(started.reason);
  return { userId: user.id, orderId: opened.orderId, setupId: started.setupId, clientSecret: started.clientSecret };
}

async function orderStatus(orderId: string) {
  return (await database.db.select({ status: orders.status }).from(orders).where(eq(orders.id, orderId)))[0]!.status;
}
async function paymentRows(orderId: string) {
  return (await database.db.select({ n: count() }).from(payments).where(eq(payments.orderId, orderId)))[0]!.n;
}
const chargesOf = (orderId: string) =>
  stripe.succeededCharges.filter((id) => (stripe.paymentIntent(id)?.metadata as Record<string, string>).order_id === orderId);

describe("the Stripe gateway", () => {
  it("sets up the card for later charges, charges it once, and records brand and last 4", async () => {
    const { userId, orderId, setupId, clientSecret } = await startedPayment();
    expect(setupId).toMatch(/^seti_/);
    expect(clientSecret).toContain(`${setupId}_secret_`);
    expect(stripe.setupIntent(setupId)).toMatchObject({ usage: "off_session", status: "requires_payment_method" });
    const [customer] = await database.db.select().from(paymentCustomers).where(eq(paymentCustomers.userId, userId));
    expect(customer!.customerRef).toMatch(/^cus_/);

    stripe.confirmSetup(setupId, "pm_card_visa");
    expect(await portal.services.payments.settleSetup(setupId)).toEqual({ state: "paid" });
    expect(await portal.services.payments.check(userId, orderId)).toEqual({ state: "paid" });
    expect(await orderStatus(orderId)).toBe("payed");
    const [payment] = await database.db.select().from(payments).where(eq(payments.orderId, orderId));
    expect(payment).toMatchObject({ gateway: "stripe", amountCents: 450, cardBrand: "visa", cardLast4: "4242" });
    expect(chargesOf(orderId)).toHaveLength(1);
    // Every call that changes something at Stripe carries one of the portal's keys.
    for (const call of stripe.requests.filter((r) => r.method === "POST")) expect(call.idempotencyKey).toMatch(/^portal:/);
  });

  it("reports a decline with the bank's message, and the order can be paid with another card", async () => {
    const { userId, orderId, setupId } = await startedPayment();
    stripe.confirmSetup(setupId, "pm_card_visa_chargeDeclinedInsufficientFunds");
    expect(await portal.services.payments.settleSetup(setupId)).toEqual({
      state: "failed",
      errorMessage: "La carta non ha fondi sufficienti.",
    });
    expect(await orderStatus(orderId)).toBe("new");
    const again = await portal.services.payments.start(userId, orderId, details);
    if (!again.ok) throw new Error(again.reason);
    stripe.confirmSetup(again.setupId, "pm_card_visa");
    expect(await portal.services.payments.settleSetup(again.setupId)).toEqual({ state: "paid" });
    expect(chargesOf(orderId)).toHaveLength(1);
  });

  it("waits while the setup's 3-D Secure fails, and pays once it passes", async () => {
    const { userId, orderId, setupId } = await startedPayment();
    stripe.confirmSetup(setupId, "pm_card_authenticationRequiredOnSetup", { authenticate: false });
    expect(await portal.services.payments.check(userId, orderId)).toEqual({
      state: "requires_customer",
      errorMessage: "Autenticazione non riuscita.",
    });
    stripe.confirmSetup(setupId, "pm_card_authenticationRequiredOnSetup");
    expect(await portal.services.payments.check(userId, orderId)).toEqual({ state: "paid" });
  });

  it("hands a charge that needs the customer's authentication to the browser, then records it", async () => {
    const { userId, orderId, setupId } = await startedPayment();
    stripe.confirmSetup(setupId, "pm_card_authenticationRequired");
    const result = await portal.services.payments.settleSetup(setupId);
    expect(result).toMatchObject({ state: "requires_action" });
    const confirmed = stripe.requests.findLast((r) => /^\/v1\/payment_intents\/pi_[^/]+\/confirm$/.test(r.path))!;
    stripe.authenticateCharge(confirmed.path.split("/")[3]!);
    expect(await portal.services.payments.check(userId, orderId)).toEqual({ state: "paid" });
    expect(await paymentRows(orderId)).toBe(1);
  });

  it("rides out Stripe's own failures: nothing charged twice, the order paid once Stripe answers", async () => {
    const { userId, orderId, setupId } = await startedPayment();
    stripe.confirmSetup(setupId, "pm_card_visa");
    // The charge's confirmation fails more often than the SDK retries: this check gives up, and
    // the attempt stays claimed until its lease runs out.
    stripe.failNextCalls(3, /^\/v1\/payment_intents\/[^/]+\/confirm$/);
    expect(await portal.services.payments.settleSetup(setupId)).toEqual({ state: "pending" });
    expect(await orderStatus(orderId)).toBe("waitforpayment");
    // After the lease, the next check (or the reconciler) goes on with the same keys.
    await database.db.execute(
      `update payment_attempts set lease_until = now() - interval '1 second' where setup_id = '${setupId}'`,
    );
    expect(await portal.services.payments.check(userId, orderId)).toEqual({ state: "paid" });
    expect(chargesOf(orderId)).toHaveLength(1);
    expect(await paymentRows(orderId)).toBe(1);
  });
});

describe("an off-session charge of a saved card (the subscription's months after the first)", () => {
  /** The port itself, on the same stand-in: what the subscription's charges will call. */
  const gateway = () => createStripeGateway(database.db, stripeClient({ secretKey: stripe.secretKey, apiBase: stripe.apiBase }));

  it("charges the card set up at checkout without the customer, once per key", async () => {
    const { setupId } = await startedPayment();
    stripe.confirmSetup(setupId, "pm_card_visa");
    const input = { setupId, amountCents: 450, description: "EDU, mese 2", idempotencyKey: `test:${setupId}:2`, metadata: {} };
    const { id } = await gateway().createCharge(input);
    expect((await gateway().createCharge(input)).id).toBe(id);
    const charged = await gateway().confirmCharge(id, { offSession: true, idempotencyKey: `test:${setupId}:2:confirm` });
    expect(charged).toMatchObject({ id, status: "succeeded", amountCents: 450 });
    // The same confirmation again is Stripe's replay of the first answer: no second charge.
    expect(await gateway().confirmCharge(id, { offSession: true, idempotencyKey: `test:${setupId}:2:confirm` })).toMatchObject({
      status: "succeeded",
    });
    expect(stripe.succeededCharges.filter((charge) => charge === id)).toHaveLength(1);
    expect(stripe.requests.find((r) => r.path === `/v1/payment_intents/${id}/confirm`)?.idempotencyKey).toBe(
      `test:${setupId}:2:confirm`,
    );
  });

  it("fails, with the bank's message, when the bank wants the customer to authenticate", async () => {
    const { setupId } = await startedPayment();
    stripe.confirmSetup(setupId, "pm_card_authenticationRequired");
    const { id } = await gateway().createCharge({
      setupId,
      amountCents: 450,
      description: "EDU",
      idempotencyKey: `test:${setupId}`,
      metadata: {},
    });
    expect(await gateway().confirmCharge(id, { offSession: true, idempotencyKey: `test:${setupId}:confirm` })).toMatchObject({
      status: "failed",
      errorMessage: "Serve l'autenticazione della carta.",
    });
  });
});

describe("Stripe's webhooks", () => {
  async function deliver(event: { payload: string; signature: string }) {
    const response = await fetch(`${portal.origin}/api/webhooks/stripe`, {
      method: "POST",
      headers: { "content-type": "application/json", "stripe-signature": event.signature },
      body: event.payload,
    });
    return response.status;
  }

  it("applies each event once, delivered three times in shuffled order, and refuses forged and stale ones", async () => {
    const { orderId, setupId } = await startedPayment();
    stripe.confirmSetup(setupId, "pm_card_visa");
    const setup = stripe.signedEvent("setup_intent.succeeded", { id: setupId, object: "setup_intent" });
    const unknown = stripe.signedEvent("payment_intent.succeeded", { id: "pi_unknown", object: "payment_intent" });
    const other = stripe.signedEvent("customer.created", { id: "cus_x", object: "customer" });
    const deliveries = [setup, unknown, other, setup, other, unknown, setup, unknown, other].sort(() => 0.5 - Math.random());
    for (const event of deliveries) expect(await deliver(event)).toBe(200);

    expect(await orderStatus(orderId)).toBe("payed");
    expect(chargesOf(orderId)).toHaveLength(1);
    expect(await paymentRows(orderId)).toBe(1);
    const recorded = await database.db.select().from(gatewayEvents);
    for (const event of [setup, unknown, other]) expect(recorded.filter((r) => r.eventId === event.id)).toHaveLength(1);

    // Forged: a body that is not what was signed; stale: signed ten minutes ago.
    const forged = {
      ...stripe.signedEvent("setup_intent.succeeded", { id: setupId }),
      payload: setup.payload.replace("setup_intent", "setup_intentX"),
    };
    const stale = stripe.signedEvent(
      "setup_intent.succeeded",
      { id: setupId },
      { timestamp: Math.floor(Date.now() / 1000) - 600 },
    );
    const unsigned = { payload: setup.payload, signature: "" };
    for (const event of [forged, stale, unsigned]) expect(await deliver(event)).toBe(400);
    expect(await database.db.select().from(gatewayEvents)).toHaveLength(recorded.length);
  });
});

describe("the Stripe Customer", () => {
  it("is made once per account however many card setups start at once", async () => {
    const { user } = await signedInCustomer(portal.services, database.db);
    const gateway = createStripeGateway(database.db, stripeClient({ secretKey: stripe.secretKey, apiBase: stripe.apiBase }));
    const customer = { userId: user.id, email: user.email!, name: "Maria Rossi" };
    await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        gateway.createSetup({ customer, idempotencyKey: `race:${user.id}:${i}`, metadata: {} }),
      ),
    );
    const made = stripe.customers().filter((c) => (c.metadata as Record<string, string>).portal_user_id === user.id);
    expect(made).toHaveLength(1);
    const rows = await database.db.select().from(paymentCustomers).where(eq(paymentCustomers.userId, user.id));
    expect(rows.map((row) => row.customerRef)).toEqual([made[0]!.id]);
  });
});

describe("an erased account at Stripe", () => {
  it("deletes the customer and its cards once the account is deleted, retrying while Stripe fails", async () => {
    const { userId, orderId, setupId } = await startedPayment();
    stripe.confirmSetup(setupId, "pm_card_visa");
    expect(await portal.services.payments.settleSetup(setupId)).toEqual({ state: "paid" });
    const customerRef = (await recordedCustomer(database.db, userId))!;
    expect(stripe.customers().map((c) => c.id)).toContain(customerRef);

    expect(await portal.services.profiles.deleteAccount(userId)).toEqual({ ok: true });
    // Stripe answers errors to more than the SDK's retries: the job waits for the runner's next try.
    stripe.failNextCalls(3, /^\/v1\/customers\//);
    await portal.services.jobs.runDue();
    expect(stripe.customers().map((c) => c.id)).toContain(customerRef);
    const [waiting] = await database.db
      .select()
      .from(jobs)
      .where(eq(jobs.key, `payment-customer-erasure:${userId}`));
    expect(waiting).toMatchObject({ status: "queued", attempts: 1 });

    await database.db
      .update(jobs)
      .set({ runAt: new Date(0) })
      .where(eq(jobs.id, waiting!.id));
    await portal.services.jobs.runDue();
    expect(stripe.customers().map((c) => c.id)).not.toContain(customerRef);
    expect(await database.db.select().from(paymentCustomers).where(eq(paymentCustomers.userId, userId))).toEqual([]);
    const [done] = await database.db.select().from(jobs).where(eq(jobs.id, waiting!.id));
    expect(done).toMatchObject({ status: "done", attempts: 2 });

    // The saved card can no longer be charged, and deleting again is harmless.
    const gateway = createStripeGateway(database.db, stripeClient({ secretKey: stripe.secretKey, apiBase: stripe.apiBase }));
    await expect(
      gateway.createCharge({
        setupId,
        amountCents: 450,
        description: "dopo",
        idempotencyKey: `after-erasure:${orderId}`,
        metadata: {},
      }),
    ).rejects.toThrow(/No such customer/);
    await gateway.deleteCustomer(userId);
  });
});
