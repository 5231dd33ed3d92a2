// Payments and refunds: tries at paying an order, money received and given back, the providers' records.
import { sql } from "drizzle-orm";
import { type AnyPgColumn, check, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { users } from "./accounts.ts";
import { orders, orderItems } from "./orders.ts";
import { PAYMENT_GATEWAYS } from "./payment-gateways.ts";
import { subscriptionPeriods } from "./subscriptions.ts";
import { id, createdAt } from "./columns.ts";

/**
 * The life of one try at paying an order by card: the card is set up (a SetupIntent), then
 * charged. `created` → `awaiting_customer` (card step, 3-D Secure) → `setup_succeeded` →
 * `charging` (claimed, with a lease) → `succeeded` | `failed` | `canceled`.
 */
export const PAYMENT_ATTEMPT_STATUSES = [
  "created",
  "awaiting_customer",
  "setup_succeeded",
  "charging",
  "succeeded",
  "failed",
  "canceled",
] as const;
export type PaymentAttemptStatus = (typeof PAYMENT_ATTEMPT_STATUSES)[number];

export const paymentAttempts = pgTable(
  "payment_attempts",
  {
    id: id(),
    orderId: uuid("order_id")
      .notNull()
      .references(() => orders.id),
    /** 1, 2, … per order: part of the provider's idempotency keys, so a retry never reuses one. */
    attemptNo: integer("attempt_no").notNull(),
    gateway: text("gateway", { enum: PAYMENT_GATEWAYS }).notNull(),
    status: text("status", { enum: PAYMENT_ATTEMPT_STATUSES }).notNull().default("created"),
    /** What this attempt charges, frozen from the order's total when it starts. */
    amountCents: integer("amount_cents").notNull(),
    setupId: text("setup_id").unique(),
    paymentMethodRef: text("payment_method_ref"),
    cardBrand: text("card_brand"),
    cardLast4: text("card_last4"),
    chargeId: text("charge_id").unique(),
    /** While a charge runs: no other instance takes the attempt before this instant. */
    leaseUntil: timestamp("lease_until", { withTimezone: true }),
    /** The provider's message of the last failure, shown to the customer. */
    errorMessage: text("error_message"),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("payment_attempts_order_no_uq").on(t.orderId, t.attemptNo),
    uniqueIndex("payment_attempts_one_open_per_order")
      .on(t.orderId)
      .where(sql`${t.status} in ('created', 'awaiting_customer', 'setup_succeeded', 'charging')`),
  ],
);

/** Spec §3: two card codes (checkout, setup), both 'Carta di Credito', and sepa. */
export const PAYMENT_METHOD_CODES = ["card_checkout", "card_setup", "sepa"] as const;
/**
 * `refunded`: every cent of it went back (its refunds succeeded for its whole amount). A payment
 * partly refunded stays `payed`: what it kept is still paid (and invoiced); its refunds say the rest.
 */
export const PAYMENT_STATUS_CODES = ["payed", "refunded"] as const;

/** Money received (spec §3: payment), one row per charge; 'payed' counts as paid. */
export const payments = pgTable(
  "payments",
  {
    id: id(),
    /** Readable, on the receipt: PX + yymmdd + 6 characters. */
    paymentCode: text("payment_code").notNull().unique(),
    orderId: uuid("order_id")
      .notNull()
      .references(() => orders.id),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id),
    attemptId: uuid("attempt_id").references(() => paymentAttempts.id),
    gateway: text("gateway", { enum: PAYMENT_GATEWAYS }).notNull(),
    methodCode: text("method_code", { enum: PAYMENT_METHOD_CODES }).notNull(),
    status: text("status", { enum: PAYMENT_STATUS_CODES }).notNull().default("payed"),
    amountCents: integer("amount_cents").notNull(),
    /** The provider's charge (a PaymentIntent on Stripe): a charge is recorded once. */
    chargeId: text("charge_id").notNull(),
    cardBrand: text("card_brand"),
    cardLast4: text("card_last4"),
    paidAt: timestamp("paid_at", { withTimezone: true }).notNull(),
    /**
     * When the last of the money went back to the customer (status `refunded`). Each refund,
     * partial or whole, is a row of `payment_refunds`.
     */
    refundedAt: timestamp("refunded_at", { withTimezone: true }),
    /** The subscription's month this payment paid (unique: a month is paid once), or null. */
    subscriptionPeriodId: uuid("subscription_period_id")
      .unique()
      .references((): AnyPgColumn => subscriptionPeriods.id),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("payments_gateway_charge_uq").on(t.gateway, t.chargeId),
    index("payments_user_paid_idx").on(t.userId, t.paidAt),
    check("payments_amount_positive", sql`${t.amountCents} > 0`),
  ],
);

/**
 * What a refund gives back: `payment`, all that the payment still kept (a whole order's refund,
 * an EDU month's, a charge the portal could not keep); `amount`, a sum an operator chose (a
 * goodwill gesture); `line`, one order line's share of the payment.
 */
