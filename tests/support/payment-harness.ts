// The checkout and card payment services over a test database, on the sandbox gateway, with the
// clock a test moves and the helpers the payment tests share: customers, orders, paying with a
// sandbox test card, counting charges and payments. On PostgreSQL, `otherInstance` is a second
// pool to the same database: a second server instance.
import { and, count, eq, like as sqlLike } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach } from "vitest";
import { createCheckout } from "#server/commerce/checkout.ts";
import { openDatabase, type Database, type DatabaseHandle } from "#server/db/client.ts";
import {
  orders,
  paymentAttempts,
  payments as paymentsTable,
  products,
  rateLimits,
  sandboxGatewayObjects,
  users,
} from "#server/db/schema/index.ts";
import { createJobRunner } from "#server/jobs/runner.ts";
import { createLogger } from "#server/logger.ts";
import { createMailService } from "#server/mail/service.ts";
import { createRefunds } from "#server/payments/refunds.ts";
import { createSandboxGateway } from "#server/payments/sandbox-gateway.ts";
import { createOrderPayments } from "#server/commerce/order-payments.ts";
import { createRateLimits } from "#server/security/rate-limits.ts";
import { checkoutDetails } from "./checkout.ts";
import { START } from "./clock.ts";
import { createTestDatabase, type TestDatabase } from "./database.ts";

export const CARDS = {
  succeeds: "4242 4242 4242 4242",
  declined: "4000 0000 0000 9995",
  authentication: "4000 0025 0000 3155",
} as const;

export function paymentHarness() {
  let database!: TestDatabase;
  let otherInstance: DatabaseHandle | undefined;
  let clock = START;
  const now = () => clock;
  let userNumber = 0;
  const products_: { ebook?: ProductRef; paperBook?: ProductRef } = {};

  function servicesOver(db: Database) {
    const log = createLogger("silent");
    const rateLimitsService = createRateLimits(db, { clearExpiredByTimeout: false });
    const sandbox = createSandboxGateway(db, now);
    const runner = createJobRunner({ db, log, now });
    const mail = createMailService({ db, smtpUrl: undefined, from: "portale@example.it", runner, log, now });
    return {
      checkout: createCheckout({ db, rateLimits: rateLimitsService, now }),
      sandbox,
      payments: createOrderPayments({
        db,
        gateway: sandbox.gateway,
        rateLimits: rateLimitsService,
        mail,
        runner,
        publicOrigin: "https://portale.example.it",
        log,
        now,
      }),
      refunds: createRefunds({ db, gateway: sandbox.gateway, runner, log, now }),
      runner,
      rateLimits: rateLimitsService,
      mail,
    };
  }
  let services!: ReturnType<typeof servicesOver>;

  beforeAll(async () => {
    database = await createTestDatabase();
    if (database.connection) otherInstance = await openDatabase({ ...database.connection, poolMax: 5 });
    services = servicesOver(database.db);
    const bySku = async (prefix: string) => {
      const [row] = await database.db
        .select({ id: products.id, sku: products.sku, priceCents: products.priceCents })
        .from(products)
        .where(and(eq(products.sellable, true), sqlLike(products.sku, `${prefix}%`)))
        .limit(1);
      return row!;
    };
    products_.ebook = await bySku("EB-");
    products_.paperBook = await bySku("LB-");
  });
  afterAll(async () => {
    services.rateLimits.close();
    await otherInstance?.close();
    await database.destroy();
  });
  beforeEach(async () => {
    await database.db.delete(rateLimits);
    clock = START;
  });

  const harness = {
    get database() {
      return database;
    },
    get services() {
      return services;
    },
    /** The services of a second instance on PostgreSQL (its own pool), or of this one on PGlite. */
    get instances() {
      return [services, ...(otherInstance ? [servicesOver(otherInstance.db)] : [])];
    },
    servicesOver,
    get ebook() {
      return products_.ebook!;
    },
    get paperBook() {
      return products_.paperBook!;
    },
    now,
    setClock(at: Date) {
      clock = at;
    },
    advance(ms: number) {
      clock = new Date(clock.getTime() + ms);
    },
    details: checkoutDetails,

    async newUser(): Promise<string> {
      const [row] = await database.db
        .insert(users)
        .values({ email: `acquirente${++userNumber}.${Date.now()}@example.it`, firstname: "Maria", lastname: "Rossi" })
        .returning({ id: users.id });
      return row!.id;
    },

    async openOrder(userId: string, code = products_.ebook!.sku): Promise<string> {
      const opened = await services.checkout.open(userId, code);
      if (!opened.ok) throw new Error(`setup: ${opened.reason}`);
      return opened.orderId;
    },

    async orderRow(orderId: string) {
      const [row] = await database.db.select().from(orders).where(eq(orders.id, orderId));
      return row!;
    },

    async latestAttempt(orderId: string) {
      const rows = await database.db.select().from(paymentAttempts).where(eq(paymentAttempts.orderId, orderId));
      return rows.sort((a, b) => b.attemptNo - a.attemptNo)[0]!;
    },

    async paymentCount(orderId: string) {
      const [row] = await database.db.select({ n: count() }).from(paymentsTable).where(eq(paymentsTable.orderId, orderId));
      return row!.n;
    },

    /** The sandbox's charges of the order that took money (refunded or not). */
    async succeededCharges(orderId: string) {
      return (await harness.charges(orderId)).filter((data) => data.status === "succeeded");
    },

    /** Every sandbox charge made for the order. */
    async charges(orderId: string) {
      const rows = await database.db.select().from(sandboxGatewayObjects).where(eq(sandboxGatewayObjects.kind, "charge"));
      return rows
        .map((row) => row.data as { status: string; refundedCents?: number; metadata: Record<string, string> })
        .filter((data) => data.metadata.order_id === orderId);
    },

    /** Starts the payment and gives the sandbox a card, as the checkout's form post does. */
    async payWith(userId: string, orderId: string, card: string) {
      const started = await services.payments.start(userId, orderId, checkoutDetails());
      if (!started.ok) throw new Error(`setup: ${started.reason}`);
      const result = await services.sandbox.confirmCard(started.setupId, card);
      return { setupId: started.setupId, result };
    },
  };
  return harness;
}

type ProductRef = { id: string; sku: string; priceCents: number };
