// Stripe's notifications, at POST /api/webhooks/stripe (docs/payments.md, "Payments"). The
// signature is checked on the raw body (with Stripe's 5-minute tolerance, so a replayed old
// delivery is refused); each event id is recorded once, so a repeated delivery does nothing more.
// An event is only a nudge: the charge or setup it names is read from Stripe and settled by the
// same code as the return page's checks, so events in any order, repeated or late, end the same
// way.
import type Stripe from "stripe";
import type { Database } from "#server/db/client.ts";
import { gatewayEvents } from "#server/db/schema/index.ts";
import { systemClock, type Clock } from "#server/lib/clock.ts";
import type { Logger } from "#server/logger.ts";
import { and, eq } from "drizzle-orm";

type Settlement = {
  settleSetup(setupId: string): Promise<unknown>;
  settleCharge(chargeId: string): Promise<unknown>;
  /** A refund moved at Stripe (server/payments/refunds.ts): by its id, or the portal's in its metadata. */
  settleRefund(refundId: string, portalRefundId: string | undefined): Promise<unknown>;
};

export type WebhookAnswer = { status: 200 | 400 | 500; body: string };

export function createStripeWebhooks({
  db,
  stripe,
  webhookSecret,
  payments,
  adoptHostedSetup,
  log,
  now = systemClock,
}: {
  db: Database;
  stripe: Stripe;
  webhookSecret: string;
  payments: Settlement;
  /** The attempt named in a SetupIntent's metadata takes it (stripe-card-step.ts). */
  adoptHostedSetup: (attemptId: string, setupId: string) => Promise<unknown>;
  log: Logger;
  now?: Clock;
}) {
  async function apply(event: Stripe.Event) {
    switch (event.type) {
      case "setup_intent.succeeded":
        // A SetupIntent of Stripe's hosted card page names the attempt it was made for (our
        // metadata, in a signed event): the attempt adopts it, so a customer who never came back
        // from the page is charged all the same. For the attempt's own setup it changes nothing.
        if (event.data.object.metadata?.attempt_id) {
          await adoptHostedSetup(event.data.object.metadata.attempt_id, event.data.object.id);
        }
        await payments.settleSetup(event.data.object.id);
        break;
      case "setup_intent.setup_failed":
      case "setup_intent.canceled":
        await payments.settleSetup(event.data.object.id);
        break;
      case "payment_intent.succeeded":
      case "payment_intent.payment_failed":
      case "payment_intent.processing":
      case "payment_intent.canceled":
        await payments.settleCharge(event.data.object.id);
        break;
      // Since API version 2024-10-28 Stripe sends these for every refund, card refunds included:
      // a pending refund that succeeded (refund.updated) or failed (refund.failed).
      case "refund.updated":
      case "refund.failed":
        await payments.settleRefund(event.data.object.id, event.data.object.metadata?.refund_id);
        break;
      default:
        // Other events are not subscribed to; one that arrives anyway is recorded and ignored.
        break;
    }
  }

  return {
    async handle(rawBody: Buffer, signature: string | undefined): Promise<WebhookAnswer> {
      let event: Stripe.Event;
      try {
        event = stripe.webhooks.constructEvent(rawBody, signature ?? "", webhookSecret);
      } catch (err) {
        // Forged, altered or stale: refused, and nothing is done. The sender is not trusted, so
        // the log keeps only the reason.
        log.warn({ reason: err instanceof Error ? err.message : String(err) }, "stripe webhook refused");
        return { status: 400, body: "invalid signature" };
      }
      const [recorded] = await db
        .insert(gatewayEvents)
        .values({ gateway: "stripe", eventId: event.id, type: event.type, receivedAt: now() })
        .onConflictDoNothing()
        .returning({ id: gatewayEvents.id });
      if (!recorded) return { status: 200, body: "already received" };
      try {
        await apply(event);
        return { status: 200, body: "ok" };
      } catch (err) {
        // Forgotten, so that Stripe's next delivery of the event is applied.
        await db.delete(gatewayEvents).where(and(eq(gatewayEvents.gateway, "stripe"), eq(gatewayEvents.eventId, event.id)));
        log.error({ err, eventId: event.id, type: event.type }, "stripe webhook failed; Stripe will deliver it again");
        return { status: 500, body: "retry" };
      }
    },
  };
}
