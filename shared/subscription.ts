// The EDU subscription's calendar and rules (spec §1, §9; docs/payments.md, "EDU subscription"),
// shared by the services that charge it and the pages that show it.
import { EDU_MONTHS } from "./library-constants.ts";
import { fromRomeWallClock, romeWallClock } from "./rome-clock.ts";

/** Instalments in one term: 6 monthly charges, then the subscription renews for 6 more. */
export const INSTALMENTS_PER_TERM = EDU_MONTHS;

/**
 * A charge that fails is tried again this many days after the instalment was due; when the last
 * try fails too, the subscription ends (access was paid up to the due date).
 */
export const RETRY_AFTER_DAYS: readonly number[] = [1, 3, 7];

/** The mail announcing the next 6 months leaves this many days before the renewal's first charge. */
export const RENEWAL_NOTICE_DAYS = 7;

export const DAY_MS = 86_400_000;

/** The subscription's statuses: what the customer's page and the operators see. */
export const SUBSCRIPTION_STATUSES = ["active", "past_due", "cancelled", "ended"] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

/** 7 → 1: the instalment of a period within its term ("rata 1 di 6"). */
export function instalmentOf(periodNumber: number): number {
  return ((periodNumber - 1) % INSTALMENTS_PER_TERM) + 1;
}

/** 7 → 2: the term a period belongs to. */
export function termOf(periodNumber: number): number {
  return Math.floor((periodNumber - 1) / INSTALMENTS_PER_TERM) + 1;
}

/**
 * When the subscription's period `number` starts (1: the anchor). Months are counted on Rome's
 * calendar from the anchor, never chained, so a subscription taken on the 31st is charged on the
 * last day of shorter months and on the 31st again after them, at the same hour of the day.
 */
export function periodStart(anchor: Date, number: number): Date {
  const wall = romeWallClock(anchor);
  const day = wall.getUTCDate();
  const target = new Date(wall);
  target.setUTCDate(1);
  target.setUTCMonth(target.getUTCMonth() + number - 1);
  const lastDay = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(day, lastDay));
  return fromRomeWallClock(target);
}

/**
 * When a failed instalment is tried again after `failedTries` tries (days on Rome's calendar
 * after it was due, at the same hour), or null when none is left.
 */
export function nextRetryAt(dueAt: Date, failedTries: number): Date | null {
  const days = RETRY_AFTER_DAYS[failedTries - 1];
  if (days === undefined) return null;
  const wall = romeWallClock(dueAt);
  wall.setUTCDate(wall.getUTCDate() + days);
  return fromRomeWallClock(wall);
}

/** What the dashboard and the EDU page say of a subscription that no longer gives access. */
export type SubscriptionNotice = { kind: "past_due" } | { kind: "ended"; reason: "cancelled" | "payment_failed"; endedAt: Date };
