// The customer's side of the Stripe gateway (docs/payments.md, "Stripe"): what the checkout
// page needs beyond the PaymentGateway port.
//   - With JavaScript, Stripe.js confirms the attempt's SetupIntent in the page: the page gets the
//     publishable key and, after 'Completa l'acquisto', the intent's client secret (read from
//     Stripe when needed, never stored or logged).
//   - Without it, the card step is Stripe's hosted Checkout page in setup mode. Its session makes
//     a SetupIntent of its own, so its return (`hostedReturn`) checks that the session is the
//     signed-in customer's and that the attempt it names is theirs, and the attempt adopts that
//     SetupIntent (payments.adoptSetup) before the customer is sent to the checkout's usual return.
import { randomUUID } from "node:crypto";
import type Stripe from "stripe";
import type { Database } from "#server/db/client.ts";
import type { Logger } from "#server/logger.ts";
import { isMissing, recordedCustomer } from "./stripe-gateway.ts";

type Adoption = {
  adoptSetup(
    userId: string | null,
    attemptId: string,
    setupId: string,
  ): Promise<{ orderId: string; replaced: string | null } | null>;
};

/** Where the hosted page came back to: the order, and the setup the attempt now has (null: it no longer waits). */
type HostedReturn = { orderId: string; setupId: string | null; redirectStatus: "succeeded" | "failed" };

const SESSION_ID = /^cs_[A-Za-z0-9_]{1,250}$/;

const idOf = (value: string | { id: string } | null | undefined) => (typeof value === "string" ? value : (value?.id ?? null));

export function createStripeCardStep({
  db,
  stripe,
  publishableKey,
  payments,
  log,
}: {
  db: Database;
  stripe: Stripe;
  publishableKey: string;
  payments: Adoption;
  log: Logger;
}) {
  /**
   * The attempt takes the hosted page's SetupIntent (payments.adoptSetup); the one
   * 'Completa l'acquisto' made is no longer anyone's and is cancelled, so it cannot be confirmed.
   * Only the call that made the change cancels it.
   */
  async function adopt(userId: string | null, attemptId: string, setupId: string) {
    const adopted = await payments.adoptSetup(userId, attemptId, setupId);
    if (adopted?.replaced) {
      try {
        await stripe.setupIntents.cancel(adopted.replaced, {}, { idempotencyKey: `portal:setup-replaced:${attemptId}` });
      } catch (err) {
        log.warn({ err, attemptId }, "the replaced card setup could not be cancelled at Stripe");
      }
    }
    return adopted;
  }

  /**
   * The SetupIntent of a hosted page's session: null unless the session is complete, in setup
   * mode, of the signed-in customer's Stripe customer.
   */
  async function hostedSetup(userId: string, sessionId: string): Promise<Stripe.SetupIntent | null> {
    if (!SESSION_ID.test(sessionId)) return null;
    let session: Stripe.Checkout.Session;
    try {
      session = await stripe.checkout.sessions.retrieve(sessionId, { expand: ["setup_intent"] });
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
    const intent = typeof session.setup_intent === "object" ? session.setup_intent : null;
    if (session.mode !== "setup" || session.status !== "complete" || !intent) return null;
    const known = await recordedCustomer(db, userId);
    return known && known === idOf(session.customer) ? intent : null;
  }

  return {
    /** Stripe.js's key: public by design. */
    publishableKey,

    /** What Stripe.js confirms the setup with (the card step waits on it). */
    async clientSecret(setupId: string): Promise<string> {
      const intent = await stripe.setupIntents.retrieve(setupId);
      if (!intent.client_secret) throw new Error(`Setup ${setupId} has no client secret`);
      return intent.client_secret;
    },

    /**
     * A Checkout Session in setup mode for the card step of `setupId` (a checkout's attempt, or
     * a card update: its customer, and its metadata on the session's own SetupIntent); gives the
     * hosted page's address. Each call makes
     * a new session (the key only makes the SDK's retries of this call safe): a session left
     * open expires at Stripe, and only one completed session is ever adopted by the attempt.
     */
    async hostedPage(setupId: string, { successUrl, cancelUrl }: { successUrl: string; cancelUrl: string }): Promise<string> {
      const intent = await stripe.setupIntents.retrieve(setupId);
      const customer = idOf(intent.customer);
      if (!customer) throw new Error(`Setup ${setupId} has no customer`);
      const session = await stripe.checkout.sessions.create(
        {
          mode: "setup",
          currency: "eur",
          customer,
          allowed_payment_method_types: ["card"],
          locale: "it",
          setup_intent_data: { metadata: { ...intent.metadata } },
          success_url: successUrl,
          cancel_url: cancelUrl,
        },
        { idempotencyKey: `portal:card-page:${setupId}:${randomUUID()}` },
      );
      if (!session.url) throw new Error(`Checkout Session ${session.id} has no address`);
      return session.url;
    },

    /**
     * The hosted page's return: null unless the session is complete, in setup mode, of the
     * signed-in customer's Stripe customer, for an attempt of theirs. The attempt adopts the
     * session's SetupIntent (what Stripe says, copied: repeating it changes nothing).
     */
    async hostedReturn(userId: string, sessionId: string): Promise<HostedReturn | null> {
      const intent = await hostedSetup(userId, sessionId);
      if (!intent) return null;
      const attemptId = intent.metadata?.attempt_id ?? "";
      const orderId = intent.metadata?.order_id;
      if (!orderId) return null;
      const adopted = await adopt(userId, attemptId, intent.id);
      if (!adopted) return { orderId, setupId: null, redirectStatus: "failed" };
      return {
        orderId: adopted.orderId,
        setupId: intent.id,
        redirectStatus: intent.status === "succeeded" ? "succeeded" : "failed",
      };
    },

    /** The hosted page's setup (its id and our metadata), when the session is the customer's (a card update's return). */
    async hostedSetup(userId: string, sessionId: string): Promise<{ id: string; metadata: Record<string, string> } | null> {
      const intent = await hostedSetup(userId, sessionId);
      return intent && { id: intent.id, metadata: intent.metadata ?? {} };
    },

    /**
     * A succeeded SetupIntent of the hosted page, from a webhook (Stripe's signed data, our
     * metadata): its attempt adopts it, so that a customer who never came back is charged too.
     */
    adoptFromWebhook: (attemptId: string, setupId: string) => adopt(null, attemptId, setupId),
  };
}
