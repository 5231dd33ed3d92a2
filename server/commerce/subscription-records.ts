// The EDU subscription's rows as other services' transactions write them (the checkout's payment
// opens a subscription, an account's deletion ends it), what the charging and the mails share (a
// month scheduled, the access a paid month gives, a mail's job), and what the dashboard reads of
// it. docs/payments.md, "EDU subscription".
import { and, asc, desc, eq, inArray, ne, type SQL } from "drizzle-orm";
import type { Queryable, Transaction } from "#server/db/client.ts";
import {
  jobs,
  payments,
  type SUBSCRIPTION_END_REASONS,
  subscriptionPeriods,
  subscriptions,
  type PaymentGatewayName,
} from "#server/db/schema/index.ts";
import { enqueueJob } from "#server/jobs/runner.ts";
import { extendEdu, grantEntitlement, type MovedGrant } from "#server/library/entitlements.ts";
import { DAY_MS, instalmentOf, periodStart, RENEWAL_NOTICE_DAYS, termOf, type SubscriptionNotice } from "#shared/subscription.ts";

export const MAIL_QUEUE = "subscription-mail";

export type SubscriptionRow = typeof subscriptions.$inferSelect;
export type PeriodRow = typeof subscriptionPeriods.$inferSelect;

type MailKind = "started" | "renewal" | "receipt" | "charge_failed" | "cancelled" | "ended" | "postponed";
export type MailJob = {
  kind: MailKind;
  subscriptionId: string;
  periodId?: string;
  /** For "cancelled": the cancellation it confirms (epoch ms). */
  cancelledAt?: number;
  /** For "charge_failed": the bank wants the customer to authenticate the charge ('Paga ora'). */
  needsAuthentication?: boolean;
};

export function mailJob(job: MailJob, key: string, runAt: Date) {
  return { queue: MAIL_QUEUE, key: `${MAIL_QUEUE}:${key}`, payload: job, runAt };
}

/**
 * When month `number` runs: on the anchor's calendar, after the months codes gave in place of
 * charges (`freeMonths`).
 */
function monthDates(anchorAt: Date, number: number, freeMonths: number) {
  return { startsAt: periodStart(anchorAt, number + freeMonths), endsAt: periodStart(anchorAt, number + freeMonths + 1) };
}

/** Inserts month `number` as scheduled (once), and the renewal notice when it opens a new term. */
export async function scheduleMonth(tx: Queryable, sub: SubscriptionRow, number: number, at: Date) {
  const { startsAt, endsAt } = monthDates(sub.anchorAt, number, sub.freeMonths);
  await tx
    .insert(subscriptionPeriods)
    .values({
      subscriptionId: sub.id,
      number,
      startsAt,
      endsAt,
      amountCents: sub.monthlyPriceCents,
      status: "scheduled",
      nextAttemptAt: startsAt,
      createdAt: at,
      updatedAt: at,
    })
    .onConflictDoNothing();
  if (instalmentOf(number) === 1) {
    await enqueueJob(
      tx,
      mailJob({ kind: "renewal", subscriptionId: sub.id }, renewalKey(sub.id, number), noticeAt(startsAt, at)),
      at,
    );
  }
}

/** The renewal notice of the term month `number` opens. */
const renewalKey = (subscriptionId: string, number: number) => `renewal:${subscriptionId}:${termOf(number)}`;
/** A renewal notice goes a week before the term's first month (at once when that is closer). */
const noticeAt = (startsAt: Date, at: Date) =>
  new Date(Math.max(startsAt.getTime() - RENEWAL_NOTICE_DAYS * DAY_MS, at.getTime()));

/** Who gives EDU months free: an eBook+EDU code, or an operator (`customer:grant`). */
export type FreeEduSource = "activation_code" | "operator";

/** The customer's subscription that runs (active, or cancelled but not over; past due when asked), its row locked. */
async function lockRunningSubscription(
  tx: Transaction,
  userId: string,
  { pastDue = false }: { pastDue?: boolean } = {},
): Promise<SubscriptionRow | undefined> {
  const [sub] = await tx
    .select()
    .from(subscriptions)
    .where(
      and(
        eq(subscriptions.userId, userId),
        inArray(subscriptions.status, pastDue ? ["active", "cancelled", "past_due"] : ["active", "cancelled"]),
      ),
    )
    .for("update");
  return sub;
}

