// The EDU subscription (docs/payments.md, "EDU subscription"): bought at the checkout (its first
// month is the checkout's charge), then charged every month on the anchor's day with the card saved
// by the checkout, off-session, term after term of 6 months, until the customer cancels or a charge
// still fails after its retries. EDU access follows the paid months. This module is what the pages
// and the operators call; the months' charging is subscription-charging.ts, the mails
// subscription-mails.ts, the rows other services write subscription-records.ts.
import { and, asc, desc, eq, inArray, lte, ne, or, sql, type SQL } from "drizzle-orm";
import type { Database } from "#server/db/client.ts";
import {
  orders,
  payments,
  products,
  subscriptionCardUpdates,
  subscriptionPeriods,
  subscriptions,
} from "#server/db/schema/index.ts";
import { enqueueJob, type JobRunner } from "#server/jobs/runner.ts";
import { systemClock, type Clock } from "#server/lib/clock.ts";
import { isGatewayRef } from "#server/lib/ids.ts";
import { isUuid } from "#server/lib/uuid.ts";
import type { Logger } from "#server/logger.ts";
import type { Metrics } from "#server/metrics.ts";
import type { MailService } from "#server/mail/service.ts";
import type { RateLimits } from "#server/security/rate-limits.ts";
import type { PaymentGateway } from "#server/payments/gateway.ts";
import { customerRefundsOf, enqueueRefund, refundsOfPayments, type CustomerRefund } from "#server/payments/refunds.ts";
import { receiptPath } from "#shared/links.ts";
import { INSTALMENTS_PER_TERM, instalmentOf, type SubscriptionStatus } from "#shared/subscription.ts";
import { createMonthCharging, ON_SESSION_LEASE_MS, type MonthOutcome } from "./subscription-charging.ts";
import { createSubscriptionMails } from "./subscription-mails.ts";
import { MAIL_QUEUE, mailJob, type PeriodRow, type SubscriptionRow } from "./subscription-records.ts";

/** A month as the customer's page lists it. */
type PaidMonth = {
  number: number;
  instalment: number;
  startsAt: Date;
  endsAt: Date;
  amountCents: number;
  paidAt: Date;
  receiptHref: string;
  /** Money given back from the month's payment, or on its way. */
  refunds: CustomerRefund[];
};

