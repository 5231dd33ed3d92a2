// The EDU subscription's life (README, "EDU subscription"): bought at the checkout (its first
// month is the checkout's charge), then charged every month on the anchor's day with the card
// saved by the checkout, off-session, term after term of 6 months, until the customer cancels or
// a charge still fails after its retries. EDU access follows the paid months: each paid month
// grants the customer that month.
//
// Once only, whatever crashes, restarts or second instances happen:
//   - a month is one row, unique per (subscription, number), created once;
//   - it is charged only by whoever claims it (one UPDATE … FOR UPDATE SKIP LOCKED, with a
//     lease): a try at a time, each try one charge created and confirmed with idempotency keys
//     derived from (month, try), its id stored before it is confirmed;
//   - a try whose lease ran out (its instance died) is taken over: the charge it made is read
//     at the provider and finished, never made again; the next try starts only once the
//     previous one's failure is recorded;
//   - the payment is unique per month (payments.subscription_period_id) and written in the
//     transaction that marks the month paid, with the access it grants and the next month.
// No transaction is held open across a call to the gateway.
import { and, asc, desc, eq, inArray, lte, ne, or, sql, type SQL } from "drizzle-orm";
import type { Database, Queryable, Transaction } from "../db/client.ts";
import {
  orders,
  payments,
  products,
  subscriptionCardUpdates,
  subscriptionPeriods,
  subscriptions,
  users,
  type PaymentGatewayName,
} from "../db/schema.ts";
import { enqueueJob, type JobRunner } from "../jobs/runner.ts";
import { grantEntitlement, lockCustomer } from "../library/entitlements.ts";
import { systemClock, type Clock } from "../lib/clock.ts";
import { forEachConcurrently } from "../lib/concurrently.ts";
import { isUuid } from "../lib/uuid.ts";
import type { Logger } from "../logger.ts";
import type { MailService } from "../mail/service.ts";
import type { RateLimits } from "../security/rate-limits.ts";
import {
  subscriptionCancelledMail,
  subscriptionChargeFailedMail,
  subscriptionChargeReceiptMail,
  subscriptionEndedMail,
  subscriptionRenewalNoticeMail,
  subscriptionStartedMail,
} from "../mail/templates.ts";
import type { Charge, PaymentGateway } from "../payments/gateway.ts";
import { insertPayment } from "../payments/payment-rows.ts";
import { formatDate, formatEuro } from "../../shared/format.ts";
import { receiptPath, SUBSCRIPTION_PATH } from "../../shared/links.ts";
import {
  DAY_MS,
  INSTALMENTS_PER_TERM,
  instalmentOf,
  nextRetryAt,
  periodStart,
  RENEWAL_NOTICE_DAYS,
  termOf,
  type SubscriptionStatus,
} from "../../shared/subscription.ts";

/** How long a claimed month belongs to the instance charging it. */
const CHARGE_LEASE_MS = 5 * 60_000;
/** … and to a customer paying it now, who may spend a while on their bank's 3-D Secure page. */
const ON_SESSION_LEASE_MS = 30 * 60_000;
/** Months an instance charges at once (each holds a database connection only between its calls). */
const CHARGES_AT_ONCE = 4;
/** A retry is never sooner than this after the last try (an instance catching up after a long stop). */
const MIN_RETRY_GAP_MS = DAY_MS;
const MAIL_QUEUE = "subscription-mail";

type SubscriptionRow = typeof subscriptions.$inferSelect;
type PeriodRow = typeof subscriptionPeriods.$inferSelect;

type MailKind = "started" | "renewal" | "receipt" | "charge_failed" | "cancelled" | "ended";
type MailJob = {
  kind: MailKind;
  subscriptionId: string;
  periodId?: string;
  /** For "cancelled": the cancellation it confirms (epoch ms). */
  cancelledAt?: number;
  /** For "charge_failed": the bank wants the customer to authenticate the charge ('Paga ora'). */
  needsAuthentication?: boolean;
};

/** What a month's try came to, as the page of a customer paying now shows it. */
export type MonthOutcome =
  | { state: "paid" }
  | { state: "failed"; errorMessage?: string | null }
  /** The charge runs, or another instance has the month: look again later. */
  | { state: "pending" }
  /** The bank's 3-D Secure page, where the customer goes now. */
  | { state: "requires_action"; redirectUrl: string };

function mailJob(job: MailJob, key: string, runAt: Date) {
  return { queue: MAIL_QUEUE, key: `${MAIL_QUEUE}:${key}`, payload: job, runAt };
}

