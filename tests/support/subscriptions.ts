// The services a subscription's life needs, over one database and one clock, as an instance of
// the portal builds them (tests/integration/subscriptions*.test.ts, the runner-crash child).
import { asc, eq } from "drizzle-orm";
import { createCheckout } from "#server/commerce/checkout.ts";
import { createSubscriptions } from "#server/commerce/subscriptions.ts";
import type { Database } from "#server/db/client.ts";
import { mailOutbox, sandboxGatewayObjects, subscriptionPeriods } from "#server/db/schema/index.ts";
import { createJobRunner } from "#server/jobs/runner.ts";
import type { Clock } from "#server/lib/clock.ts";
import { createLogger } from "#server/logger.ts";
import { createMailService } from "#server/mail/service.ts";
import type { PaymentGateway } from "#server/payments/gateway.ts";
import { createSandboxGateway } from "#server/payments/sandbox-gateway.ts";
import { createOrderPayments } from "#server/commerce/order-payments.ts";
import { createRateLimits } from "#server/security/rate-limits.ts";
import { EDU_PRODUCT_CODE } from "#shared/library-constants.ts";
import { checkoutDetails } from "./checkout.ts";

const GOOD_CARD = "4242 4242 4242 4242";

/** One instance's services; `wrapGateway` lets a test stand between them and the sandbox. */
export function subscriptionInstance(
  db: Database,
  now: Clock,
  wrapGateway: (gateway: PaymentGateway) => PaymentGateway = (g) => g,
) {
  const log = createLogger("silent");
  const rateLimits = createRateLimits(db, { clearExpiredByTimeout: false });
  const sandbox = createSandboxGateway(db, now);
  const gateway = wrapGateway(sandbox.gateway);
  const publicOrigin = "https://portale.example.it";
  const jobs = createJobRunner({ db, log, now });
  const mail = createMailService({ db, smtpUrl: undefined, from: "portale@example.it", runner: jobs, log, now });
  const payments = createOrderPayments({ db, gateway, rateLimits, mail, runner: jobs, publicOrigin, log, now });
  const subscriptions = createSubscriptions({ db, gateway, rateLimits, runner: jobs, mail, publicOrigin, log, now });
  const checkout = createCheckout({ db, rateLimits, now });

  /** Buys EDU at the checkout with a test card, as the customer does; gives the card's setup. */
  async function buyEdu(userId: string, card = GOOD_CARD): Promise<{ orderId: string; setupId: string }> {
    const opened = await checkout.open(userId, EDU_PRODUCT_CODE);
    if (!opened.ok) throw new Error(`EDU checkout: ${opened.reason}`);
    const started = await payments.start(userId, opened.orderId, checkoutDetails());
    if (!started.ok) throw new Error(`EDU payment: ${started.reason}`);
    await sandbox.confirmCard(started.setupId, card);
    const settled = await payments.settleSetup(started.setupId);
    if (settled.state !== "paid") throw new Error(`EDU payment: ${settled.state}`);
    return { orderId: opened.orderId, setupId: started.setupId };
  }

  return { sandbox, payments, jobs, subscriptions, checkout, buyEdu, close: () => rateLimits.close() };
}

export type SubscriptionInstance = ReturnType<typeof subscriptionInstance>;

/** A subscription's months, in order. */
export function monthsOfSubscription(db: Database, subscriptionId: string) {
  return db
    .select()
    .from(subscriptionPeriods)
    .where(eq(subscriptionPeriods.subscriptionId, subscriptionId))
    .orderBy(asc(subscriptionPeriods.number));
}

/** The sandbox's charges of a subscription's months, any outcome (the checkout's first one is the order's). */
export async function subscriptionCharges(db: Database, subscriptionId: string) {
  const rows = await db.select().from(sandboxGatewayObjects).where(eq(sandboxGatewayObjects.kind, "charge"));
  return rows
    .map((row) => ({ id: row.id, ...(row.data as { status: string; metadata: Record<string, string> }) }))
    .filter((charge) => charge.metadata.subscription_id === subscriptionId);
}

/** The subjects of the mails about a customer, in the order they were queued. */
export async function mailSubjectsOf(db: Database, userId: string): Promise<string[]> {
  const rows = await db.select().from(mailOutbox).where(eq(mailOutbox.userId, userId)).orderBy(asc(mailOutbox.seq));
  return rows.map((row) => row.subject);
}