/** The customer's subscription section (docs/payments.md, "EDU subscription"). */
export type SubscriptionView = {
  id: string;
  status: SubscriptionStatus;
  planName: string;
  monthlyPriceCents: number;
  card: { brand: string | null; last4: string | null };
  /** The paid month running now (or the last paid one): 'rata n di 6'. */
  instalment: number;
  instalments: number;
  /**
   * Access runs until here: the end of the last paid month, or of the months an eBook+EDU code
   * gave after it; a month given back whole gave access only until its refund.
   */
  paidUntil: Date;
  /** While they last: the end of the months given free (an eBook+EDU code, an operator) in place of charges. */
  freeUntil: Date | null;
  /** Who gave them. */
  freeBy: SubscriptionRow["freeBy"];
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
  /** Where the months charged and declined are counted (server/metrics.ts). */
  metrics?: Metrics;
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
  metrics,
}: SubscriptionsOptions) {
  const { claimForCustomer, chargeMonth, settleTry, chargeDue } = createMonthCharging({ db, gateway, log, now, metrics });
  runner.sweep("subscription-charges", chargeDue);
  runner.handle(MAIL_QUEUE, createSubscriptionMails({ db, mail, publicOrigin, now }));

  /** The customer's subscription that has not ended, if any. */
  async function liveOf(userId: string): Promise<SubscriptionRow | undefined> {
    const [row] = await db
      .select()
      .from(subscriptions)
      .where(and(eq(subscriptions.userId, userId), ne(subscriptions.status, "ended")))
      .limit(1);
    return row;
  }

  /** The month whose current try is this charge, with its subscription (the customer's only, when named). */
  async function monthOfCharge(chargeId: string, userId?: string) {
    if (!isGatewayRef(chargeId)) return undefined;
    const [row] = await db
      .select({ period: subscriptionPeriods, sub: subscriptions })
      .from(subscriptionPeriods)
      .innerJoin(subscriptions, eq(subscriptions.id, subscriptionPeriods.subscriptionId))
      .where(and(eq(subscriptionPeriods.chargeId, chargeId), userId ? eq(subscriptions.userId, userId) : undefined));
    return row;
  }

  /** The customer's card update of this card step, with its subscription. */
  async function cardUpdateOf(userId: string, setupId: string) {
    if (!isGatewayRef(setupId)) return undefined;
    const [row] = await db
      .select({ update: subscriptionCardUpdates, sub: subscriptions })
      .from(subscriptionCardUpdates)
      .innerJoin(subscriptions, eq(subscriptions.id, subscriptionCardUpdates.subscriptionId))
      .where(and(eq(subscriptionCardUpdates.setupId, setupId), eq(subscriptions.userId, userId)));
    return row;
  }

  /** The customer's latest subscription (a live one first), for the statement below. */
  const latest = db
    .select({
      id: subscriptions.id,
      productId: subscriptions.productId,
      orderId: subscriptions.orderId,
      status: subscriptions.status,
      cardBrand: subscriptions.cardBrand,
      cardLast4: subscriptions.cardLast4,
      monthlyPriceCents: subscriptions.monthlyPriceCents,
      cancelledAt: subscriptions.cancelledAt,
      endedAt: subscriptions.endedAt,
      endedReason: subscriptions.endedReason,
      freeUntil: subscriptions.freeUntil,
      freeBy: subscriptions.freeBy,
    })
    .from(subscriptions)
    .where(eq(subscriptions.userId, sql.placeholder("userId")))
    .orderBy(sql`${subscriptions.status} = 'ended'`, desc(subscriptions.createdAt))
    .limit(1)
    .as("latest");

  /**
   * The customer's subscription section in one statement, prepared once (/my-products/ and its
   * subscription page read it on every visit): the latest subscription, its plan and its months
   * with their payments, one row per month; no row when they never subscribed.
   */
  const customerSubscription = db
    .select({
      sub: {
        id: latest.id,
        status: latest.status,
        cardBrand: latest.cardBrand,
        cardLast4: latest.cardLast4,
        monthlyPriceCents: latest.monthlyPriceCents,
        cancelledAt: latest.cancelledAt,
        endedAt: latest.endedAt,
        endedReason: latest.endedReason,
        freeUntil: latest.freeUntil,
        freeBy: latest.freeBy,
      },
      planName: products.name,
      planOrderCode: orders.orderCode,
      period: subscriptionPeriods,
      paymentId: payments.id,
      paymentCode: payments.paymentCode,
      paidAt: payments.paidAt,
    })
    .from(latest)
    .leftJoin(products, eq(products.id, latest.productId))
    .leftJoin(orders, eq(orders.id, latest.orderId))
    .leftJoin(subscriptionPeriods, eq(subscriptionPeriods.subscriptionId, latest.id))
    .leftJoin(payments, eq(payments.subscriptionPeriodId, subscriptionPeriods.id))
    .orderBy(asc(subscriptionPeriods.number))
    .prepare("subscription_of_customer");

  return {
    /** The customer's subscription section, or null when they never subscribed. */
    async ofCustomer(userId: string): Promise<SubscriptionView | null> {
      const rows = await customerSubscription.execute({ userId });
      if (rows.length === 0) return null;
      const { sub, planName, planOrderCode } = rows[0]!;
      const plan = planName !== null && planOrderCode !== null ? { name: planName, orderCode: planOrderCode } : undefined;
      const months = rows.flatMap(({ period, paymentId, paymentCode, paidAt }) =>
        period ? [{ period, paymentId, paymentCode, paidAt }] : [],
      );
      const at = now();
      const paid = months.filter((m) => m.period.status === "paid");
      const refunds = await refundsOfPayments(
        db,
        paid.flatMap((m) => (m.paymentId ? [m.paymentId] : [])),
      );
      // A month whose payment went back whole gave access only until its refund was decided.
      const accessEnd = ({ period, paymentId }: (typeof paid)[number]) => {
        const whole = refunds.find((r) => r.paymentId === paymentId && r.scope === "payment");
        if (!whole) return period.endsAt;
        return new Date(Math.min(period.endsAt.getTime(), Math.max(period.startsAt.getTime(), whole.requestedAt.getTime())));
      };
      const lastPaid = paid.at(-1)!.period;
      const current = paid.find((m) => m.period.startsAt <= at && at < m.period.endsAt)?.period ?? lastPaid;
      const waiting = months.find((m) => m.period.status === "scheduled" || m.period.status === "charging")?.period;
      const live = sub.status === "active" || sub.status === "past_due";
      const freeUntil = sub.freeUntil && sub.freeUntil > at && sub.status !== "ended" ? sub.freeUntil : null;
      const monthsUntil = new Date(Math.max(...paid.map((m) => accessEnd(m).getTime())));
      const paidUntil = freeUntil && freeUntil > monthsUntil ? freeUntil : monthsUntil;
      return {
        id: sub.id,
        status: sub.status,
        planName: plan?.name ?? "EDU",
        monthlyPriceCents: sub.monthlyPriceCents,
        card: { brand: sub.cardBrand, last4: sub.cardLast4 },
        instalment: instalmentOf(current.number),
        instalments: INSTALMENTS_PER_TERM,
        paidUntil,
        freeUntil,
        freeBy: freeUntil ? sub.freeBy : null,
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
        canResume: sub.status === "cancelled" && paidUntil > at,
        paidMonths: paid.map(({ period, paymentId, paymentCode, paidAt }) => ({
          number: period.number,
          instalment: instalmentOf(period.number),
          startsAt: period.startsAt,
          endsAt: period.endsAt,
          amountCents: period.amountCents,
          paidAt: paidAt ?? period.startsAt,
          receiptHref: paymentCode && plan ? receiptPath(plan.orderCode, paymentCode) : "",
          refunds: paymentId ? customerRefundsOf(refunds, paymentId) : [],
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
      if (!(await rateLimits.checkCardPayment(userId)).ok) return { state: "rate_limited" };
      const month = await claimForCustomer(sub.id, ON_SESSION_LEASE_MS);
      // Another instance is charging it right now: the page shows how it went.
      if (!month) return { state: "pending" };
      // Spent only by a press that charges (its try failing leaves the scheduled retries be).
      await rateLimits.claimCardPayment(userId);
      return chargeMonth(month, { returnUrl });
    },

    /**
     * The bank's page sent the customer back: the month's charge is read at the provider and
     * recorded (what the provider already did, copied: repeating it changes nothing). Null when
     * the charge is none of this customer's months.
     */
    async finishPayment(userId: string, chargeId: string): Promise<MonthOutcome | null> {
      const row = await monthOfCharge(chargeId, userId);
      if (!row) {
        if (!isGatewayRef(chargeId)) return null;
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
      if (!isUuid(cardUpdateId) || !isGatewayRef(setupId)) return false;
      const adopted = await db
        .update(subscriptionCardUpdates)
        .set({ setupId, updatedAt: now() })
        .where(
          and(
            eq(subscriptionCardUpdates.id, cardUpdateId),
            sql`${subscriptionCardUpdates.subscriptionId} in (select id from ${subscriptions} where ${subscriptions.userId} = ${userId})`,
            // Open; or done with this very setup (the same return read again).
            or(
              eq(subscriptionCardUpdates.status, "open"),
              and(eq(subscriptionCardUpdates.status, "done"), eq(subscriptionCardUpdates.setupId, setupId)),
            ),
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
      if (!isGatewayRef(chargeId)) return null;
      const row = await monthOfCharge(chargeId);
      const charge = await gateway.retrieveCharge(chargeId);
      if (!row || row.period.status !== "charging") {
        const [recorded] = await db.select({ id: payments.id }).from(payments).where(eq(payments.chargeId, chargeId));
        if (charge?.status === "succeeded" && !recorded) {
          // The month was settled otherwise (another try paid it, or it failed for good): the
          // money goes back rather than sit unrecorded.
          log.warn({ chargeId }, "a subscription charge succeeded after its try was recorded: refunding it");
          await enqueueRefund(db, { chargeId, reason: "stray_charge" }, now());
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
      return (await monthOfCharge(chargeId, userId)) !== undefined;
    },

    /** Whether a card step is one of this customer's card updates (the sandbox's 3-D Secure page asks). */
    async isCardUpdateOf(userId: string, setupId: string): Promise<boolean> {
      return (await cardUpdateOf(userId, setupId)) !== undefined;
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
      const row = await cardUpdateOf(userId, setupId);
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
      const month = await claimForCustomer(row.sub.id);
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

type OperatorRow = {
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
