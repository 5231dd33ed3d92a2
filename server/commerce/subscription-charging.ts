// Charging the EDU subscription's months (docs/payments.md, "EDU subscription"): the runner's
// sweep claims the months due, charges each with the card the subscription has, and records what
// came of it.
//
// Once only, whatever crashes, restarts or second instances happen:
//   - a month is one row, unique per (subscription, number), created once;
//   - it is charged only by whoever claims it (one UPDATE … FOR UPDATE SKIP LOCKED, with a
//     lease): a try at a time, each try one charge created and confirmed with idempotency keys
//     derived from (month, try), its id stored before it is confirmed;
//   - a try whose lease ran out (its instance died) is taken over: the charge it made is read
//     at the provider and finished, never made again; the next try starts only once the
//     previous one's failure is recorded (a charge still waiting for the customer is cancelled
//     at the provider first);
//   - a try the customer makes ('Paga ora', a new card) has keys of its own and, when it fails,
//     leaves the month waiting for its scheduled retry as before: pressing 'Paga ora' with a card
//     still declined never uses up the retries;
//   - the payment is unique per month (payments.subscription_period_id) and written in the
//     transaction that marks the month paid, with the access it grants and the next month.
// No transaction is held open across a call to the gateway.
import { and, asc, eq, inArray, lte, or, sql } from "drizzle-orm";
import type { Database } from "#server/db/client.ts";
import { subscriptionPeriods, subscriptions } from "#server/db/schema/index.ts";
import { enqueueJob } from "#server/jobs/runner.ts";
import { lockCustomer } from "#server/db/customer-lock.ts";
import { systemClock, type Clock } from "#server/lib/clock.ts";
import { forEachConcurrently } from "#server/lib/concurrently.ts";
import type { Logger } from "#server/logger.ts";
import type { Metrics } from "#server/metrics.ts";
import type { Charge, PaymentGateway } from "#server/payments/gateway.ts";
import { insertPayment } from "#server/payments/payment-rows.ts";
import { DAY_MS, INSTALMENTS_PER_TERM, instalmentOf, nextRetryAt } from "#shared/subscription.ts";
import { grantMonth, mailJob, scheduleMonth, type PeriodRow, type SubscriptionRow } from "./subscription-records.ts";

/** How long a claimed month belongs to the instance charging it. */
const CHARGE_LEASE_MS = 5 * 60_000;
/** … and to a customer paying it now, who may spend a while on their bank's 3-D Secure page. */
export const ON_SESSION_LEASE_MS = 30 * 60_000;
/** Months an instance charges at once (each holds a database connection only between its calls). */
const CHARGES_AT_ONCE = 4;
/** A retry is never sooner than this after the last try (an instance catching up after a long stop). */
const MIN_RETRY_GAP_MS = DAY_MS;
/** What a month's try came to, as the page of a customer paying now shows it. */
export type MonthOutcome =
  | { state: "paid" }
  | { state: "failed"; errorMessage?: string | null }
  /** The charge runs, or another instance has the month: look again later. */
  | { state: "pending" }
  /** The bank's 3-D Secure page, where the customer goes now. */
  | { state: "requires_action"; redirectUrl: string };