export const REFUND_SCOPES = ["payment", "amount", "line"] as const;
/** `pending` until the provider says the money went back (`succeeded`) or could not (`failed`). */
export const REFUND_STATES = ["pending", "succeeded", "failed"] as const;
export type RefundState = (typeof REFUND_STATES)[number];
/**
 * Why: `operator`, an operator's refund (`npm run admin -- orders:refund`); `order_closed`, a
 * charge that succeeded for an order no longer waiting for it; `edu_already_active`, an EDU
 * charge refused at settlement because EDU became active meanwhile.
 */
export const REFUND_REASONS = ["operator", "order_closed", "edu_already_active"] as const;
export type RefundReason = (typeof REFUND_REASONS)[number];

/**
 * A part of an order a refund gives back money for: an order line (`orderItemId`) or the shipping
 * (null), with the VAT rate the amount contains. A refund's parts add up to its amount, so a
 * credit note made for the refund knows its lines and their VAT without recomputing them.
 */
export type RefundPart = { orderItemId: string | null; cents: number; vatRateBps: number | null };

/**
 * Money given back from a payment (docs/payments.md, "Refunds"): one row per refund, several per
 * payment (never more than it took: the sum of those not failed is checked under the payment's row
 * lock in the transaction that inserts one). The gateway is called after that transaction, with an
 * idempotency key made of the row's id, and its answer recorded here.
 */
export const paymentRefunds = pgTable(
  "payment_refunds",
  {
    id: id(),
    paymentId: uuid("payment_id")
      .notNull()
      .references(() => payments.id),
    scope: text("scope", { enum: REFUND_SCOPES }).notNull(),
    /** The line a `line` refund gives back. */
    orderItemId: uuid("order_item_id").references(() => orderItems.id),
    amountCents: integer("amount_cents").notNull(),
    /** What the amount is made of (see RefundPart); null only on refunds recorded before this table (the whole payment). */
    parts: jsonb("parts").$type<RefundPart[]>(),
    reason: text("reason", { enum: REFUND_REASONS }).notNull(),
    state: text("state", { enum: REFUND_STATES }).notNull().default("pending"),
    /** The provider's refund (Stripe's re_…), once it answered; its status as it gave it (requires_action, canceled…). */
    gatewayRefundId: text("gateway_refund_id").unique(),
    gatewayStatus: text("gateway_status"),
    /** The provider's reason when it failed (for the operator). */
    failureReason: text("failure_reason"),
    /** Who asked: `operator:<name>`, or `portal` (a refund the portal made itself). */
    requestedBy: text("requested_by").notNull(),
    requestedAt: timestamp("requested_at", { withTimezone: true }).notNull(),
    completedAt: timestamp("completed_at", { withTimezone: true }),
    /** While pending: when the sweep asks the provider again (a notification may be lost). */
    nextCheckAt: timestamp("next_check_at", { withTimezone: true }),
    createdAt: createdAt(),
  },
  (t) => [
    index("payment_refunds_payment_idx").on(t.paymentId),
    index("payment_refunds_pending_idx").on(t.state, t.nextCheckAt),
    check("payment_refunds_amount_positive", sql`${t.amountCents} > 0`),
    check("payment_refunds_line_named", sql`(${t.scope} = 'line') = (${t.orderItemId} is not null)`),
  ],
);

/** The customer's record at a payment provider (a Stripe Customer), made at their first card payment. */
export const paymentCustomers = pgTable(
  "payment_customers",
  {
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id),
    gateway: text("gateway", { enum: PAYMENT_GATEWAYS }).notNull(),
    customerRef: text("customer_ref").notNull().unique(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("payment_customers_pk").on(t.userId, t.gateway)],
);

/**
 * The provider's notifications (Stripe webhooks), each recorded once by its id: a delivery
 * repeated, or sent again in another order, finds it and does nothing more.
 */
export const gatewayEvents = pgTable(
  "gateway_events",
  {
    id: id(),
    gateway: text("gateway", { enum: PAYMENT_GATEWAYS }).notNull(),
    eventId: text("event_id").notNull(),
    type: text("type").notNull(),
    receivedAt: timestamp("received_at", { withTimezone: true }).notNull(),
  },
  (t) => [uniqueIndex("gateway_events_event_uq").on(t.gateway, t.eventId)],
);

/**
 * The sandbox gateway's own records (setups and charges), standing in for a provider's: the
 * portal's tables refer to them only by id, as they would to Stripe's.
 */
export const sandboxGatewayObjects = pgTable("sandbox_gateway_objects", {
  id: text("id").primaryKey(),
  kind: text("kind", { enum: ["setup", "charge", "refund"] }).notNull(),
  /** A request repeated with the same key gets the first one's object (as with Stripe). */
  idempotencyKey: text("idempotency_key").unique(),
  data: jsonb("data").notNull(),
  createdAt: createdAt(),
});