/**
 * Months of EDU given free (an eBook+EDU code, an operator's grant), in the caller's transaction
 * with the customer locked. During a subscription they take the place of its next charges
 * (postponeNextCharge), so no month they cover is ever charged; otherwise they come after any EDU
 * running (extendEdu). Returns the grant.
 */
export async function giveFreeEduMonths(
  tx: Transaction,
  grant: { userId: string; orderId: string | null; months: number; source: FreeEduSource; at: Date },
) {
  return (
    (await postponeNextCharge(tx, grant)) ??
    extendEdu(tx, { userId: grant.userId, orderId: grant.orderId, now: grant.at, months: grant.months, source: grant.source })
  );
}

/**
 * Free EDU months given while the customer's subscription runs (or is cancelled but not over, or
 * past due): they take the place of the next charges instead of being added after the paid ones.
 * In the giver's transaction: the month waiting to be charged (locked, so the charging sweep
 * passes it by) starts `months` later and every month scheduled after it follows (`free_months`),
 * its renewal notice moves with it, EDU is granted from where the paid months end to the moved
 * month, and (unless cancelled) a mail says so. A month past due (its charge failed, a retry
 * waiting) is replaced the same way: its retries stop, the subscription is active again, and when
 * it comes due after the free months its retries start afresh. A month being charged this very
 * moment stays as it is, and the free months come after it. Null without a live subscription:
 * the months then come after the access as usual.
 */
async function postponeNextCharge(
  tx: Transaction,
  {
    userId,
    orderId,
    months,
    source,
    at,
  }: { userId: string; orderId: string | null; months: number; source: FreeEduSource; at: Date },
) {
  const sub = await lockRunningSubscription(tx, userId, { pastDue: true });
  if (!sub) return null;
  // Waited for, not skipped, when the charging sweep is claiming it: then it is being charged.
  const [next] = await tx
    .select()
    .from(subscriptionPeriods)
    .where(and(eq(subscriptionPeriods.subscriptionId, sub.id), eq(subscriptionPeriods.status, "scheduled")))
    .orderBy(asc(subscriptionPeriods.number))
    .limit(1)
    .for("update");
  // A month being charged this very moment cannot move: the free months come right after it, and
  // the month after it, scheduled when its payment is recorded, starts after them.
  const [charging] = next
    ? []
    : await tx
        .select()
        .from(subscriptionPeriods)
        .where(and(eq(subscriptionPeriods.subscriptionId, sub.id), eq(subscriptionPeriods.status, "charging")));
  if (!next && !charging) return null;

  const freeMonths = sub.freeMonths + months;
  const freeFrom = next ? next.startsAt : charging!.endsAt;
  const { startsAt, endsAt } = monthDates(sub.anchorAt, next ? next.number : charging!.number + 1, freeMonths);
  if (next) {
    await tx
      .update(subscriptionPeriods)
      // The tries stay counted (their idempotency keys are spent); the retry schedule starts afresh.
      .set({ startsAt, endsAt, nextAttemptAt: startsAt, triesBeforeMove: next.tries, lastError: null, updatedAt: at })
      .where(eq(subscriptionPeriods.id, next.id));
    await moveRenewalNotice(tx, sub.id, next.number, startsAt, at);
  }
  await tx
    .update(subscriptions)
    .set({
      status: next && sub.status === "past_due" ? "active" : sub.status,
      freeMonths,
      freeUntil: startsAt,
      freeBy: source,
      updatedAt: at,
    })
    .where(eq(subscriptions.id, sub.id));
  const grant = await grantEntitlement(
    tx,
    { userId, productId: sub.productId, source, startsAt: freeFrom, expiresAt: startsAt, orderId },
    at,
  );
  if (sub.status !== "cancelled") {
    // Keyed by the grant: an operator's grants have no order, and each one is told.
    await enqueueJob(tx, mailJob({ kind: "postponed", subscriptionId: sub.id }, `postponed:${sub.id}:${grant.id}`, at), at);
  }
  return grant;
}

