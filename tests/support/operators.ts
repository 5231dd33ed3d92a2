// The operators' commands over a test database (server/operators/*.db.test.ts): the portal's
// services as `createServices` builds them (the sandbox gateway, or Stripe's local stand-in when
// one is given), a clock the test moves, the operator who runs them, and the customers and paid
// orders the commands act on.
import { randomBytes } from "node:crypto";
import { createSessionStore } from "#server/accounts/sessions.ts";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach } from "vitest";
import { Writable } from "node:stream";
import {
  auditLog,
  invoices,
  orderItems,
  orders,
  payments,
  products,
  type AuditEvent,
  type BillingDetails,
} from "#server/db/schema/index.ts";
import { createLogger } from "#server/logger.ts";
import type { CheckoutDetails } from "#server/commerce/checkout.ts";
import type { Operator } from "#server/operators/context.ts";
import type { Services } from "#server/services.ts";
import { checkoutDetails } from "./checkout.ts";
import { testConfig } from "./config.ts";
import { createTestDatabase, type TestDatabase } from "./database.ts";
import type { FakeStripe } from "./fake-stripe.ts";
import { sessionCookieHeader } from "./requests.ts";
import { START } from "./clock.ts";
import { createTestServices } from "./services.ts";

/** `env`: settings of the test's own (its SDI folders); `stripe`: Stripe's local stand-in instead of the sandbox. */
export function operatorHarness({ stripe, env = {} }: { stripe?: () => FakeStripe; env?: Record<string, string> } = {}) {
  let database!: TestDatabase;
  let services!: Services;
  let clock = START;

  /** What the services logged at warn and above (a failed refund's error, for one). */
  const logged: { level: number; msg: string; [field: string]: unknown }[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const line of chunk.toString().split("\n")) if (line) logged.push(JSON.parse(line) as (typeof logged)[number]);
      callback();
    },
  });

  beforeAll(async () => {
    database = await createTestDatabase();
    services = await createTestServices(database, testConfig({ ...env, ...(stripe ? stripe().env : {}) }), {
      now: () => clock,
      log: createLogger("warn", sink),
    });
  });
  afterAll(async () => {
    await services?.close();
    await database?.destroy();
  });
  beforeEach(() => {
    clock = START;
  });

  const harness = {
    get db() {
      return database.db;
    },
    get services() {
      return services;
    },
    get op(): Operator {
      return { db: database.db, services, actor: "operator:test" };
    },
    advance(ms: number) {
      clock = new Date(clock.getTime() + ms);
    },
    /** The services' log lines at warn and above, so far. */
    logged,

    /** A registered customer with a complete name. */
    async customer(): Promise<{ id: string; email: string }> {
      const email = `cliente.${randomBytes(5).toString("hex")}@example.it`;
      const result = await services.accounts.register({ firstname: "Maria", lastname: "Rossi", email, password: "Segreta1!" });
      if (!result.ok) throw new Error("setup: registration failed");
      return { id: result.user.id, email };
    },

    /** A portal session on the services' clock holding these provider tokens; its Cookie header. */
    async session(userId: string, marker = randomBytes(4).toString("hex")) {
      const rawId = await createSessionStore(database.db, services.clock).create(userId, {
        accessToken: `access-${marker}`,
        accessTokenExpiresAt: new Date(clock.getTime() + 600_000),
        refreshToken: `refresh-${marker}`,
        idToken: `id-${marker}`,
      });
      return { rawId, cookie: await sessionCookieHeader(rawId) };
    },

    /**
     * Buys a product at the checkout and pays it by card (the sandbox's 4242…, or Stripe's
     * pm_card_visa); `extraLines`: more products on the same order (as an order of the old shop
     * had), `coupon`: a discount code applied first.
     */
    async paidOrder(
      userId: string,
      productCode: string,
      details: Partial<CheckoutDetails> = {},
      { extraLines = [], coupon }: { extraLines?: string[]; coupon?: string } = {},
    ) {
      const opened = await services.checkout.open(userId, productCode);
      if (!opened.ok) throw new Error(`setup: ${opened.reason}`);
      for (const sku of extraLines) {
        const [product] = await database.db.select().from(products).where(eq(products.sku, sku));
        await database.db.insert(orderItems).values({
          orderId: opened.orderId,
          productId: product!.id,
          description: product!.name,
          totalCents: product!.priceCents,
          unitPriceCents: product!.priceCents,
          vatRateBps: product!.vatRateBps,
        });
      }
      if (coupon && !(await services.checkout.applyCoupon(userId, opened.orderId, coupon)))
        throw new Error("setup: coupon refused");
      const started = await services.payments.start(userId, opened.orderId, checkoutDetails(details));
      if (!started.ok) throw new Error(`setup: ${started.reason}`);
      if (services.sandbox) await services.sandbox.confirmCard(started.setupId, "4242 4242 4242 4242");
      else stripe!().confirmSetup(started.setupId, "pm_card_visa");
      const settled = await services.payments.settleSetup(started.setupId);
      if (settled.state !== "paid") throw new Error(`setup: payment ${settled.state}`);
      const [order] = await database.db.select().from(orders).where(eq(orders.id, opened.orderId));
      return order!;
    },

    /** A paid order that asked for an invoice (an eBook), invoiced and sent by the job runner at the harness's clock. */
    async invoicedOrder(billing: BillingDetails) {
      const customer = await harness.customer();
      const order = await harness.paidOrder(customer.id, "EB-9788828813217", { billing });
      await services.jobs.runDue();
      const [payment] = await database.db.select().from(payments).where(eq(payments.orderId, order.id));
      const [invoice] = await database.db
        .select()
        .from(invoices)
        .where(and(eq(invoices.paymentId, payment!.id), eq(invoices.type, "TD01")));
      return { order, invoice: invoice! };
    },

    /** The audit entries of an event written by the test's operator (about a customer, when given). */
    async audited(event: AuditEvent, userId?: string) {
      return database.db
        .select()
        .from(auditLog)
        .where(
          and(eq(auditLog.event, event), eq(auditLog.actor, "operator:test"), userId ? eq(auditLog.userId, userId) : undefined),
        );
    },
  };
  return harness;
}
