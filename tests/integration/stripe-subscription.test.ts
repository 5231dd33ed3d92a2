// The EDU subscription on Stripe, with the real `stripe` SDK against the local stand-in of
// Stripe's API: the months charged off-session with the card the checkout saved, each try with
// keys of its own; a card whose bank wants every charge authenticated fails off-session, asks the
// customer by mail, and is paid on the bank's page through 'Paga ora'; a charge left waiting on
// that page is cancelled at Stripe before its try is recorded; 'Aggiorna carta' with a new
// SetupIntent, and on Stripe's hosted page.
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Config } from "#server/config.ts";
import { mailOutbox, paymentAttempts, payments, subscriptionPeriods, subscriptions } from "#server/db/schema/index.ts";
import type { Services } from "#server/services.ts";
import { EDU_PRODUCT_CODE } from "#shared/library-constants.ts";
import { SUBSCRIPTION_PATH } from "#shared/links.ts";
import { periodStart } from "#shared/subscription.ts";
import { checkoutDetails } from "#tests/support/checkout.ts";
import { testConfig } from "#tests/support/config.ts";
import { signedInCustomer } from "#tests/support/customers.ts";
import { createTestDatabase, type TestDatabase } from "#tests/support/database.ts";
import { startFakeStripe, type FakeStripe, type TestMethod } from "#tests/support/fake-stripe.ts";
import { createTestServices } from "#tests/support/services.ts";

const ORIGIN = "http://localhost:3000";
const RETURN_URL = `${ORIGIN}${SUBSCRIPTION_PATH}`;

let database: TestDatabase;
let stripe: FakeStripe;
let config: Config;
let services: Services;
let clock = new Date();
const now = () => clock;

beforeAll(async () => {
  database = await createTestDatabase();
  stripe = await startFakeStripe();
  config = testConfig({
    PUBLIC_ORIGIN: ORIGIN,
    ...stripe.env,
  });
  services = await createTestServices(database, config, { now });
});
afterAll(async () => {
  await services?.close();
  await stripe?.close();
  await database?.destroy();
});

/** EDU bought at the checkout with a test card (Stripe.js's part played by the stand-in). */
async function subscriber(method: TestMethod = "pm_card_visa") {
  clock = new Date();
  const { user } = await signedInCustomer(services, database.db);
  const opened = await services.checkout.open(user.id, EDU_PRODUCT_CODE);
  if (!opened.ok) throw new Error(opened.reason);
  const started = await services.payments.start(user.id, opened.orderId, checkoutDetails());
  if (!started.ok) throw new Error(started.reason);
  stripe.confirmSetup(started.setupId, method);
  let settled = await services.payments.settleSetup(started.setupId);
  if (settled.state === "requires_action") {
    // The bank asks the customer present at the checkout: Stripe.js's handleNextAction.
    const [attempt] = await database.db.select().from(paymentAttempts).where(eq(paymentAttempts.setupId, started.setupId));
    stripe.authenticateCharge(attempt!.chargeId!);
    clock = new Date(clock.getTime() + 1000);
    settled = await services.payments.settleSetup(started.setupId);
  }
  if (settled.state !== "paid") throw new Error(`checkout: ${settled.state}`);
  const [sub] = await database.db.select().from(subscriptions).where(eq(subscriptions.userId, user.id));
  return { userId: user.id, sub: sub! };
}
async function monthOf(subscriptionId: string, number: number) {
  const rows = await database.db.select().from(subscriptionPeriods).where(eq(subscriptionPeriods.subscriptionId, subscriptionId));
  return rows.find((row) => row.number === number)!;
}
async function paymentsOf(userId: string) {
  return database.db.select().from(payments).where(eq(payments.userId, userId));
}
async function statusOf(subscriptionId: string) {
  const [row] = await database.db
    .select({ status: subscriptions.status })
    .from(subscriptions)
    .where(eq(subscriptions.id, subscriptionId));
  return row!.status;
}