export function createMonthCharging({
  db,
  gateway,
  log,
  now = systemClock,
  metrics,
}: {
  db: Database;
  gateway: PaymentGateway;
  log: Logger;
  now?: Clock;
  /** Where the months charged and the tries declined are counted, once recorded (server/metrics.ts). */
  metrics?: Metrics;
}) {
  /** Which try of the month this is: the scheduled tries by number, the customer's numbered apart. */
  const tryOf = (period: PeriodRow) =>
    period.tryKind === "customer" ? `customer-${period.customerTries}` : String(period.tries);
  /** A try's idempotency key: per month and try. */
  const key = (purpose: string, period: PeriodRow) => `portal:${purpose}:${period.id}:${tryOf(period)}`;

  /**
   * Claims the months due at `at` (and tries whose instance died), at most `limit`; only the
   * subscription's when one is named (the customer paying now). `leaseMs`: how long the claim holds.
   */
  async function claimDue(
    at: Date,
    limit: number,
    { subscriptionId, leaseMs = CHARGE_LEASE_MS }: { subscriptionId?: string; leaseMs?: number } = {},
  ): Promise<PeriodRow[]> {
    const due = db
      .select({ id: subscriptionPeriods.id })
      .from(subscriptionPeriods)
      .where(
        and(
          subscriptionId ? eq(subscriptionPeriods.subscriptionId, subscriptionId) : undefined,
          or(
            and(eq(subscriptionPeriods.status, "scheduled"), lte(subscriptionPeriods.nextAttemptAt, at)),
            and(eq(subscriptionPeriods.status, "charging"), lte(subscriptionPeriods.leaseUntil, at)),
          ),
        ),
      )
      .orderBy(asc(subscriptionPeriods.nextAttemptAt))
      .limit(limit)
      .for("update", { skipLocked: true });
    return db
      .update(subscriptionPeriods)
      .set({
        status: "charging",
        // A new try when the month was waiting; the same try when a dead instance's is taken over.
        tries: sql`case when ${subscriptionPeriods.status} = 'scheduled' then ${subscriptionPeriods.tries} + 1 else ${subscriptionPeriods.tries} end`,
        tryKind: sql`case when ${subscriptionPeriods.status} = 'scheduled' then 'scheduled' else ${subscriptionPeriods.tryKind} end`,
        leaseUntil: new Date(at.getTime() + leaseMs),
        updatedAt: at,
      })
      .where(inArray(subscriptionPeriods.id, due))
      .returning();
  }

  /**
   * Claims the subscription's month waiting for a retry for a try of the customer's own, now,
   * whenever its retry is scheduled (which stays as it is); undefined when none waits (another
   * instance is charging it).
   */
  async function claimForCustomer(subscriptionId: string, leaseMs = CHARGE_LEASE_MS): Promise<PeriodRow | undefined> {
    const at = now();
    const [month] = await db
      .update(subscriptionPeriods)
      .set({
        status: "charging",
        customerTries: sql`${subscriptionPeriods.customerTries} + 1`,
        tryKind: "customer",
        leaseUntil: new Date(at.getTime() + leaseMs),
        updatedAt: at,
      })
      .where(and(eq(subscriptionPeriods.subscriptionId, subscriptionId), eq(subscriptionPeriods.status, "scheduled")))
      .returning();
    return month;
  }

  /**
   * The claimed month's try: charge the card (or finish the charge a dead instance made) and
   * record the outcome. Off-session, unless the customer is paying now (`onSession`): then a bank
   * asking for 3-D Secure sends them to its page, and the month waits for them.
   */
  async function chargeMonth(period: PeriodRow, onSession?: { returnUrl: string }): Promise<MonthOutcome> {
    const [sub] = await db.select().from(subscriptions).where(eq(subscriptions.id, period.subscriptionId));
    if (!sub) throw new Error(`Subscription ${period.subscriptionId} vanished`);
    if (!period.chargeId && (sub.status === "cancelled" || sub.status === "ended")) {
      await endWithoutCharge(period, sub);
      return { state: "failed" };
    }
    let charge;
    try {
      let chargeId = period.chargeId;
      if (!chargeId) {
        ({ id: chargeId } = await gateway.createCharge({
          setupId: sub.setupId,
          amountCents: period.amountCents,
          description: `Abbonamento EDU, rata ${instalmentOf(period.number)} di ${INSTALMENTS_PER_TERM}`,
          idempotencyKey: key("month-charge-create", period),
          metadata: {
            subscription_id: sub.id,
            period_id: period.id,
            try: tryOf(period),
          },
        }));
        await db
          .update(subscriptionPeriods)
          .set({ chargeId, updatedAt: now() })
          .where(and(eq(subscriptionPeriods.id, period.id), eq(subscriptionPeriods.status, "charging")));
      }
      // A charge made before (by an instance that died, or waiting for a customer who did not
      // finish authenticating it) is read as it stands; only one never confirmed is confirmed,
      // with the try's one key. One still waiting for its authentication is cancelled first, so
      // that it can no longer take money once this try is recorded as failed.
      let current = period.chargeId ? await gateway.retrieveCharge(chargeId) : null;
      if (current?.status === "requires_action") {
        current = await gateway.cancelCharge(chargeId, key("month-charge-cancel", period));
      }
      charge =
        current && current.status !== "unconfirmed"
          ? current
          : await gateway.confirmCharge(chargeId, {
              offSession: !onSession,
              idempotencyKey: key("month-charge-confirm", period),
              returnUrl: onSession?.returnUrl,
              authenticateBy: "redirect",
            });
    } catch (err) {
      // The lease runs out and a later tick takes the try over with the same keys.
      log.error({ err, periodId: period.id }, "a subscription charge could not be completed; it will be retried");
      return { state: "pending" };
    }
    return settleTry(period, sub, charge);
  }

  /** Records what a month's charge came to. */
  async function settleTry(period: PeriodRow, sub: SubscriptionRow, charge: Charge): Promise<MonthOutcome> {
    switch (charge.status) {
      case "succeeded":
        await recordPaid(period, sub, charge.id);
        return { state: "paid" };
      case "failed":
        await recordFailure(period, sub, charge.errorMessage, charge.needsAuthentication);
        return { state: "failed", errorMessage: charge.errorMessage };
      case "requires_action":
        // Only a customer present gets here: their lease lasts while they authenticate.
        return charge.redirectUrl ? { state: "requires_action", redirectUrl: charge.redirectUrl } : { state: "pending" };
      default:
        // Processing: the lease runs out and a later tick reads the charge again.
        return { state: "pending" };
    }
  }

  async function recordPaid(period: PeriodRow, sub: SubscriptionRow, chargeId: string) {
    const at = now();
    const recorded = await db.transaction(async (tx) => {
      await lockCustomer(tx, sub.userId);
      const moved = await tx
        .update(subscriptionPeriods)
        .set({ status: "paid", leaseUntil: null, nextAttemptAt: null, lastError: null, tryKind: null, updatedAt: at })
        .where(and(eq(subscriptionPeriods.id, period.id), eq(subscriptionPeriods.status, "charging")))
        .returning({ id: subscriptionPeriods.id });
      if (moved.length === 0) return false; // another instance recorded it
      await insertPayment(tx, {
        orderId: sub.orderId,
        userId: sub.userId,
        gateway: sub.gateway,
        methodCode: "card_setup",
        amountCents: period.amountCents,
        chargeId,
        cardBrand: sub.cardBrand,
        cardLast4: sub.cardLast4,
        paidAt: at,
        subscriptionPeriodId: period.id,
        createdAt: at,
      });
      await grantMonth(tx, sub, period, at);
      // As the subscription is now: free months given while this month was charged (an eBook+EDU
      // code) put the next month after them.
      const [current] = await tx.select().from(subscriptions).where(eq(subscriptions.id, sub.id));
      await scheduleMonth(tx, current!, period.number + 1, at);
      await tx
        .update(subscriptions)
        .set({ status: "active", updatedAt: at })
        .where(and(eq(subscriptions.id, sub.id), eq(subscriptions.status, "past_due")));
      await enqueueJob(
        tx,
        mailJob({ kind: "receipt", subscriptionId: sub.id, periodId: period.id }, `receipt:${period.id}`, at),
        at,
      );
      return true;
    });
    // Counted once committed, by the instance whose record moved the month.
    if (recorded) metrics?.subscriptions.monthsCharged.inc({ gateway: gateway.name });
  }

  /** A declined try, counted once its record has committed. */
  const countFailed = (outcome: "retry" | "last" | "customer") =>
    metrics?.subscriptions.monthsFailed.inc({ gateway: gateway.name, outcome });

  async function recordFailure(
    period: PeriodRow,
    sub: SubscriptionRow,
    errorMessage: string | null,
    needsAuthentication: boolean,
  ) {
    const at = now();
    if (period.tryKind === "customer") {
      // The customer saw it fail on the page: the month waits for its scheduled retry as before.
      const moved = await db
        .update(subscriptionPeriods)
        .set({ status: "scheduled", chargeId: null, leaseUntil: null, tryKind: null, lastError: errorMessage, updatedAt: at })
        .where(and(eq(subscriptionPeriods.id, period.id), eq(subscriptionPeriods.status, "charging")))
        .returning({ id: subscriptionPeriods.id });
      if (moved.length > 0) countFailed("customer");
      return;
    }
    const scheduled = nextRetryAt(period.startsAt, period.tries - period.triesBeforeMove);
    const retryAt = scheduled && new Date(Math.max(scheduled.getTime(), at.getTime() + MIN_RETRY_GAP_MS));
    const recorded = await db.transaction(async (tx) => {
      const moved = await tx
        .update(subscriptionPeriods)
        .set({
          status: retryAt ? "scheduled" : "failed",
          nextAttemptAt: retryAt,
          chargeId: null,
          leaseUntil: null,
          tryKind: null,
          lastError: errorMessage,
          updatedAt: at,
        })
        .where(and(eq(subscriptionPeriods.id, period.id), eq(subscriptionPeriods.status, "charging")))
        .returning({ id: subscriptionPeriods.id });
      if (moved.length === 0) return false;
      if (retryAt) {
        await tx
          .update(subscriptions)
          .set({ status: "past_due", updatedAt: at })
          .where(and(eq(subscriptions.id, sub.id), eq(subscriptions.status, "active")));
        await enqueueJob(
          tx,
          mailJob(
            { kind: "charge_failed", subscriptionId: sub.id, periodId: period.id, needsAuthentication },
            `charge-failed:${period.id}:${period.tries}`,
            at,
          ),
          at,
        );
        return true;
      }
      // The last try failed: the subscription ends; access was paid up to this month's start.
      const ended = await tx
        .update(subscriptions)
        .set({ status: "ended", endedAt: period.startsAt, endedReason: "payment_failed", updatedAt: at })
        .where(and(eq(subscriptions.id, sub.id), inArray(subscriptions.status, ["active", "past_due"])))
        .returning({ id: subscriptions.id });
      if (ended.length > 0) {
        await enqueueJob(tx, mailJob({ kind: "ended", subscriptionId: sub.id }, `ended:${sub.id}`, at), at);
      }
      return true;
    });
    if (recorded) countFailed(retryAt ? "retry" : "last");
  }

  /** A month due on a cancelled (or ended) subscription is not charged: the subscription ends with the paid time. */
  async function endWithoutCharge(period: PeriodRow, sub: SubscriptionRow) {
    const at = now();
    await db.transaction(async (tx) => {
      const moved = await tx
        .update(subscriptionPeriods)
        .set({ status: "void", nextAttemptAt: null, leaseUntil: null, tryKind: null, updatedAt: at })
        .where(and(eq(subscriptionPeriods.id, period.id), eq(subscriptionPeriods.status, "charging")))
        .returning({ id: subscriptionPeriods.id });
      if (moved.length === 0) return;
      const ended = await tx
        .update(subscriptions)
        .set({ status: "ended", endedAt: period.startsAt, endedReason: "cancelled", updatedAt: at })
        .where(and(eq(subscriptions.id, sub.id), eq(subscriptions.status, "cancelled")))
        .returning({ id: subscriptions.id });
      if (ended.length > 0) {
        await enqueueJob(tx, mailJob({ kind: "ended", subscriptionId: sub.id }, `ended:${sub.id}`, at), at);
      }
    });
  }

  /** The sweep: the months due now, each charged by this instance only. */
  async function chargeDue(at: Date, limit: number): Promise<number> {
    const claimed = await claimDue(at, limit);
    // A few at once: most of a charge's time is spent waiting for the provider.
    await forEachConcurrently(claimed, CHARGES_AT_ONCE, async (period) => {
      try {
        await chargeMonth(period);
      } catch (err) {
        log.error({ err, periodId: period.id }, "a subscription month could not be handled; its lease will run out");
      }
    });
    return claimed.length;
  }

  return {
    claimForCustomer,
    chargeMonth,
    settleTry,
    /** The sweep: the months due now, each charged by this instance only. */
    chargeDue,
  };
}
