// The Stripe adapter of the PaymentGateway port, with the official `stripe` SDK at the API
// version it pins. A customer's card is set up with a SetupIntent (off-session usage, so the
// subscription can charge it later); each charge is a PaymentIntent created, then confirmed, with
// the portal's idempotency keys. Tests point the SDK at a local stand-in of Stripe's API
// (STRIPE_API_BASE); nothing else changes.
import Stripe from "stripe";
import { and, eq } from "drizzle-orm";
import type { Database } from "#server/db/client.ts";
import { paymentCustomers } from "#server/db/schema/index.ts";
import { isUniqueViolation } from "#server/db/errors.ts";
import type { Charge, ChargeStatus, PaymentGateway, Refund, Setup, SetupStatus } from "./gateway.ts";

export type StripeSettings = { secretKey: string; apiBase: string | null };

/** The SDK, at its own pinned API version; pointed at `apiBase` when one is given (tests). */
export function stripeClient({ secretKey, apiBase }: StripeSettings): Stripe {
  const base = apiBase ? new URL(apiBase) : null;
  return new Stripe(secretKey, {
    maxNetworkRetries: 2,
    ...(base
      ? {
          host: base.hostname,
          port: Number(base.port || (base.protocol === "https:" ? 443 : 80)),
          protocol: base.protocol.replace(":", "") as "http" | "https",
        }
      : {}),
  });
}

const CARD_ONLY = ["card"];
const SETUP_STATUSES: readonly SetupStatus[] = [
  "requires_payment_method",
  "requires_confirmation",
  "requires_action",
  "processing",
  "succeeded",
  "canceled",
];

function chargeOf(intent: Stripe.PaymentIntent): Charge {
  const statuses: Partial<Record<Stripe.PaymentIntent.Status, ChargeStatus>> = {
    succeeded: "succeeded",
    processing: "processing",
    requires_action: "requires_action",
    requires_confirmation: "unconfirmed",
    requires_capture: "processing",
    // After a decline the intent waits for another method: for this attempt, the charge failed.
    requires_payment_method: intent.last_payment_error ? "failed" : "processing",
    canceled: "failed",
  };
  const waiting = intent.status === "requires_action";
  return {
    id: intent.id,
    status: statuses[intent.status] ?? "processing",
    amountCents: intent.amount,
    errorMessage: intent.last_payment_error?.message ?? null,
    needsAuthentication: intent.last_payment_error?.code === "authentication_required",
    clientSecret: waiting ? intent.client_secret : null,
    redirectUrl: (waiting && intent.next_action?.redirect_to_url?.url) || null,
  };
}

/** Stripe's answer for an object it does not have (never made, or deleted). */
export const isMissing = (error: unknown) => error instanceof Stripe.errors.StripeInvalidRequestError && error.statusCode === 404;

/** The account's Stripe Customer as recorded (one per account: a unique index). */
export async function recordedCustomer(db: Database, userId: string): Promise<string | undefined> {
  const [row] = await db
    .select({ ref: paymentCustomers.customerRef })
    .from(paymentCustomers)
    .where(and(eq(paymentCustomers.userId, userId), eq(paymentCustomers.gateway, "stripe")));
  return row?.ref;
}

