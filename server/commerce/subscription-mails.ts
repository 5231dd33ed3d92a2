// The EDU subscription's mails (docs/payments.md, "EDU subscription"): each is a job enqueued with
// the change it tells of, and composed here when it is sent, from what the database holds then: a
// mail no longer true (a renewal notice after 'Disdici', a failed charge paid since) is not sent.
import { and, asc, eq, sql } from "drizzle-orm";
import type { Database } from "#server/db/client.ts";
import { orders, payments, products, subscriptionPeriods, subscriptions, users } from "#server/db/schema/index.ts";
import { systemClock, type Clock } from "#server/lib/clock.ts";
import type { MailService } from "#server/mail/service.ts";
import {
  subscriptionCancelledMail,
  subscriptionChargeFailedMail,
  subscriptionChargeReceiptMail,
  subscriptionEndedMail,
  subscriptionPostponedMail,
  subscriptionRenewalNoticeMail,
  subscriptionStartedMail,
} from "#server/mail/templates.ts";
import { formatDate } from "#shared/format.ts";
import { formatEuro } from "#shared/euro.ts";
import { EDU_PATH, receiptPath, SUBSCRIPTION_PATH } from "#shared/links.ts";
import { INSTALMENTS_PER_TERM, instalmentOf } from "#shared/subscription.ts";
import { type MailJob, type PeriodRow } from "./subscription-records.ts";

export function createSubscriptionMails({
  db,
  mail,
  publicOrigin,
  now = systemClock,
}: {
  db: Database;
  mail: MailService;
  publicOrigin: string;
  now?: Clock;
}) {
  const manageUrl = `${publicOrigin}${SUBSCRIPTION_PATH}`;

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
    const monthly = formatEuro(sub.monthlyPriceCents);
    let content;
    switch (kind) {
      case "started": {
        const next = await nextScheduled(sub.id);
        content = subscriptionStartedMail({
          firstname,
          planName,
          monthly,
          nextCharge: next ? formatDate(next.startsAt) : null,
          manageUrl,
        });
        break;
      }
      case "postponed": {
        // Cancelled since, or its month moved again (that activation has a mail of its own): the
        // date to announce is the one the database holds now.
        const next = await nextScheduled(sub.id);
        if (sub.status !== "active" || !next || !sub.freeUntil) return;
        content = subscriptionPostponedMail({
          firstname,
          planName,
          freeUntil: formatDate(next.startsAt),
          monthly,
          manageUrl,
          by: sub.freeBy ?? "activation_code",
        });
        break;
      }
      case "renewal": {
        // A subscription cancelled since, or ended, does not renew: nothing to announce.
        const next = await nextScheduled(sub.id);
        if (sub.status !== "active" || !next || instalmentOf(next.number) !== 1) return;
        content = subscriptionRenewalNoticeMail({ firstname, planName, monthly, renewsOn: formatDate(next.startsAt), manageUrl });
        break;
      }
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
          eduUrl: `${publicOrigin}${EDU_PATH}`,
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

  return sendMail;
}
