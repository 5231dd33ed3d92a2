// The services a subscription's life needs, over one database and one clock, as an instance of
// the portal builds them (tests/integration/subscriptions*.test.ts, the runner-crash child).
import { createCheckout } from "../../server/commerce/checkout.ts";
import { createSubscriptions } from "../../server/commerce/subscriptions.ts";
import type { Database } from "../../server/db/client.ts";
import { createJobRunner } from "../../server/jobs/runner.ts";
import type { Clock } from "../../server/lib/clock.ts";
import { createLogger } from "../../server/logger.ts";
import { createMailService } from "../../server/mail/service.ts";
import type { PaymentGateway } from "../../server/payments/gateway.ts";
import { createSandboxGateway } from "../../server/payments/sandbox-gateway.ts";
import { createPayments } from "../../server/payments/service.ts";
import { createRateLimits } from "../../server/security/rate-limits.ts";
import { EDU_PRODUCT_CODE } from "../../shared/library-constants.ts";
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
  const mail = createMailService({ db, smtpUrl: undefined, from: "portale@example.it", log, now });
  const sandbox = createSandboxGateway(db, now);
  const gateway = wrapGateway(sandbox.gateway);
  const publicOrigin = "https://portale.example.it";
  const payments = createPayments({ db, gateway, rateLimits, mail, publicOrigin, log, now });
  const jobs = createJobRunner({ db, log, now });
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