/** A month that opens a term moved: its renewal notice, not sent yet, moves with it. */
async function moveRenewalNotice(tx: Transaction, subscriptionId: string, number: number, startsAt: Date, at: Date) {
  if (instalmentOf(number) !== 1) return;
  await tx
    .update(jobs)
    .set({ runAt: noticeAt(startsAt, at), updatedAt: at })
    .where(and(eq(jobs.key, `${MAIL_QUEUE}:${renewalKey(subscriptionId, number)}`), eq(jobs.status, "queued")));
}

/**
 * A refund cut the customer's EDU short and the months an eBook+EDU code gave in place of the
 * next charges moved back to where access now ends (`closeEduGap`): the month waiting to be
 * charged after them moves back as far, so that it starts where they now end, and so does the
 * subscription's calendar (its anchor), so that the months after it follow on. In the refund's
 * transaction. Nothing moves when no live subscription waits behind a moved grant.
 */
export async function followMovedFreeMonths(tx: Transaction, userId: string, moved: readonly MovedGrant[], at: Date) {
  if (moved.length === 0) return;
  const sub = await lockRunningSubscription(tx, userId);
  const grant = sub?.freeUntil && moved.find((m) => m.formerEnd?.getTime() === sub.freeUntil!.getTime());
  if (!sub || !grant || !grant.expiresAt) return;
  const [next] = await tx
    .select()
    .from(subscriptionPeriods)
    .where(
      and(
        eq(subscriptionPeriods.subscriptionId, sub.id),
        eq(subscriptionPeriods.status, "scheduled"),
        eq(subscriptionPeriods.startsAt, sub.freeUntil!),
      ),
    )
    .for("update");
  if (!next) return;
  const anchorAt = new Date(sub.anchorAt.getTime() - (grant.formerEnd!.getTime() - grant.expiresAt.getTime()));
  const startsAt = grant.expiresAt;
  const endsAt = periodStart(anchorAt, next.number + sub.freeMonths + 1);
  await tx
    .update(subscriptionPeriods)
    .set({ startsAt, endsAt, nextAttemptAt: startsAt, updatedAt: at })
    .where(eq(subscriptionPeriods.id, next.id));
  await tx.update(subscriptions).set({ anchorAt, freeUntil: startsAt, updatedAt: at }).where(eq(subscriptions.id, sub.id));
  await moveRenewalNotice(tx, sub.id, next.number, startsAt, at);
}

/** The access a paid month gives: that month, on the subscription's order. */
export async function grantMonth(
  tx: Transaction,
  sub: SubscriptionRow,
  period: Pick<PeriodRow, "startsAt" | "endsAt">,
  at: Date,
) {
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

/**
 * Ends at once the subscriptions matching `which` that have not ended (in the caller's
 * transaction), their months not yet charged void: nothing more is charged. Returns their ids.
 */
export async function endSubscriptionsNow(
  tx: Queryable,
  which: SQL | undefined,
  reason: (typeof SUBSCRIPTION_END_REASONS)[number],
  at: Date,
): Promise<string[]> {
  const ended = await tx
    .update(subscriptions)
    .set({ status: "ended", endedAt: at, endedReason: reason, updatedAt: at })
    .where(and(which, ne(subscriptions.status, "ended")))
    .returning({ id: subscriptions.id });
  const ids = ended.map((s) => s.id);
  if (ids.length === 0) return ids;
  await tx
    .update(subscriptionPeriods)
    .set({ status: "void", nextAttemptAt: null, updatedAt: at })
    .where(and(inArray(subscriptionPeriods.subscriptionId, ids), eq(subscriptionPeriods.status, "scheduled")));
  return ids;
}

/** A deleted account's subscriptions end at once (in the deletion's transaction): nothing more is charged. */
export async function endSubscriptionsOfDeletedAccount(tx: Queryable, userId: string, at: Date): Promise<void> {
  await endSubscriptionsNow(tx, eq(subscriptions.userId, userId), "account_deleted", at);
}

/** How long after it ended the dashboard still says why EDU ended. */
const ENDED_NOTICE_DAYS = 30;

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