/** Inserts month `number` as scheduled (once), and the renewal notice when it opens a new term. */
async function scheduleMonth(tx: Queryable, sub: SubscriptionRow, number: number, at: Date) {
  const startsAt = periodStart(sub.anchorAt, number);
  await tx
    .insert(subscriptionPeriods)
    .values({
      subscriptionId: sub.id,
      number,
      startsAt,
      endsAt: periodStart(sub.anchorAt, number + 1),
      amountCents: sub.monthlyPriceCents,
      status: "scheduled",
      nextAttemptAt: startsAt,
      createdAt: at,
      updatedAt: at,
    })
    .onConflictDoNothing();
  if (instalmentOf(number) === 1) {
    const noticeAt = new Date(Math.max(startsAt.getTime() - RENEWAL_NOTICE_DAYS * DAY_MS, at.getTime()));
    await enqueueJob(
      tx,
      mailJob({ kind: "renewal", subscriptionId: sub.id }, `renewal:${sub.id}:${termOf(number)}`, noticeAt),
      at,
    );
  }
}

/** The access a paid month gives: that month, on the subscription's order. */
async function grantMonth(tx: Transaction, sub: SubscriptionRow, period: Pick<PeriodRow, "startsAt" | "endsAt">, at: Date) {
  await grantEntitlement(
    tx,
    {
      userId: sub.userId,
      productId: sub.productId,
      source: "subscription",
      startsAt: period.startsAt,
      expiresAt: period.endsAt,
      orderId: sub.orderId,
    },
    at,
  );
}

/**
 * The checkout paid a subscription's first month (in the payment's transaction): the
 * subscription, its first month paid with that payment and granted, the second month scheduled.
 */
export async function openSubscription(
  tx: Transaction,
  input: {
    userId: string;
    productId: string;
    orderId: string;
    paymentId: string;
    paidCents: number;
    monthlyPriceCents: number;
    gateway: PaymentGatewayName;
    setupId: string;
    card: { brand: string | null; last4: string | null };
    at: Date;
  },
): Promise<void> {
  const { at } = input;
  const [sub] = await tx
    .insert(subscriptions)
    .values({
      userId: input.userId,
      productId: input.productId,
      orderId: input.orderId,
      status: "active",
      gateway: input.gateway,
      setupId: input.setupId,
      cardBrand: input.card.brand,
      cardLast4: input.card.last4,
      monthlyPriceCents: input.monthlyPriceCents,
      anchorAt: at,
      createdAt: at,
      updatedAt: at,
    })
    .returning();
  const first = { startsAt: at, endsAt: periodStart(at, 2) };
  const [period] = await tx
    .insert(subscriptionPeriods)
    .values({
      subscriptionId: sub!.id,
      number: 1,
      ...first,
      amountCents: input.paidCents,
      status: "paid",
      tries: 1,
      createdAt: at,
      updatedAt: at,
    })
    .returning({ id: subscriptionPeriods.id });
  await tx.update(payments).set({ subscriptionPeriodId: period!.id }).where(eq(payments.id, input.paymentId));
  await grantMonth(tx, sub!, first, at);
  await scheduleMonth(tx, sub!, 2, at);
  await enqueueJob(tx, mailJob({ kind: "started", subscriptionId: sub!.id }, `started:${sub!.id}`, at), at);
}

/** A deleted account's subscriptions end at once (in the deletion's transaction): nothing more is charged. */
export async function endSubscriptionsOfDeletedAccount(tx: Queryable, userId: string, at: Date): Promise<void> {
  const ended = await tx
    .update(subscriptions)
    .set({ status: "ended", endedAt: at, endedReason: "account_deleted", updatedAt: at })
    .where(and(eq(subscriptions.userId, userId), ne(subscriptions.status, "ended")))
    .returning({ id: subscriptions.id });
  if (ended.length === 0) return;
  await tx
    .update(subscriptionPeriods)
    .set({ status: "void", nextAttemptAt: null, updatedAt: at })
    .where(
      and(
        inArray(
          subscriptionPeriods.subscriptionId,
          ended.map((s) => s.id),
        ),
        eq(subscriptionPeriods.status, "scheduled"),
      ),
    );
}

/** How long after it ended the dashboard still says why EDU ended. */
const ENDED_NOTICE_DAYS = 30;

/** What the dashboard and the EDU page say of a subscription that no longer gives access. */
export type SubscriptionNotice = { kind: "past_due" } | { kind: "ended"; reason: "cancelled" | "payment_failed"; endedAt: Date };

/**
 * Why a customer's EDU stopped, when their subscription is the reason: a charge being retried,
 * or a subscription that ended in the last days. Null otherwise (and for an erased account).
 */
