// The one port between the portal and a card payment provider (docs/payments.md, "Payments"). The
// sandbox (embedded, no keys) and Stripe implement it; everything above it (checkout, settlement,
// receipts) is the same for both. The flow is Stripe's SetupIntent pattern (spec §4): the card is
// set up for the customer first (3-D Secure happens there), then the server charges it for the
// order, with the customer present; later charges (the subscription's) go off-session.
import type { PaymentGatewayName } from "#server/db/schema/index.ts";

type CardSummary = { brand: string; last4: string };

/** Where a card setup stands (Stripe's SetupIntent statuses, which the return page reads). */
export type SetupStatus =
  "requires_payment_method" | "requires_confirmation" | "requires_action" | "processing" | "succeeded" | "canceled";

export type Setup = {
  id: string;
  status: SetupStatus;
  /** The saved card, once the setup succeeded. */
  paymentMethodRef: string | null;
  card: CardSummary | null;
  /** The provider's message for the customer when the last try failed (declined, not authenticated). */
  errorMessage: string | null;
};

/** `unconfirmed`: created, not yet confirmed (no money has moved). */
export type ChargeStatus = "unconfirmed" | "succeeded" | "processing" | "requires_action" | "failed";

export type Charge = {
  id: string;
  status: ChargeStatus;
  amountCents: number;
  /** The provider's message for the customer when the charge failed. */
  errorMessage: string | null;
  /**
   * A charge made without the customer (off-session) that failed because the bank wants the
   * customer to authenticate it: they can pay it themselves, on-session.
   */
  needsAuthentication: boolean;
  /** For a charge waiting for the customer's authentication: what the browser completes it with. */
  clientSecret: string | null;
  /** For a charge waiting for the customer's authentication, confirmed `authenticateBy: "redirect"`: the bank's page. */
  redirectUrl: string | null;
};

/**
 * Money given back for a charge, as the provider reports it: `pending` while it is still being
 * sent (Stripe's `pending` and `requires_action`), then `succeeded` or `failed` (Stripe's `failed`
 * and `canceled`). `gatewayStatus` is the provider's own word for it. `id` null: the provider
 * refused to make the refund at all (the charge was given back already, the amount is more than
 * it has left): a failure that no retry mends.
 */
export type Refund = {
  id: string | null;
  status: "pending" | "succeeded" | "failed";
  gatewayStatus: string;
  amountCents: number;
  /** Why it failed, as the provider says it (for the operator). */
  failureReason: string | null;
};

export type PaymentGateway = {
  readonly name: PaymentGatewayName;
  /**
   * Starts setting up a card of the customer for later charges. The same idempotency key
   * always gives the same setup.
   */
  createSetup(input: {
    customer: { userId: string; email: string; name: string };
    idempotencyKey: string;
    metadata: Record<string, string>;
  }): Promise<{ id: string; clientSecret: string }>;
  retrieveSetup(id: string): Promise<Setup | null>;
  cancelSetup(id: string, idempotencyKey: string): Promise<void>;
  /** Creates a charge of a set-up card without confirming it, so its id can be stored before money moves. */
  createCharge(input: {
    setupId: string;
    amountCents: number;
    description: string;
    idempotencyKey: string;
    metadata: Record<string, string>;
  }): Promise<{ id: string }>;
  /**
   * Confirms a charge: the money moves (or not). Repeating it with the same key answers the same.
   * With the customer present, a charge the bank wants authenticated waits for them: completed
   * in the page by the provider's script (`authenticateBy: "page"`, the checkout), or on the
   * bank's page, which returns to `returnUrl` (`"redirect"`: works without JavaScript).
   */
  confirmCharge(
    id: string,
    input: { offSession: boolean; idempotencyKey: string; returnUrl?: string; authenticateBy?: "page" | "redirect" },
  ): Promise<Charge>;
  retrieveCharge(id: string): Promise<Charge | null>;
  /**
   * Cancels a charge that has not succeeded (one left waiting for an authentication that never
   * came), so that it can no longer take money; gives the charge as it stands after (a charge
   * that succeeded meanwhile stays succeeded).
   */
  cancelCharge(id: string, idempotencyKey: string): Promise<Charge | null>;
  /**
   * Gives money of a succeeded charge back to the card: `amountCents`, or all it has left when
   * omitted; a charge may be refunded in several parts up to its amount. The same key always
   * gives the same refund.
   */
  refundCharge(
    id: string,
    input: { amountCents?: number; idempotencyKey: string; metadata: Record<string, string> },
  ): Promise<Refund>;
  /** A refund as it stands now (a pending one is read again until it ends); null when unknown. */
  retrieveRefund(id: string): Promise<Refund | null>;
  /**
   * Removes what the provider holds of a customer whose account was erased: their record and
   * every card saved for them, so none can be charged again. Done already: nothing happens.
   */
  deleteCustomer(userId: string): Promise<void>;
};