export function createStripeGateway(db: Database, stripe: Stripe): PaymentGateway {
  /**
   * The customer's Stripe Customer, made once: its idempotency key is the account's, so setups
   * racing to make it get the same one from Stripe (none is left behind that erasure would miss).
   */
  async function customerOf(customer: { userId: string; email: string; name: string }) {
    const known = await recordedCustomer(db, customer.userId);
    if (known) return known;
    const created = await stripe.customers.create(
      { email: customer.email, name: customer.name, metadata: { portal_user_id: customer.userId } },
      { idempotencyKey: `portal:customer:${customer.userId}` },
    );
    try {
      await db.insert(paymentCustomers).values({ userId: customer.userId, gateway: "stripe", customerRef: created.id });
      return created.id;
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      return (await recordedCustomer(db, customer.userId)) ?? created.id;
    }
  }

  async function setupIntent(id: string) {
    try {
      return await stripe.setupIntents.retrieve(id, { expand: ["payment_method"] });
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }

  return {
    name: "stripe",

    async createSetup({ customer, idempotencyKey, metadata }) {
      const customerRef = await customerOf(customer);
      const intent = await stripe.setupIntents.create(
        { customer: customerRef, usage: "off_session", allowed_payment_method_types: CARD_ONLY, metadata },
        { idempotencyKey },
      );
      return { id: intent.id, clientSecret: intent.client_secret! };
    },

    async retrieveSetup(id): Promise<Setup | null> {
      const intent = await setupIntent(id);
      if (!intent) return null;
      const method = typeof intent.payment_method === "object" ? intent.payment_method : null;
      return {
        id: intent.id,
        status: SETUP_STATUSES.find((known) => known === intent.status) ?? "processing",
        paymentMethodRef: typeof intent.payment_method === "string" ? intent.payment_method : (method?.id ?? null),
        card: method?.card ? { brand: method.card.brand, last4: method.card.last4 } : null,
        errorMessage: intent.last_setup_error?.message ?? null,
      };
    },

    async cancelSetup(id, idempotencyKey) {
      const intent = await setupIntent(id);
      if (!intent || intent.status === "succeeded" || intent.status === "canceled") return;
      await stripe.setupIntents.cancel(id, {}, { idempotencyKey });
    },

    async createCharge({ setupId, amountCents, description, idempotencyKey, metadata }) {
      const setup = await setupIntent(setupId);
      const method = setup && (typeof setup.payment_method === "string" ? setup.payment_method : setup.payment_method?.id);
      const customer = setup && (typeof setup.customer === "string" ? setup.customer : setup.customer?.id);
      if (!method || !customer) throw new Error(`Setup ${setupId} has no card to charge`);
      const intent = await stripe.paymentIntents.create(
        {
          amount: amountCents,
          currency: "eur",
          customer,
          payment_method: method,
          allowed_payment_method_types: CARD_ONLY,
          description,
          metadata,
        },
        { idempotencyKey },
      );
      return { id: intent.id };
    },

    async confirmCharge(id, { offSession, idempotencyKey, returnUrl, authenticateBy = "page" }) {
      try {
        const intent = await stripe.paymentIntents.confirm(
          id,
          offSession
            ? { off_session: true }
            : // Without use_stripe_sdk, Stripe answers a 3-D Secure step as a page to send the customer to.
              { return_url: returnUrl, ...(authenticateBy === "page" ? { use_stripe_sdk: true } : {}) },
          { idempotencyKey },
        );
        return chargeOf(intent);
      } catch (error) {
        // A decline is an answer, not a failure of the call: Stripe sends it as a card error.
        if (error instanceof Stripe.errors.StripeCardError) {
          const intent = error.payment_intent;
          const declined = intent ? chargeOf(intent) : failed(id, error.message);
          return {
            ...declined,
            status: "failed",
            errorMessage: error.message,
            needsAuthentication: error.code === "authentication_required",
          };
        }
        throw error;
      }
    },

    async cancelCharge(id, idempotencyKey) {
      const intent = await stripe.paymentIntents.retrieve(id);
      if (intent.status === "succeeded" || intent.status === "canceled" || intent.status === "processing") {
        return chargeOf(intent);
      }
      try {
        return chargeOf(await stripe.paymentIntents.cancel(id, {}, { idempotencyKey }));
      } catch (error) {
        // It succeeded between the two calls: Stripe refuses to cancel it, and it stands paid.
        if (error instanceof Stripe.errors.StripeInvalidRequestError) return chargeOf(await stripe.paymentIntents.retrieve(id));
        throw error;
      }
    },

    async retrieveCharge(id) {
      try {
        return chargeOf(await stripe.paymentIntents.retrieve(id));
      } catch (error) {
        if (isMissing(error)) return null;
        throw error;
      }
    },

    async refundCharge(id, { amountCents, idempotencyKey, metadata }) {
      // Stripe keeps an idempotency key for a day: a refund whose answer was lost longer ago is
      // found by the portal's id in its metadata, not made a second time.
      if (metadata.refund_id) {
        const made = await stripe.refunds.list({ payment_intent: id, limit: 100 });
        const earlier = made.data.find((refund) => refund.metadata?.refund_id === metadata.refund_id);
        if (earlier) return refundOf(earlier);
      }
      try {
        return refundOf(
          await stripe.refunds.create(
            { payment_intent: id, ...(amountCents === undefined ? {} : { amount: amountCents }), metadata },
            { idempotencyKey },
          ),
        );
      } catch (error) {
        // Refunded already, or less left than asked (a refund made in Stripe's dashboard): Stripe
        // answers 400, no retry can make this one, and the operator is told why.
        if (error instanceof Stripe.errors.StripeInvalidRequestError && error.statusCode === 400) {
          return { id: null, status: "failed", gatewayStatus: "refused", amountCents: 0, failureReason: error.message };
        }
        throw error;
      }
    },

    async retrieveRefund(id) {
      try {
        return refundOf(await stripe.refunds.retrieve(id));
      } catch (error) {
        if (isMissing(error)) return null;
        throw error;
      }
    },

    async deleteCustomer(userId) {
      const ref = await recordedCustomer(db, userId);
      if (!ref) return;
      try {
        // Deleting the Customer detaches its cards: none can be charged again.
        await stripe.customers.del(ref);
      } catch (error) {
        // Deleted already (an earlier try whose answer was lost).
        if (!isMissing(error)) throw error;
      }
      await db.delete(paymentCustomers).where(eq(paymentCustomers.customerRef, ref));
    },
  };
}

/** Stripe's refund statuses: `pending` and `requires_action` still wait; `failed` and `canceled` gave nothing back. */
function refundOf(refund: Stripe.Refund): Refund {
  const statuses: Record<string, Refund["status"]> = { succeeded: "succeeded", failed: "failed", canceled: "failed" };
  const gatewayStatus = refund.status ?? "pending";
  return {
    id: refund.id,
    status: statuses[gatewayStatus] ?? "pending",
    gatewayStatus,
    amountCents: refund.amount,
    failureReason: refund.failure_reason ?? (gatewayStatus === "canceled" ? "canceled" : null),
  };
}

function failed(id: string, message: string): Charge {
  return {
    id,
    status: "failed",
    amountCents: 0,
    errorMessage: message,
    needsAuthentication: false,
    clientSecret: null,
    redirectUrl: null,
  };
}
