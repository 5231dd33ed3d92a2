// Subscriptions (EDU): the subscription, its months and its card updates.
import { sql } from "drizzle-orm";
import { check, index, integer, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { SUBSCRIPTION_STATUSES } from "#shared/subscription.ts";
import { products } from "./catalogue.ts";
import { users } from "./accounts.ts";
import { orders } from "./orders.ts";
import { PAYMENT_GATEWAYS } from "./payment-gateways.ts";
import { id, createdAt } from "./columns.ts";

export const SUBSCRIPTION_END_REASONS = ["cancelled", "payment_failed", "account_deleted", "refunded"] as const;

/**
 * A customer's subscription to a plan (EDU): charged every month on the anchor's day with the
 * card saved at the checkout, term after term, until cancelled or a charge finally fails
 * (docs/payments.md, "EDU subscription"). `cancelled`: no further charges, access to the end of the
 * paid month, 'Riattiva' possible until then; `past_due`: a charge failed and is being retried.
 */
export const subscriptions = pgTable(
  "subscriptions",
  {
    id: id(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id),
    productId: uuid("product_id")
      .notNull()
      .references(() => products.id),
    /** The checkout's order: every month's payment is recorded on it, each with its receipt. */
    orderId: uuid("order_id")
      .notNull()
      .unique()
      .references(() => orders.id),
    status: text("status", { enum: SUBSCRIPTION_STATUSES }).notNull(),
    gateway: text("gateway", { enum: PAYMENT_GATEWAYS }).notNull(),
    /** The card charged each month: the setup that saved it (the checkout's, or the latest card update). */
    setupId: text("setup_id").notNull(),
    cardBrand: text("card_brand"),
    cardLast4: text("card_last4"),
    monthlyPriceCents: integer("monthly_price_cents").notNull(),
    /** Period 1 starts here; period n starts n − 1 (+ `freeMonths`) months later, on Rome's calendar. */
    anchorAt: timestamp("anchor_at", { withTimezone: true }).notNull(),
    /**
     * Months given free during the subscription (eBook+EDU codes, operators' grants): they took
     * the place of the next charges, so every month scheduled since starts that many months later.
     */
    freeMonths: integer("free_months").notNull().default(0),
    /** The end of the latest months given free (the start of the month charged after them). */
    freeUntil: timestamp("free_until", { withTimezone: true }),
    /** Who gave the latest of those months: an eBook+EDU code, or an operator (`customer:grant`). */
    freeBy: text("free_by", { enum: ["activation_code", "operator"] }),
    /** When the customer cancelled ('Disdici'); cleared by 'Riattiva'. */
    cancelledAt: timestamp("cancelled_at", { withTimezone: true }),
    endedAt: timestamp("ended_at", { withTimezone: true }),
    endedReason: text("ended_reason", { enum: SUBSCRIPTION_END_REASONS }),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("subscriptions_one_live_per_plan")
      .on(t.userId, t.productId)
      .where(sql`${t.status} <> 'ended'`),
    check("subscriptions_price_positive", sql`${t.monthlyPriceCents} > 0`),
  ],
);

/**
 * `scheduled`: waits for `next_attempt_at` (its due date, or a retry's); `charging`: a try is
 * under way, claimed until `lease_until`; `paid`; `failed`: every try failed; `void`: never
 * charged, the subscription ended first.
 */
export const SUBSCRIPTION_PERIOD_STATUSES = ["scheduled", "charging", "paid", "failed", "void"] as const;
export type SubscriptionPeriodStatus = (typeof SUBSCRIPTION_PERIOD_STATUSES)[number];

/**
 * One month of a subscription. (subscription, number) is unique, so a month exists once, and
 * it is charged only by whoever claims it: a try at a time, each try one charge with idempotency
 * keys of its own, the next try only once the last one's failure is recorded.
 */
export const subscriptionPeriods = pgTable(
  "subscription_periods",
  {
    id: id(),
    subscriptionId: uuid("subscription_id")
      .notNull()
      .references(() => subscriptions.id),
    /** 1, 2, …: 1–6 the first term, 7–12 the second, … */
    number: integer("number").notNull(),
    startsAt: timestamp("starts_at", { withTimezone: true }).notNull(),
    endsAt: timestamp("ends_at", { withTimezone: true }).notNull(),
    amountCents: integer("amount_cents").notNull(),
    status: text("status", { enum: SUBSCRIPTION_PERIOD_STATUSES }).notNull(),
    /** Scheduled tries made so far (part of each try's idempotency keys, so it only grows). */
    tries: integer("tries").notNull().default(0),
    /**
     * Scheduled tries made before free months moved the month on (a past-due month an eBook+EDU
     * code replaced): its retry schedule counts only the tries after them.
     */
    triesBeforeMove: integer("tries_before_move").notNull().default(0),
    /**
     * Tries the customer made themselves ('Paga ora', a new card): they have keys of their own and
     * leave the scheduled retries as they were.
     */
    customerTries: integer("customer_tries").notNull().default(0),
    /** While `charging`: whose try it is (a scheduled one, or the customer's). */
    tryKind: text("try_kind", { enum: ["scheduled", "customer"] }),
    nextAttemptAt: timestamp("next_attempt_at", { withTimezone: true }),
    leaseUntil: timestamp("lease_until", { withTimezone: true }),
    /** The current try's charge, stored before it is confirmed so that a crash can be reconciled. */
    chargeId: text("charge_id").unique(),
    /** The provider's message of the last failed try. */
    lastError: text("last_error"),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("subscription_periods_subscription_number_uq").on(t.subscriptionId, t.number),
    index("subscription_periods_due_idx").on(t.status, t.nextAttemptAt),
    check("subscription_periods_amount_positive", sql`${t.amountCents} > 0`),
  ],
);

/**
 * 'Aggiorna carta': a card set up for a subscription (a setup at the gateway, 3-D Secure there).
 * When it succeeds the subscription charges that card from then on.
 */
export const subscriptionCardUpdates = pgTable("subscription_card_updates", {
  id: id(),
  subscriptionId: uuid("subscription_id")
    .notNull()
    .references(() => subscriptions.id),
  setupId: text("setup_id").unique(),
  status: text("status", { enum: ["open", "done", "canceled"] })
    .notNull()
    .default("open"),
  createdAt: createdAt(),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
});