describe("EDU on Stripe", () => {
  it("charges month 2 off-session with the saved card, once, with the try's own keys", async () => {
    const { userId, sub } = await subscriber();
    clock = periodStart(sub.anchorAt, 2);
    await Promise.all([services.jobs.runDue(), services.jobs.runDue()]);
    const month = await monthOf(sub.id, 2);
    expect(month.status).toBe("paid");
    const paid = await paymentsOf(userId);
    expect(paid).toHaveLength(2);
    const charge = paid.find((p) => p.subscriptionPeriodId === month.id)!.chargeId;
    expect(stripe.paymentIntent(charge)).toMatchObject({ status: "succeeded", amount: 450, offSession: true });
    const keys = stripe.requests.filter(
      (r) => r.path.startsWith(`/v1/payment_intents/${charge}`) || r.idempotencyKey?.includes(month.id),
    );
    expect(keys.map((r) => r.idempotencyKey).filter(Boolean)).toEqual([
      `portal:month-charge-create:${month.id}:1`,
      `portal:month-charge-confirm:${month.id}:1`,
    ]);
    expect(stripe.succeededCharges.filter((id) => id === charge)).toHaveLength(1);
  });

  it("a bank that wants the customer: fails off-session, mails them, and is paid on the bank's page with 'Paga ora'", async () => {
    const { userId, sub } = await subscriber("pm_card_authenticationRequired");
    clock = periodStart(sub.anchorAt, 2);
    await services.jobs.runDue();
    expect(await statusOf(sub.id)).toBe("past_due");
    const mails = await database.db.select().from(mailOutbox).where(eq(mailOutbox.userId, userId));
    expect(mails.map((m) => m.subject)).toContain("Conferma il pagamento del tuo abbonamento EDU");

    const outcome = await services.subscriptions.payNow(userId, RETURN_URL);
    if (outcome?.state !== "requires_action") throw new Error(`expected the bank's page, got ${outcome?.state}`);
    expect(outcome.redirectUrl).toMatch(/\/3ds\/pay\/pi_/);
    // The customer approves on the bank's page, which sends them back with the charge's id.
    const answer = await fetch(outcome.redirectUrl, {
      method: "POST",
      body: new URLSearchParams({ action: "approve" }),
      redirect: "manual",
    });
    const back = new URL(answer.headers.get("location")!);
    expect(`${back.origin}${back.pathname}`).toBe(RETURN_URL);
    const chargeId = back.searchParams.get("payment_intent")!;
    expect(await services.subscriptions.finishPayment(userId, chargeId)).toEqual({ state: "paid" });
    expect(await services.subscriptions.finishPayment(userId, chargeId)).toEqual({ state: "paid" });
    expect(await statusOf(sub.id)).toBe("active");
    expect(await paymentsOf(userId)).toHaveLength(2);
    // Nobody else's.
    const stranger = await signedInCustomer(services, database.db);
    expect(await services.subscriptions.finishPayment(stranger.user.id, chargeId)).toBeNull();
  });

  it("a customer who authenticated on the bank's page but never came back: Stripe's event records the month", async () => {
    const { userId, sub } = await subscriber("pm_card_authenticationRequired");
    clock = periodStart(sub.anchorAt, 2);
    await services.jobs.runDue();
    const outcome = await services.subscriptions.payNow(userId, RETURN_URL);
    if (outcome?.state !== "requires_action") throw new Error("expected the bank's page");
    await fetch(outcome.redirectUrl, { method: "POST", body: new URLSearchParams({ action: "approve" }), redirect: "manual" });
    const chargeId = /\/3ds\/pay\/(pi_[^/?]+)/.exec(outcome.redirectUrl)![1]!;
    const event = stripe.signedEvent("payment_intent.succeeded", { id: chargeId, object: "payment_intent" });
    for (let i = 0; i < 2; i++) {
      expect(await services.stripeWebhooks!.handle(Buffer.from(event.payload), event.signature)).toMatchObject({ status: 200 });
    }
    expect(await statusOf(sub.id)).toBe("active");
    expect(await paymentsOf(userId)).toHaveLength(2);
  });

  it("a charge left waiting on the bank's page is cancelled at Stripe before the try is recorded as failed", async () => {
    const { userId, sub } = await subscriber("pm_card_authenticationRequired");
    clock = periodStart(sub.anchorAt, 2);
    await services.jobs.runDue();
    const outcome = await services.subscriptions.payNow(userId, RETURN_URL);
    if (outcome?.state !== "requires_action") throw new Error("expected the bank's page");
    const chargeId = /\/3ds\/pay\/(pi_[^/?]+)/.exec(outcome.redirectUrl)![1]!;
    clock = new Date(clock.getTime() + 31 * 60_000);
    await services.jobs.runDue();
    expect(stripe.paymentIntent(chargeId)).toMatchObject({ status: "canceled" });
    const late = await fetch(outcome.redirectUrl, {
      method: "POST",
      body: new URLSearchParams({ action: "approve" }),
      redirect: "manual",
    });
    expect(late.status).toBe(404);
    expect(await paymentsOf(userId)).toHaveLength(1);
    expect(await statusOf(sub.id)).toBe("past_due");
  });

  it("'Aggiorna carta': a new SetupIntent for the customer; once confirmed the months charge that card", async () => {
    const { userId, sub } = await subscriber();
    const started = await services.subscriptions.startCardUpdate(userId, {
      email: "maria.rossi@example.it",
      name: "Maria Rossi",
    });
    if (!started.ok) throw new Error(started.reason);
    expect(stripe.setupIntent(started.setupId)).toMatchObject({
      usage: "off_session",
      customer: stripe.setupIntent(sub.setupId)!.customer,
    });
    expect(await services.subscriptions.finishCardUpdate(userId, started.setupId)).toMatchObject({ state: "requires_customer" });
    stripe.confirmSetup(started.setupId, "pm_card_visa");
    expect(await services.subscriptions.finishCardUpdate(userId, started.setupId)).toEqual({ state: "updated", charge: null });
    clock = periodStart(sub.anchorAt, 2);
    await services.jobs.runDue();
    const [updated] = await database.db.select().from(subscriptions).where(eq(subscriptions.id, sub.id));
    expect(updated!.setupId).toBe(started.setupId);
    expect(await paymentsOf(userId)).toHaveLength(2);
  });

  it("'Aggiorna carta' without JavaScript: Stripe's hosted page, whose setup the card update adopts (its customer's only)", async () => {
    const { userId, sub } = await subscriber();
    const started = await services.subscriptions.startCardUpdate(userId, {
      email: "maria.rossi@example.it",
      name: "Maria Rossi",
    });
    if (!started.ok) throw new Error(started.reason);
    const page = await services.stripeCardStep!.hostedPage(started.setupId, {
      successUrl: `${ORIGIN}${SUBSCRIPTION_PATH}carta/?session_id={CHECKOUT_SESSION_ID}`,
      cancelUrl: `${ORIGIN}${SUBSCRIPTION_PATH}carta/`,
    });
    // The browser goes to checkout.stripe.com: here, the stand-in's copy of that page.
    const paid = await fetch(page.replace("https://checkout.stripe.com", stripe.apiBase), {
      method: "POST",
      body: new URLSearchParams({ action: "pay", card: "4242 4242 4242 4242" }),
      redirect: "manual",
    });
    const sessionId = new URL(paid.headers.get("location")!).searchParams.get("session_id")!;
    const stranger = await signedInCustomer(services, database.db);
    expect(await services.stripeCardStep!.hostedSetup(stranger.user.id, sessionId)).toBeNull();
    const hosted = await services.stripeCardStep!.hostedSetup(userId, sessionId);
    expect(hosted!.metadata.card_update_id).toBeTruthy();
    expect(
      await services.subscriptions.adoptCardUpdateSetup(stranger.user.id, hosted!.metadata.card_update_id!, hosted!.id),
    ).toBe(false);
    expect(await services.subscriptions.adoptCardUpdateSetup(userId, hosted!.metadata.card_update_id!, hosted!.id)).toBe(true);
    expect(await services.subscriptions.finishCardUpdate(userId, hosted!.id)).toEqual({ state: "updated", charge: null });
    const [updated] = await database.db.select().from(subscriptions).where(eq(subscriptions.id, sub.id));
    expect(updated!.setupId).toBe(hosted!.id);
  });
});