export async function subscriptionNoticeOf(db: Queryable, userId: string, now: Date): Promise<SubscriptionNotice | null> {
  const [sub] = await db
    .select({ status: subscriptions.status, endedAt: subscriptions.endedAt, endedReason: subscriptions.endedReason })
    .from(subscriptions)
    .where(eq(subscriptions.userId, userId))
    .orderBy(desc(subscriptions.createdAt))
    .limit(1);
  if (sub?.status === "past_due") return { kind: "past_due" };
  if (
    sub?.status === "ended" &&
    sub.endedAt &&
    sub.endedAt.getTime() > now.getTime() - ENDED_NOTICE_DAYS * DAY_MS &&
    (sub.endedReason === "cancelled" || sub.endedReason === "payment_failed")
  ) {
    return { kind: "ended", reason: sub.endedReason, endedAt: sub.endedAt };
  }
  return null;
}

/** A month as the customer's page lists it. */
type PaidMonth = {
  number: number;
  instalment: number;
  startsAt: Date;
  endsAt: Date;
  amountCents: number;
  paidAt: Date;
  receiptHref: string;
};

/** The customer's subscription section (README, "EDU subscription"). */
export type SubscriptionView = {
  id: string;
  status: SubscriptionStatus;
  planName: string;
  monthlyPriceCents: number;
  card: { brand: string | null; last4: string | null };
  /** The paid month running now (or the last paid one): 'rata n di 6'. */
  instalment: number;
  instalments: number;
  /** Access runs until here (the end of the last paid month). */
  paidUntil: Date;
  /** The next charge, while one is coming. */
  nextCharge: { at: Date; amountCents: number; instalment: number } | null;
  /** A charge that failed and will be tried again (past due). */
  retry: { errorMessage: string | null; at: Date | null } | null;
  cancelledAt: Date | null;
  endedAt: Date | null;
  endedReason: SubscriptionRow["endedReason"];
  /** 'Riattiva' is offered while the paid month lasts. */
  canResume: boolean;
  paidMonths: PaidMonth[];
};

export type SubscriptionsOptions = {
  db: Database;
  gateway: PaymentGateway;
  rateLimits: RateLimits;
  runner: JobRunner;
  mail: MailService;
  publicOrigin: string;
  log: Logger;
  now?: Clock;
};

