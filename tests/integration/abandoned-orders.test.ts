// Abandoned checkouts (commerce/order-expiry.ts): an order left `new` for 7 days after its last
// change expires on the job runner's tick, its page says so, and the product's buy link opens a
// new order; orders waiting for payment or paid are never touched, and a submit racing the
// expiry either pays or finds the order closed, never both.
import { and, eq, inArray, like } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import CheckoutPage from "#app/routes/checkout/route.tsx";
import { CHECKOUT_MESSAGES as M } from "#shared/checkout-messages.ts";
import { ABANDONED_ORDER_DAYS } from "#server/commerce/order-expiry.ts";
import { orders, paymentAttempts, products, users } from "#server/db/schema/index.ts";
import type { Services } from "#server/services.ts";
import { checkoutDetails } from "#tests/support/checkout.ts";
import { DAY, START } from "#tests/support/clock.ts";
import { testConfig } from "#tests/support/config.ts";
import { createTestDatabase, type TestDatabase } from "#tests/support/database.ts";
import { decode, render } from "#tests/support/render-page.ts";
import { createTestServices } from "#tests/support/services.ts";

let database: TestDatabase;
let services: Services;
let clock = START;
let ebookSku: string;
let customers = 0;

beforeAll(async () => {
  database = await createTestDatabase();
  services = await createTestServices(database, testConfig(), { now: () => clock });
  const [ebook] = await database.db
    .select({ sku: products.sku })
    .from(products)
    .where(and(eq(products.sellable, true), like(products.sku, "EB-%")))
    .limit(1);
  ebookSku = ebook!.sku;
});
afterAll(async () => {
  await services.close();
  await database.destroy();
});

const ABANDONED_MS = ABANDONED_ORDER_DAYS * DAY;
const later = (from: Date, ms: number) => new Date(from.getTime() + ms);

/** Moves the clock and lets the runner do what is due, as each instance's tick does. */
async function tick(at: Date) {
  clock = at;
  return services.jobs.runDue();
}

async function newCustomer() {
  const [row] = await database.db
    .insert(users)
    .values({ email: `abbandono${++customers}.${START.getTime()}@example.it`, firstname: "Maria", lastname: "Rossi" })
    .returning({ id: users.id });
  return row!.id;
}

async function openOrder(userId: string) {
  const opened = await services.checkout.open(userId, ebookSku);
  if (!opened.ok) throw new Error(`setup: ${opened.reason}`);
  return opened.orderId;
}

const statusOf = async (orderId: string) =>
  (await database.db.select({ status: orders.status }).from(orders).where(eq(orders.id, orderId)))[0]!.status;