export function createSubscriptions({
  db,
  gateway,
  rateLimits,
  runner,
  mail,
  publicOrigin,
  log,
  now = systemClock,
}: SubscriptionsOptions) {
  const key = (purpose: string, periodId: string, tryNo: number) => `portal:${purpose}:${periodId}:${tryNo}`;
  const manageUrl = `${publicOrigin}${SUBSCRIPTION_PATH}`;

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
            and(eq(subscriptionPeriods.status, "charging"), sql`${subscriptionPeriods.leaseUntil} < ${at}`),
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
        leaseUntil: new Date(at.getTime() + leaseMs),
        updatedAt: at,
      })
      .where(inArray(subscriptionPeriods.id, due))
      .returning();
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
          idempotencyKey: key("month-charge-create", period.id, period.tries),
          metadata: { subscription_id: sub.id, period_id: period.id, try: String(period.tries) },
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
        current = await gateway.cancelCharge(chargeId, key("month-charge-cancel", period.id, period.tries));
      }
      charge =
        current && current.status !== "unconfirmed"
          ? current
          : await gateway.confirmCharge(chargeId, {
              offSession: !onSession,
              idempotencyKey: key("month-charge-confirm", period.id, period.tries),
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
    await db.transaction(async (tx) => {
      await lockCustomer(tx, sub.userId);
      const moved = await tx
        .update(subscriptionPeriods)
        .set({ status: "paid", leaseUntil: null, nextAttemptAt: null, lastError: null, updatedAt: at })
        .where(and(eq(subscriptionPeriods.id, period.id), eq(subscriptionPeriods.status, "charging")))
        .returning({ id: subscriptionPeriods.id });
      if (moved.length === 0) return; // another instance recorded it
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
      await scheduleMonth(tx, sub, period.number + 1, at);
      await tx
        .update(subscriptions)
        .set({ status: "active", updatedAt: at })
        .where(and(eq(subscriptions.id, sub.id), eq(subscriptions.status, "past_due")));
      await enqueueJob(
        tx,
        mailJob({ kind: "receipt", subscriptionId: sub.id, periodId: period.id }, `receipt:${period.id}`, at),
        at,
      );
    });
  }

  async function recordFailure(
    period: PeriodRow,
    sub: SubscriptionRow,
    errorMessage: string | null,
    needsAuthentication: boolean,
  ) {
    const at = now();
    const scheduled = nextRetryAt(period.startsAt, period.tries);
    const retryAt = scheduled && new Date(Math.max(scheduled.getTime(), at.getTime() + MIN_RETRY_GAP_MS));
    await db.transaction(async (tx) => {
      const moved = await tx
        .update(subscriptionPeriods)
        .set({
          status: retryAt ? "scheduled" : "failed",
          nextAttemptAt: retryAt,
          chargeId: null,
          leaseUntil: null,
          lastError: errorMessage,
          updatedAt: at,
        })
        .where(and(eq(subscriptionPeriods.id, period.id), eq(subscriptionPeriods.status, "charging")))
        .returning({ id: subscriptionPeriods.id });
      if (moved.length === 0) return;
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
        return;
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
    });
  }

  /** A month due on a cancelled (or ended) subscription is not charged: the subscription ends with the paid time. */
  async function endWithoutCharge(period: PeriodRow, sub: SubscriptionRow) {
    const at = now();
    await db.transaction(async (tx) => {
      const moved = await tx
        .update(subscriptionPeriods)
        .set({ status: "void", nextAttemptAt: null, leaseUntil: null, updatedAt: at })
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

  /** Composes and sends one of the subscription's mails, from what the database holds now. */
  async function sendMail({ kind, subscriptionId, periodId, cancelledAt, needsAuthentication = false }: MailJob): Promise<void> {
    const [row] = await db
      .select({
        sub: subscriptions,
        email: users.email,
        firstname: users.firstname,
        planName: products.name,
        orderCode: orders.orderCode,
      })
      .from(subscriptions)
      .innerJoin(users, eq(users.id, subscriptions.userId))
      .innerJoin(orders, eq(orders.id, subscriptions.orderId))
      .innerJoin(products, eq(products.id, subscriptions.productId))
      .where(eq(subscriptions.id, subscriptionId));
    // An erased account has no address: its mails are dropped.
    if (!row?.email) return;
    const { sub, firstname, planName } = row;
    const [period] = periodId ? await db.select().from(subscriptionPeriods).where(eq(subscriptionPeriods.id, periodId)) : [];
    const next = await nextScheduled(sub.id);
    const monthly = formatEuro(sub.monthlyPriceCents);
    let content;
    switch (kind) {
      case "started":
        content = subscriptionStartedMail({
          firstname,
          planName,
          monthly,
          nextCharge: next ? formatDate(next.startsAt) : null,
          manageUrl,
        });
        break;
      case "renewal":
        // A subscription cancelled since, or ended, does not renew: nothing to announce.
        if (sub.status !== "active" || !next || instalmentOf(next.number) !== 1) return;
        content = subscriptionRenewalNoticeMail({ firstname, planName, monthly, renewsOn: formatDate(next.startsAt), manageUrl });
        break;
      case "receipt": {
        if (!period) return;
        const [payment] = await db
          .select({ code: payments.paymentCode })
          .from(payments)
          .where(eq(payments.subscriptionPeriodId, period.id));
        if (!payment) return;
        content = subscriptionChargeReceiptMail({
          firstname,
          planName,
          instalment: `${instalmentOf(period.number)} di ${INSTALMENTS_PER_TERM}`,
          amount: formatEuro(period.amountCents),
          paidUntil: formatDate(period.endsAt),
          receiptUrl: `${publicOrigin}${receiptPath(row.orderCode, payment.code)}`,
        });
        break;
      }
      case "charge_failed":
        // Paid since (a new card), or its last try failed too (the "ended" mail says so): nothing to ask.
        if (period?.status !== "scheduled") return;
        content = subscriptionChargeFailedMail({
          firstname,
          planName,
          amount: formatEuro(period.amountCents),
          reason: period.lastError,
          retryOn: period.nextAttemptAt ? formatDate(period.nextAttemptAt) : null,
          needsAuthentication,
          updateCardUrl: manageUrl,
        });
        break;
      case "cancelled": {
        // 'Riattiva' since (or cancelled again, with a mail of its own): this cancellation no longer holds.
        if (sub.cancelledAt?.getTime() !== cancelledAt) return;
        const [paid] = await db
          .select({ until: sql<Date>`max(${subscriptionPeriods.endsAt})`.mapWith(subscriptionPeriods.endsAt) })
          .from(subscriptionPeriods)
          .where(and(eq(subscriptionPeriods.subscriptionId, sub.id), eq(subscriptionPeriods.status, "paid")));
        content = subscriptionCancelledMail({ firstname, planName, accessUntil: formatDate(paid!.until), manageUrl });
        break;
      }
      case "ended":
        content = subscriptionEndedMail({
          firstname,
          planName,
          reason: sub.endedReason === "payment_failed" ? "payment_failed" : "cancelled",
          endedOn: formatDate(sub.endedAt ?? now()),
          eduUrl: `${publicOrigin}/edu/`,
        });
        break;
    }
    await mail.send({ to: row.email, userId: sub.userId, ...content });
  }

  /** The next month waiting to be charged. */
  async function nextScheduled(subscriptionId: string): Promise<PeriodRow | undefined> {
    const [row] = await db
      .select()
      .from(subscriptionPeriods)
      .where(and(eq(subscriptionPeriods.subscriptionId, subscriptionId), eq(subscriptionPeriods.status, "scheduled")))
      .orderBy(asc(subscriptionPeriods.number))
      .limit(1);
    return row;
  }

  runner.sweep("subscription-charges", chargeDue);
  runner.handle(MAIL_QUEUE, sendMail);

  /** The customer's subscription that has not ended, if any. */
  async function liveOf(userId: string): Promise<SubscriptionRow | undefined> {
    const [row] = await db
      .select()
      .from(subscriptions)
      .where(and(eq(subscriptions.userId, userId), ne(subscriptions.status, "ended")))
      .limit(1);
    return row;
  }

  /** The customer's latest subscription (a live one first). */
  async function latestOf(userId: string): Promise<SubscriptionRow | undefined> {
    const [row] = await db
      .select()
      .from(subscriptions)
      .where(eq(subscriptions.userId, userId))
      .orderBy(sql`${subscriptions.status} = 'ended'`, desc(subscriptions.createdAt))
      .limit(1);
    return row;
  }

  return {
    /** The customer's subscription section, or null when they never subscribed. */
    async ofCustomer(userId: string): Promise<SubscriptionView | null> {
      const sub = await latestOf(userId);
      if (!sub) return null;
      const [plan] = await db
        .select({ name: products.name, orderCode: orders.orderCode })
        .from(products)
        .innerJoin(orders, eq(orders.id, sub.orderId))
        .where(eq(products.id, sub.productId));
      const months = await db
        .select({ period: subscriptionPeriods, paymentCode: payments.paymentCode, paidAt: payments.paidAt })
        .from(subscriptionPeriods)
        .leftJoin(payments, eq(payments.subscriptionPeriodId, subscriptionPeriods.id))
        .where(eq(subscriptionPeriods.subscriptionId, sub.id))
        .orderBy(asc(subscriptionPeriods.number));
      const at = now();
      const paid = months.filter((m) => m.period.status === "paid");
      const lastPaid = paid.at(-1)!.period;
      const current = paid.find((m) => m.period.startsAt <= at && at < m.period.endsAt)?.period ?? lastPaid;
      const waiting = months.find((m) => m.period.status === "scheduled" || m.period.status === "charging")?.period;
      const live = sub.status === "active" || sub.status === "past_due";
      return {
        id: sub.id,
        status: sub.status,
        planName: plan?.name ?? "EDU",
        monthlyPriceCents: sub.monthlyPriceCents,
        card: { brand: sub.cardBrand, last4: sub.cardLast4 },
        instalment: instalmentOf(current.number),
        instalments: INSTALMENTS_PER_TERM,
        paidUntil: lastPaid.endsAt,
        nextCharge:
          live && waiting
            ? {
                at: waiting.nextAttemptAt ?? waiting.startsAt,
                amountCents: waiting.amountCents,
                instalment: instalmentOf(waiting.number),
              }
            : null,
        retry: sub.status === "past_due" && waiting ? { errorMessage: waiting.lastError, at: waiting.nextAttemptAt } : null,
        cancelledAt: sub.cancelledAt,
        endedAt: sub.endedAt,
        endedReason: sub.endedReason,
        canResume: sub.status === "cancelled" && lastPaid.endsAt > at,
        paidMonths: paid.map(({ period, paymentCode, paidAt }) => ({
          number: period.number,
          instalment: instalmentOf(period.number),
          startsAt: period.startsAt,
          endsAt: period.endsAt,
          amountCents: period.amountCents,
          paidAt: paidAt ?? period.startsAt,
          receiptHref: paymentCode && plan ? receiptPath(plan.orderCode, paymentCode) : "",
        })),
      };
    },

    /**
     * 'Disdici': no further charges. An active subscription keeps its access to the end of the
     * paid month ('Riattiva' until then); one whose charge is failing ends now.
     */
    async cancel(userId: string): Promise<{ ok: boolean }> {
      const at = now();
      return db.transaction(async (tx) => {
        const [cancelled] = await tx
          .update(subscriptions)
          .set({ status: "cancelled", cancelledAt: at, updatedAt: at })
          .where(and(eq(subscriptions.userId, userId), eq(subscriptions.status, "active")))
          .returning();
        if (cancelled) {
          await enqueueJob(
            tx,
            mailJob(
              { kind: "cancelled", subscriptionId: cancelled.id, cancelledAt: at.getTime() },
              `cancelled:${cancelled.id}:${at.getTime()}`,
              at,
            ),
            at,
          );
          return { ok: true };
        }
        const [ended] = await tx
          .update(subscriptions)
          .set({ status: "ended", cancelledAt: at, endedAt: at, endedReason: "cancelled", updatedAt: at })
          .where(and(eq(subscriptions.userId, userId), eq(subscriptions.status, "past_due")))
          .returning();
        if (!ended) return { ok: false };
        await tx
          .update(subscriptionPeriods)
          .set({ status: "void", nextAttemptAt: null, updatedAt: at })
          .where(and(eq(subscriptionPeriods.subscriptionId, ended.id), eq(subscriptionPeriods.status, "scheduled")));
        await enqueueJob(tx, mailJob({ kind: "ended", subscriptionId: ended.id }, `ended:${ended.id}`, at), at);
        return { ok: true };
      });
    },

    /** 'Riattiva': a cancelled subscription goes on, while its paid month lasts (its next month not yet due). */
    async resume(userId: string): Promise<{ ok: boolean }> {
      const at = now();
      const resumed = await db
        .update(subscriptions)
        .set({ status: "active", cancelledAt: null, updatedAt: at })
        .where(
          and(
            eq(subscriptions.userId, userId),
            eq(subscriptions.status, "cancelled"),
            sql`exists (select 1 from ${subscriptionPeriods} p where p.subscription_id = ${subscriptions.id}
              and p.status = 'scheduled' and p.next_attempt_at > ${at})`,
          ),
        )
        .returning({ id: subscriptions.id });
      return { ok: resumed.length > 0 };
    },

    /**
     * 'Paga ora': the customer pays the month that failed, themselves (on-session), with the card
     * the subscription has. A bank asking for 3-D Secure sends them to its page, which comes back
     * to `returnUrl` (then `finishPayment`).
     */
    async payNow(userId: string, returnUrl: string): Promise<MonthOutcome | { state: "rate_limited" } | null> {
      const sub = await liveOf(userId);
      if (sub?.status !== "past_due") return null;
      if (!(await rateLimits.claimCardPayment(userId)).ok) return { state: "rate_limited" };
      const at = now();
      await db
        .update(subscriptionPeriods)
        .set({ nextAttemptAt: at, updatedAt: at })
        .where(and(eq(subscriptionPeriods.subscriptionId, sub.id), eq(subscriptionPeriods.status, "scheduled")));
      const [month] = await claimDue(at, 1, { subscriptionId: sub.id, leaseMs: ON_SESSION_LEASE_MS });
      // Another instance is charging it right now: the page shows how it went.
      if (!month) return { state: "pending" };
      return chargeMonth(month, { returnUrl });
    },

    /**
     * The bank's page sent the customer back: the month's charge is read at the provider and
     * recorded (what the provider already did, copied: repeating it changes nothing). Null when
     * the charge is none of this customer's months.
     */
    async finishPayment(userId: string, chargeId: string): Promise<MonthOutcome | null> {
      const [row] = await db
        .select({ period: subscriptionPeriods, sub: subscriptions })
        .from(subscriptionPeriods)
        .innerJoin(subscriptions, eq(subscriptions.id, subscriptionPeriods.subscriptionId))
        .where(and(eq(subscriptionPeriods.chargeId, chargeId), eq(subscriptions.userId, userId)));
      if (!row) {
        const [paid] = await db
          .select({ id: payments.id })
          .from(payments)
          .where(and(eq(payments.chargeId, chargeId), eq(payments.userId, userId)));
        return paid ? { state: "paid" } : null;
      }
      if (row.period.status !== "charging") return { state: row.period.status === "paid" ? "paid" : "failed" };
      const charge = await gateway.retrieveCharge(chargeId);
      if (!charge || charge.status === "unconfirmed") return { state: "pending" };
      return settleTry(row.period, row.sub, charge);
    },

    /**
     * 'Aggiorna carta': a new card step at the gateway for the customer's subscription (the
     * card form, or Stripe's, completes it; then `finishCardUpdate`). Counted with the card
     * payments of the hour, since every new card is a card tried.
     */
    async startCardUpdate(
      userId: string,
      customer: { email: string; name: string },
    ): Promise<{ ok: true; setupId: string; clientSecret: string } | { ok: false; reason: "no_subscription" | "rate_limited" }> {
      const sub = await liveOf(userId);
      if (!sub || sub.status === "cancelled") return { ok: false, reason: "no_subscription" };
      if (!(await rateLimits.claimCardPayment(userId)).ok) return { ok: false, reason: "rate_limited" };
      const at = now();
      const [update] = await db
        .insert(subscriptionCardUpdates)
        .values({ subscriptionId: sub.id, createdAt: at, updatedAt: at })
        .returning({ id: subscriptionCardUpdates.id });
      try {
        const setup = await gateway.createSetup({
          customer: { userId, ...customer },
          idempotencyKey: `portal:card-update:${update!.id}`,
          metadata: { subscription_id: sub.id, card_update_id: update!.id },
        });
        await db
          .update(subscriptionCardUpdates)
          .set({ setupId: setup.id, updatedAt: now() })
          .where(eq(subscriptionCardUpdates.id, update!.id));
        return { ok: true, setupId: setup.id, clientSecret: setup.clientSecret };
      } catch (error) {
        await db
          .update(subscriptionCardUpdates)
          .set({ status: "canceled", updatedAt: now() })
          .where(eq(subscriptionCardUpdates.id, update!.id));
        throw error;
      }
    },

    /**
     * Stripe's hosted card page makes a setup of its own: the customer's open card update takes
     * it as its setup (repeating it changes nothing). False when the update is not theirs or no
     * longer open.
     */
    async adoptCardUpdateSetup(userId: string, cardUpdateId: string, setupId: string): Promise<boolean> {
      if (!isUuid(cardUpdateId)) return false;
      const adopted = await db
        .update(subscriptionCardUpdates)
        .set({ setupId, updatedAt: now() })
        .where(
          and(
            eq(subscriptionCardUpdates.id, cardUpdateId),
            inArray(subscriptionCardUpdates.status, ["open", "done"]),
            sql`${subscriptionCardUpdates.subscriptionId} in (select id from ${subscriptions} where ${subscriptions.userId} = ${userId})`,
            or(eq(subscriptionCardUpdates.status, "open"), eq(subscriptionCardUpdates.setupId, setupId)),
          ),
        )
        .returning({ id: subscriptionCardUpdates.id });
      return adopted.length > 0;
    },

    /**
     * A month's charge moved at the provider (Stripe's payment_intent events): a try still under
     * way is recorded as the charge now stands. A succeeded charge no try is waiting for (its try
     * was recorded as failed, and a provider's own retry took the money after all) is an error
     * for an operator, who refunds it: the month may have been paid by another try.
     */
    async settleCharge(chargeId: string): Promise<MonthOutcome | null> {
      const [row] = await db
        .select({ period: subscriptionPeriods, sub: subscriptions })
        .from(subscriptionPeriods)
        .innerJoin(subscriptions, eq(subscriptions.id, subscriptionPeriods.subscriptionId))
        .where(eq(subscriptionPeriods.chargeId, chargeId));
      const charge = await gateway.retrieveCharge(chargeId);
      if (!row || row.period.status !== "charging") {
        const [recorded] = await db.select({ id: payments.id }).from(payments).where(eq(payments.chargeId, chargeId));
        if (charge?.status === "succeeded" && !recorded) {
          log.error({ chargeId }, "a subscription charge succeeded after its try was recorded: refund it");
        }
        return null;
      }
      if (!charge || charge.status === "unconfirmed" || charge.status === "requires_action") return { state: "pending" };
      return settleTry(row.period, row.sub, charge);
    },

    /** The card step whose card the customer's live subscription charges (the development clock's page changes its bank's answers). */
    async savedCardOf(userId: string): Promise<string | null> {
      return (await liveOf(userId))?.setupId ?? null;
    },

    /** Whether a charge is one of this customer's months (the sandbox's 3-D Secure page of a charge asks). */
    async isMonthChargeOf(userId: string, chargeId: string): Promise<boolean> {
      const [row] = await db
        .select({ id: subscriptionPeriods.id })
        .from(subscriptionPeriods)
        .innerJoin(subscriptions, eq(subscriptions.id, subscriptionPeriods.subscriptionId))
        .where(and(eq(subscriptionPeriods.chargeId, chargeId), eq(subscriptions.userId, userId)));
      return row !== undefined;
    },

    /** Whether a card step is one of this customer's card updates (the sandbox's 3-D Secure page asks). */
    async isCardUpdateOf(userId: string, setupId: string): Promise<boolean> {
      const [row] = await db
        .select({ id: subscriptionCardUpdates.id })
        .from(subscriptionCardUpdates)
        .innerJoin(subscriptions, eq(subscriptions.id, subscriptionCardUpdates.subscriptionId))
        .where(and(eq(subscriptionCardUpdates.setupId, setupId), eq(subscriptions.userId, userId)));
      return row !== undefined;
    },

    /**
     * The card step of a card update ended: when the card is set up, the subscription charges it
     * from now on, and a month waiting for a retry is charged at once (off-session: the customer
     * just gave the card for it). What the provider says is copied: repeating it changes nothing.
     */
    async finishCardUpdate(
      userId: string,
      setupId: string,
    ): Promise<
      | { state: "updated"; charge: MonthOutcome | null }
      | { state: "requires_customer"; errorMessage: string | null }
      | { state: "pending" }
      | null
    > {
      const [row] = await db
        .select({ update: subscriptionCardUpdates, sub: subscriptions })
        .from(subscriptionCardUpdates)
        .innerJoin(subscriptions, eq(subscriptions.id, subscriptionCardUpdates.subscriptionId))
        .where(and(eq(subscriptionCardUpdates.setupId, setupId), eq(subscriptions.userId, userId)));
      if (!row) return null;
      if (row.update.status === "done") return { state: "updated", charge: null };
      const setup = await gateway.retrieveSetup(setupId);
      if (!setup || setup.status === "processing") return { state: "pending" };
      if (setup.status !== "succeeded") return { state: "requires_customer", errorMessage: setup.errorMessage };
      const at = now();
      const changed = await db.transaction(async (tx) => {
        const done = await tx
          .update(subscriptionCardUpdates)
          .set({ status: "done", updatedAt: at })
          .where(and(eq(subscriptionCardUpdates.id, row.update.id), eq(subscriptionCardUpdates.status, "open")))
          .returning({ id: subscriptionCardUpdates.id });
        if (done.length === 0) return false;
        await tx
          .update(subscriptions)
          .set({ setupId, cardBrand: setup.card?.brand ?? null, cardLast4: setup.card?.last4 ?? null, updatedAt: at })
          .where(eq(subscriptions.id, row.sub.id));
        return true;
      });
      if (!changed || row.sub.status !== "past_due") return { state: "updated", charge: null };
      await db
        .update(subscriptionPeriods)
        .set({ nextAttemptAt: at, updatedAt: at })
        .where(and(eq(subscriptionPeriods.subscriptionId, row.sub.id), eq(subscriptionPeriods.status, "scheduled")));
      const [month] = await claimDue(at, 1, { subscriptionId: row.sub.id });
      return { state: "updated", charge: month ? await chargeMonth(month) : null };
    },

    /** For operators: the months due now, the subscriptions past due, and the months whose every try failed. */
    async report(): Promise<OperatorReport> {
      const at = now();
      const rows = (where: SQL | undefined, order: SQL) =>
        db
          .select({
            subscriptionId: subscriptions.id,
            status: subscriptions.status,
            userId: subscriptions.userId,
            number: subscriptionPeriods.number,
            periodStatus: subscriptionPeriods.status,
            dueAt: subscriptionPeriods.startsAt,
            nextAttemptAt: subscriptionPeriods.nextAttemptAt,
            tries: subscriptionPeriods.tries,
            amountCents: subscriptionPeriods.amountCents,
            lastError: subscriptionPeriods.lastError,
          })
          .from(subscriptionPeriods)
          .innerJoin(subscriptions, eq(subscriptions.id, subscriptionPeriods.subscriptionId))
          .where(where)
          .orderBy(order);
      const [due, pastDue, failed] = await Promise.all([
        rows(
          or(
            and(eq(subscriptionPeriods.status, "scheduled"), lte(subscriptionPeriods.nextAttemptAt, at)),
            eq(subscriptionPeriods.status, "charging"),
          ),
          asc(subscriptionPeriods.nextAttemptAt),
        ),
        rows(
          and(eq(subscriptions.status, "past_due"), inArray(subscriptionPeriods.status, ["scheduled", "charging"])),
          asc(subscriptionPeriods.nextAttemptAt),
        ),
        rows(eq(subscriptionPeriods.status, "failed"), desc(subscriptionPeriods.updatedAt)),
      ]);
      return { at, due, pastDue, failed };
    },
  };
}

export type OperatorRow = {
  subscriptionId: string;
  status: SubscriptionStatus;
  userId: string;
  number: number;
  periodStatus: PeriodRow["status"];
  dueAt: Date;
  nextAttemptAt: Date | null;
  tries: number;
  amountCents: number;
  lastError: string | null;
};
export type OperatorReport = { at: Date; due: OperatorRow[]; pastDue: OperatorRow[]; failed: OperatorRow[] };