describe("an order left unsubmitted", () => {
  it(`expires ${ABANDONED_ORDER_DAYS} days after it was opened; its page says so and the buy link opens a new one`, async () => {
    clock = START;
    const userId = await newCustomer();
    const orderId = await openOrder(userId);

    await tick(later(START, ABANDONED_MS - 1));
    expect(await statusOf(orderId)).toBe("new");
    await tick(later(START, ABANDONED_MS));
    expect(await statusOf(orderId)).toBe("expired");

    const order = (await services.checkout.view(userId, orderId))!;
    expect(order.status).toBe("expired");
    const page = decode(
      await render(
        CheckoutPage,
        { order, returned: null, notice: null, cardStepDone: false, sandbox: true, stripeKey: null },
        `/checkout/${orderId}/`,
      ),
    );
    expect(page).toContain(M.closedTitle);
    expect(page).not.toContain("Completa l'acquisto");

    // Submitting the page still open in a tab starts nothing.
    expect(await services.payments.start(userId, orderId, checkoutDetails())).toEqual({ ok: false, reason: "not_new" });
    const reopened = await openOrder(userId);
    expect(reopened).not.toBe(orderId);
    expect(await statusOf(reopened)).toBe("new");
  });

  it("counts from its last change: a payment given up keeps it open for another 7 days", async () => {
    clock = START;
    const userId = await newCustomer();
    const orderId = await openOrder(userId);
    clock = later(START, 5 * DAY);
    const started = await services.payments.start(userId, orderId, checkoutDetails());
    expect(started.ok).toBe(true);

    // Waiting for its payment, it is never expired.
    await tick(later(START, 8 * DAY));
    expect(await statusOf(orderId)).toBe("waitforpayment");
    expect(await services.payments.reset(userId, orderId)).toEqual({ ok: true });
    expect(await statusOf(orderId)).toBe("new");

    await tick(later(clock, ABANDONED_MS - 1));
    expect(await statusOf(orderId)).toBe("new");
    await tick(later(clock, 1));
    expect(await statusOf(orderId)).toBe("expired");
  });

  it("leaves paid orders as they are", async () => {
    clock = START;
    const userId = await newCustomer();
    const orderId = await openOrder(userId);
    const started = await services.payments.start(userId, orderId, checkoutDetails());
    if (!started.ok) throw new Error(started.reason);
    await services.sandbox!.confirmCard(started.setupId, "4242 4242 4242 4242");
    expect(await services.payments.settleSetup(started.setupId)).toEqual({ state: "paid" });
    await tick(later(START, 30 * DAY));
    expect(await statusOf(orderId)).toBe("payed");
  });

  it("raced by submits on the day it expires: each order is paid for or expired, never both", async () => {
    clock = START;
    const customersAndOrders = [];
    for (let i = 0; i < 8; i++) {
      const userId = await newCustomer();
      customersAndOrders.push({ userId, orderId: await openOrder(userId) });
    }
    clock = later(START, ABANDONED_MS);
    const [starts] = await Promise.all([
      Promise.all(customersAndOrders.map(({ userId, orderId }) => services.payments.start(userId, orderId, checkoutDetails()))),
      services.jobs.runDue(),
      services.jobs.runDue(),
    ]);

    const ids = customersAndOrders.map(({ orderId }) => orderId);
    const rows = await database.db.select({ id: orders.id, status: orders.status }).from(orders).where(inArray(orders.id, ids));
    const attempts = await database.db
      .select({ orderId: paymentAttempts.orderId })
      .from(paymentAttempts)
      .where(inArray(paymentAttempts.orderId, ids));
    customersAndOrders.forEach(({ orderId }, i) => {
      const status = rows.find((row) => row.id === orderId)!.status;
      const attemptCount = attempts.filter((a) => a.orderId === orderId).length;
      if (starts[i]!.ok) expect([status, attemptCount]).toEqual(["waitforpayment", 1]);
      else expect([status, attemptCount, starts[i]]).toEqual(["expired", 0, { ok: false, reason: "not_new" }]);
    });
    // Whichever came first, nothing is left open and unsubmitted.
    expect(rows.filter((row) => row.status === "new")).toEqual([]);
  });
});

describe("an order whose payment an instance left unstarted (it died before the card step existed)", () => {
  it("says the payment is being verified and offers to give it up; given up, the order is editable and payable", async () => {
    clock = START;
    const userId = await newCustomer();
    const orderId = await openOrder(userId);
    // What the instance committed before it died: the order waits, its attempt never got a card step.
    await database.db.update(orders).set({ status: "waitforpayment" }).where(eq(orders.id, orderId));
    await database.db
      .insert(paymentAttempts)
      .values({ orderId, attemptNo: 1, gateway: "sandbox", amountCents: 100, createdAt: START, updatedAt: START });

    const order = (await services.checkout.view(userId, orderId))!;
    expect(order.attempt).toMatchObject({ status: "created", setupId: null });
    const page = decode(
      await render(
        CheckoutPage,
        { order, returned: null, notice: null, cardStepDone: false, sandbox: true, stripeKey: null },
        `/checkout/${orderId}/`,
      ),
    );
    expect(page).toContain(M.paymentInProgress);
    expect(page).toContain("Annulla il pagamento e modifica i dati");

    expect(await services.payments.reset(userId, orderId)).toEqual({ ok: true });
    expect(await statusOf(orderId)).toBe("new");
    expect((await services.payments.start(userId, orderId, checkoutDetails())).ok).toBe(true);
  });
});
