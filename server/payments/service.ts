// Paying an order by card (spec §4 "Payment flow"), the same for every gateway. This module moves
// and records the money; what the order becomes is commerce's, asked through the hooks of
// OrderSettlement (order-settlement.ts, answered by commerce/settlement.ts). Commerce starts the
// payment (commerce/order-payments.ts) and opens its attempt here:
//   open    — an attempt is recorded in commerce's transaction that moves the order new →
//             waitforpayment, and the gateway sets up the customer's card (openCardStep).
//   settle  — once the card is set up: the attempt is claimed with a lease, charged with
//             idempotency keys of its own, and the payment, the order's new status and what
//             it grants are written in one transaction. The return page's checks, the sandbox's
//             card step and the reconciler all call it; whoever comes second finds it done.
//   reset   — the customer gives up the attempt (spec: resetpaymenthub): the order is new again.
//   reconcile — every instance, each minute: settles what nobody checked, and ends what was left
//             (a card step abandoned, an attempt a dead instance never started).
// An attempt moves only from the status its mover read (one conditional UPDATE each), so a reset
// and a settlement racing never both win: an attempt already charging is never closed. A charge
// that succeeds for an order that is no longer waiting for it is recorded and refunded. EDU is
// sold once (decision 024): its rule is checked again, under the customer's lock, in the claim's
// transaction (nothing is charged) and in the record's (the charge is refunded).
// No transaction is ever held open across a call to the gateway (the embedded database has one
// connection: it would stop every other request).
import { and, asc, desc, eq, inArray, sql } from "drizzle-orm";
import type { Database, Transaction } from "#server/db/client.ts";
import { orders, paymentAttempts, type PaymentAttemptStatus } from "#server/db/schema/index.ts";
import { lockCustomer } from "#server/db/customer-lock.ts";
import { idempotent } from "#server/db/reconnecting-pool.ts";
import { systemClock, type Clock } from "#server/lib/clock.ts";
import { isGatewayRef } from "#server/lib/ids.ts";
import { isUuid } from "#server/lib/uuid.ts";
import type { Logger } from "#server/logger.ts";
import type { Metrics } from "#server/metrics.ts";
import { checkoutOrderPath } from "#shared/links.ts";
import type { PaymentGateway, SetupStatus } from "./gateway.ts";
import type { OrderSettlement } from "./order-settlement.ts";
import { insertPayment } from "./payment-rows.ts";
import { enqueueRefund } from "./refunds.ts";

/** How long a claimed charge belongs to the instance that claimed it. */
export const CHARGE_LEASE_MS = 60_000;
/**
 * A card step the customer left this long after it began (a 3-D Secure page closed, no other card
 * given) is ended by the reconciler: it must not hold a capped discount code's use, nor the order,
 * for ever. docs/payments.md, "Payments".
 */
export const ABANDONED_AFTER_MS = 30 * 60_000;
/**
 * An attempt still `created` this long after its payment started was left by an instance that
 * died before its card step existed (starting one takes seconds, at most the gateway's timeouts).
 */
export const UNSTARTED_AFTER_MS = 10 * 60_000;

/** Where a payment stands after a check (spec §4: what the return page does next). */
export type SettleResult =
  | { state: "paid" }
  /** The charge runs, or the card step is still under way: check again later. */
  | { state: "pending" }
  /** The card step waits for the customer (another card, 3-D Secure): the form stays. */
  | { state: "requires_customer"; errorMessage: string | null }
  | { state: "failed"; errorMessage: string | null }
  /** The charge waits for the customer's authentication in the browser (Stripe's next action). */
  | { state: "requires_action"; clientSecret: string }
  /** Given up, or stopped by the portal: `edu_already_active` when EDU became active meanwhile (decision 024). */
  | { state: "canceled"; reason?: "edu_already_active" }
  /** No payment was ever started for the order: nothing to settle (not a cancelled one). */
  | { state: "none" };

export type PaymentsOptions = {
  db: Database;
  gateway: PaymentGateway;
  /** What becomes of the order as its money moves: commerce's (commerce/settlement.ts). */
  settlement: OrderSettlement;
  publicOrigin: string;
  log: Logger;
  now?: Clock;
  /** Where charges and declines are counted (server/metrics.ts). */
  metrics?: Metrics;
};

export type AttemptRow = typeof paymentAttempts.$inferSelect;

/** Who pays, as the gateway's card step names them. */
export type Payer = { userId: string; email: string; name: string };

export function createPayments({ db, gateway, settlement, publicOrigin, log, now = systemClock, metrics }: PaymentsOptions) {
  const key = (purpose: string, attemptId: string) => `portal:${purpose}:${attemptId}`;

  async function latestAttempt(orderId: string, statuses?: PaymentAttemptStatus[]): Promise<AttemptRow | undefined> {
    const [row] = await db
      .select()
      .from(paymentAttempts)
      .where(and(eq(paymentAttempts.orderId, orderId), statuses ? inArray(paymentAttempts.status, statuses) : undefined))
      .orderBy(desc(paymentAttempts.attemptNo))
      .limit(1);
    return row;
  }

  async function ownedOrder(userId: string, orderId: string) {
    if (!isUuid(orderId)) return undefined;
    const [order] = await db
      .select({ id: orders.id, status: orders.status, closedReason: orders.closedReason })
      .from(orders)
      .where(and(eq(orders.id, orderId), eq(orders.userId, userId)));
    return order;
  }

  /**
   * The attempt ended without a charge: it is closed, the order can be edited and paid again, and
   * the coupon's use it held is given back (settlement.attemptClosed). Only from the status the caller read (`from`): an
   * attempt that moved meanwhile (its charge started) stays as it is, and false is answered.
   */
  async function closeAttempt(
    attempt: Pick<AttemptRow, "id" | "orderId">,
    from: PaymentAttemptStatus,
    status: "failed" | "canceled",
    errorMessage: string | null,
  ): Promise<boolean> {
    const at = now();
    return db.transaction(async (tx) => {
      const [order] = await tx.select({ userId: orders.userId }).from(orders).where(eq(orders.id, attempt.orderId));
      if (order) await lockCustomer(tx, order.userId);
      const closed = await tx
        .update(paymentAttempts)
        .set({ status, errorMessage, leaseUntil: null, updatedAt: at })
        .where(and(eq(paymentAttempts.id, attempt.id), eq(paymentAttempts.status, from)))
        .returning({ id: paymentAttempts.id });
      if (closed.length === 0) return false;
      await settlement.attemptClosed(tx, attempt.orderId, at);
      return true;
    });
  }

  /**
   * The paid order, in one transaction: the payment (once per charge), the order's status
   * (once: only from waitforpayment), then, only for the transaction that moved the order, what
   * it grants and the details to keep (the coupon's use was counted when the payment started).
   * A charge for an order no longer waiting for it (an operator closed it), or for EDU that became
   * active meanwhile, is recorded and refunded, and grants nothing.
   */
  async function recordPayment(attempt: AttemptRow, chargeId: string): Promise<{ sendConfirmation: () => Promise<void> } | null> {
    const at = now();
    return db.transaction(async (tx) => {
      const [order] = await tx.select().from(orders).where(eq(orders.id, attempt.orderId));
      if (!order) throw new Error(`Order ${attempt.orderId} vanished`);
      await lockCustomer(tx, order.userId);
      const inserted = await insertPayment(tx, {
        orderId: order.id,
        userId: order.userId,
        attemptId: attempt.id,
        gateway: attempt.gateway,
        methodCode: "card_setup",
        amountCents: attempt.amountCents,
        chargeId,
        cardBrand: attempt.cardBrand,
        cardLast4: attempt.cardLast4,
        paidAt: at,
        createdAt: at,
      });
      await tx
        .update(paymentAttempts)
        .set({ status: "succeeded", leaseUntil: null, updatedAt: at })
        .where(eq(paymentAttempts.id, attempt.id));
      if (!inserted) return null;
      // EDU became active after the charge started (a code activated in another tab): the charge
      // is given back, never kept for months EDU already gives (decision 024).
      if ((await settlement.chargeForbidden(tx, order, at)) && (await settlement.closeForbiddenOrder(tx, order.id, at))) {
        log.info({ orderId: order.id, chargeId }, "EDU became active while its order was being paid: refunding the charge");
        await enqueueRefund(tx, { paymentId: inserted.id, reason: "edu_already_active" }, at);
        return null;
      }
      // The confirmation is owed in this transaction (issue 29): an outbox that cannot be written
      // (a full disk) undoes the payment's record too, and the attempt stays "charging" until its
      // lease runs out; the reconciler then reads the charge, already made, with the same keys and
      // records it again, mail included. The charge is never lost nor made twice, and no paid
      // order is left without its mail.
      const sendConfirmation = await settlement.orderPaid(tx, { order, attempt, payment: inserted }, at);
      if (!sendConfirmation) {
        log.warn({ orderId: order.id, chargeId }, "payment received for an order no longer awaiting it: refunding it");
        await enqueueRefund(tx, { paymentId: inserted.id, reason: "order_closed" }, at);
        return null;
      }
      return { sendConfirmation };
    });
  }

  /** Reads where an attempt's card step stands at the gateway, and records a finished setup. */
  async function setupOutcome(attempt: AttemptRow): Promise<SettleResult | "ready"> {
    if (!attempt.setupId) return { state: "pending" };
    const setup = await gateway.retrieveSetup(attempt.setupId);
    if (!setup) return { state: "pending" };
    const byStatus: Record<Exclude<SetupStatus, "succeeded">, SettleResult> = {
      processing: { state: "pending" },
      requires_payment_method: { state: "requires_customer", errorMessage: setup.errorMessage },
      requires_confirmation: { state: "requires_customer", errorMessage: setup.errorMessage },
      requires_action: { state: "requires_customer", errorMessage: setup.errorMessage },
      canceled: { state: "canceled" },
    };
    if (setup.status !== "succeeded") {
      if (setup.status === "canceled") await closeAttempt(attempt, "awaiting_customer", "canceled", null);
      return byStatus[setup.status];
    }
    await db
      .update(paymentAttempts)
      .set({
        status: "setup_succeeded",
        paymentMethodRef: setup.paymentMethodRef,
        cardBrand: setup.card?.brand ?? null,
        cardLast4: setup.card?.last4 ?? null,
        updatedAt: now(),
      })
      .where(and(eq(paymentAttempts.id, attempt.id), eq(paymentAttempts.status, "awaiting_customer")));
    return "ready";
  }

  /** Cancels an attempt's card step at the gateway, so that it can no longer succeed; a failure is only logged. */
  async function cancelSetupQuietly(attempt: Pick<AttemptRow, "id" | "setupId">) {
    if (!attempt.setupId) return;
    try {
      await gateway.cancelSetup(attempt.setupId, key("setup-cancel", attempt.id));
    } catch (err) {
      log.warn({ err, attemptId: attempt.id }, "the card setup could not be cancelled at the gateway");
    }
  }

  /** Settles one attempt: see the module's comment. Safe to call any number of times, anywhere. */
  async function settleAttempt(attemptId: string): Promise<SettleResult> {
    const [attempt] = await db.select().from(paymentAttempts).where(eq(paymentAttempts.id, attemptId));
    if (!attempt) return { state: "canceled" };
    switch (attempt.status) {
      case "succeeded":
      case "canceled": {
        // A charge kept only if it paid the order (one for a closed order is given back).
        const [order] = await db
          .select({ status: orders.status, closedReason: orders.closedReason })
          .from(orders)
          .where(eq(orders.id, attempt.orderId));
        if (attempt.status === "succeeded" && order?.status === "payed") return { state: "paid" };
        return order?.closedReason ? { state: "canceled", reason: order.closedReason } : { state: "canceled" };
      }
      case "failed":
        return { state: "failed", errorMessage: attempt.errorMessage };
      case "created":
        return { state: "pending" };
      case "awaiting_customer": {
        let outcome;
        try {
          outcome = await setupOutcome(attempt);
        } catch (err) {
          log.warn({ err, attemptId }, "the card setup could not be read from the gateway; it will be checked again");
          return { state: "pending" };
        }
        if (outcome !== "ready") return outcome;
        break;
      }
      default:
        break;
    }

    // The claim: one UPDATE, so one instance charges; a lease that ran out (the instance died
    // mid-charge) lets another take over, and the idempotency keys make its calls repeat, not redo.
    // With the customer locked: a charge not made yet is never made once EDU forbids the order
    // (decision 024); the attempt and the order are closed instead, and nothing is charged.
    const at = now();
    const claimed = await db.transaction(async (tx) => {
      const [order] = await tx
        .select({ id: orders.id, userId: orders.userId })
        .from(orders)
        .where(eq(orders.id, attempt.orderId));
      if (!order) throw new Error(`Order ${attempt.orderId} vanished`);
      await lockCustomer(tx, order.userId);
      if (await settlement.chargeForbidden(tx, order, at)) {
        const stopped = await tx
          .update(paymentAttempts)
          .set({ status: "canceled", leaseUntil: null, updatedAt: at })
          .where(and(eq(paymentAttempts.id, attemptId), eq(paymentAttempts.status, "setup_succeeded")))
          .returning({ id: paymentAttempts.id });
        if (stopped.length > 0) {
          await settlement.closeForbiddenOrder(tx, order.id, at);
          return "stopped" as const;
        }
      }
      const [row] = await tx
        .update(paymentAttempts)
        .set({ status: "charging", leaseUntil: new Date(at.getTime() + CHARGE_LEASE_MS), updatedAt: at })
        .where(
          and(
            eq(paymentAttempts.id, attemptId),
            sql`(${paymentAttempts.status} = 'setup_succeeded' or (${paymentAttempts.status} = 'charging' and ${paymentAttempts.leaseUntil} <= ${at}))`,
          ),
        )
        .returning();
      return row;
    });
    if (claimed === "stopped") return settleAttempt(attemptId);
    if (!claimed) {
      const [current] = await db
        .select({ status: paymentAttempts.status })
        .from(paymentAttempts)
        .where(eq(paymentAttempts.id, attemptId));
      return current?.status === "charging" ? { state: "pending" } : settleAttempt(attemptId);
    }

    let charge;
    try {
      let chargeId = claimed.chargeId;
      if (!chargeId) {
        const [order] = await db.select({ orderCode: orders.orderCode }).from(orders).where(eq(orders.id, claimed.orderId));
        ({ id: chargeId } = await gateway.createCharge({
          setupId: claimed.setupId!,
          amountCents: claimed.amountCents,
          description: `Ordine ${order?.orderCode ?? claimed.orderId}`,
          idempotencyKey: key("charge-create", claimed.id),
          metadata: { order_id: claimed.orderId, attempt_id: claimed.id },
        }));
        await db.update(paymentAttempts).set({ chargeId, updatedAt: now() }).where(eq(paymentAttempts.id, claimed.id));
      }
      // A charge made before (by an instance that died, or waiting for the customer) is read as it
      // stands; only one never confirmed is confirmed, with the attempt's one key.
      const current = claimed.chargeId ? await gateway.retrieveCharge(chargeId) : null;
      charge =
        current && current.status !== "unconfirmed"
          ? current
          : await gateway.confirmCharge(chargeId, {
              offSession: false,
              idempotencyKey: key("charge-confirm", claimed.id),
              returnUrl: `${publicOrigin}${checkoutOrderPath(claimed.orderId)}`,
            });
    } catch (err) {
      // The lease runs out and the reconciler (or the next check) tries again with the same keys.
      log.error({ err, attemptId }, "the card charge could not be completed; it will be retried");
      return { state: "pending" };
    }

    if (charge.status === "succeeded") {
      if (charge.amountCents !== claimed.amountCents) {
        log.error({ attemptId, chargeId: charge.id }, "the gateway charged an amount other than the order's");
      }
      const paid = await recordPayment(claimed, charge.id);
      if (!paid) return settleAttempt(claimed.id); // recorded meanwhile, or refused: the records say which
      await paid.sendConfirmation();
      metrics?.payments.succeeded.inc({ gateway: gateway.name });
      return { state: "paid" };
    }
    if (charge.status === "failed") {
      if (await closeAttempt(claimed, "charging", "failed", charge.errorMessage)) {
        metrics?.payments.declined.inc({ gateway: gateway.name });
      }
      return { state: "failed", errorMessage: charge.errorMessage };
    }
    // The bank asks the customer to authenticate this charge: the page completes it in the
    // browser, then checks again. Processing: the lease runs out and a later check settles it.
    if (charge.status === "requires_action" && charge.clientSecret) {
      // The customer's authentication ends it: the next check may claim it at once.
      await db
        .update(paymentAttempts)
        .set({ leaseUntil: now(), updatedAt: now() })
        .where(and(eq(paymentAttempts.id, claimed.id), eq(paymentAttempts.status, "charging")));
      return { state: "requires_action", clientSecret: charge.clientSecret };
    }
    return { state: "pending" };
  }

  /**
   * settleAttempt for a request (the return page, the card step, a webhook), run again by the pool
   * when PostgreSQL goes away under it (a crash) rather than answering 500: it is safe to repeat,
   * as the reconciler repeats it. A claim committed before its connection went is found charging
   * under its lease: the answer is then "pending", and the reconciler finishes it after the lease.
   */
  const settleForRequest = (attemptId: string) => idempotent(db, () => settleAttempt(attemptId));

  /** Reconciles one stale attempt (see `reconcile`); true when it was paid or failed. */
  async function reconcileAttempt(
    attempt: Pick<AttemptRow, "id" | "orderId" | "status" | "setupId" | "updatedAt">,
    at: Date,
  ): Promise<boolean> {
    if (attempt.status === "created") {
      // No card step exists for it: nobody can set up a card on it, and nothing was charged.
      if (await closeAttempt(attempt, "created", "canceled", null)) {
        log.info({ attemptId: attempt.id }, "a payment left unstarted by an instance was closed");
      }
      return false;
    }
    let result = await settleAttempt(attempt.id);
    if (
      result.state === "requires_customer" &&
      attempt.status === "awaiting_customer" &&
      at.getTime() - attempt.updatedAt.getTime() >= ABANDONED_AFTER_MS
    ) {
      // Cancelled at the gateway first, so that it can no longer succeed; the settlement then
      // reads it cancelled and closes it, or pays it if the card was set up meanwhile.
      await cancelSetupQuietly(attempt);
      result = await settleAttempt(attempt.id);
      if (result.state === "canceled") log.info({ attemptId: attempt.id }, "a card step left by the customer was closed");
    }
    return result.state === "paid" || result.state === "failed";
  }

  return {
    gatewayName: gateway.name,

    /**
     * Records a new attempt to pay the order, in the caller's transaction: the one of commerce
     * that moves the order to waitforpayment (commerce/order-payments.ts).
     */
    async openAttempt(tx: Transaction, { orderId, amountCents }: { orderId: string; amountCents: number }, at: Date) {
      const [last] = await tx
        .select({ no: sql<number>`coalesce(max(${paymentAttempts.attemptNo}), 0)` })
        .from(paymentAttempts)
        .where(eq(paymentAttempts.orderId, orderId));
      const [row] = await tx
        .insert(paymentAttempts)
        .values({
          orderId,
          attemptNo: Number(last?.no ?? 0) + 1,
          gateway: gateway.name,
          amountCents,
          createdAt: at,
          updatedAt: at,
        })
        .returning();
      return row!;
    },

    /**
     * Sets the customer's card up at the gateway for an attempt just opened. Null when the attempt
     * was given up ('Annulla') while the card step was being opened; a gateway that fails closes
     * the attempt and throws.
     */
    async openCardStep(attempt: AttemptRow, payer: Payer): Promise<{ setupId: string; clientSecret: string } | null> {
      try {
        const setup = await gateway.createSetup({
          customer: payer,
          idempotencyKey: key("setup-create", attempt.id),
          metadata: { order_id: attempt.orderId, attempt_id: attempt.id },
        });
        const waiting = await db
          .update(paymentAttempts)
          .set({ status: "awaiting_customer", setupId: setup.id, updatedAt: now() })
          .where(and(eq(paymentAttempts.id, attempt.id), eq(paymentAttempts.status, "created")))
          .returning({ id: paymentAttempts.id });
        if (waiting.length === 0) {
          await gateway.cancelSetup(setup.id, key("setup-cancel", attempt.id));
          return null;
        }
        return { setupId: setup.id, clientSecret: setup.clientSecret };
      } catch (error) {
        await closeAttempt(attempt, "created", "failed", null);
        throw error;
      }
    },

    /** Closes an attempt that never reached its card step (the hour's card payments ran out meanwhile). */
    async cancelUnstarted(attempt: AttemptRow): Promise<void> {
      await closeAttempt(attempt, "created", "canceled", null);
    },

    /** The customer's order's open attempt whose card step is under way (the card form posts to it). */
    async pendingSetup(userId: string, orderId: string): Promise<string | null> {
      const order = await ownedOrder(userId, orderId);
      if (order?.status !== "waitforpayment") return null;
      const attempt = await latestAttempt(orderId, ["awaiting_customer"]);
      if (!attempt?.setupId) return null;
      // EDU that became active since the card step began: no card is asked for (decision 024).
      const at = now();
      const stopped = await db.transaction(async (tx) => {
        await lockCustomer(tx, userId);
        if (!(await settlement.chargeForbidden(tx, { id: orderId, userId }, at))) return false;
        const closed = await tx
          .update(paymentAttempts)
          .set({ status: "canceled", updatedAt: at })
          .where(and(eq(paymentAttempts.id, attempt.id), eq(paymentAttempts.status, "awaiting_customer")))
          .returning({ id: paymentAttempts.id });
        return closed.length > 0 && (await settlement.closeForbiddenOrder(tx, orderId, at));
      });
      if (!stopped) return attempt.setupId;
      await cancelSetupQuietly(attempt);
      return null;
    },

    /** Spec: checkpaymenthub. Settles the order's latest attempt, as the return page asks. */
    async check(userId: string, orderId: string): Promise<SettleResult | null> {
      const order = await ownedOrder(userId, orderId);
      if (!order) return null;
      if (order.status === "payed") return { state: "paid" };
      const attempt = await latestAttempt(orderId);
      return attempt ? settleForRequest(attempt.id) : { state: "none" };
    },

    /** Settles the attempt of a card setup (the sandbox's card step, Stripe's setup_intent events). */
    async settleSetup(setupId: string): Promise<SettleResult> {
      if (!isGatewayRef(setupId)) return { state: "canceled" };
      const [attempt] = await db
        .select({ id: paymentAttempts.id })
        .from(paymentAttempts)
        .where(eq(paymentAttempts.setupId, setupId));
      return attempt ? settleForRequest(attempt.id) : { state: "canceled" };
    },

    /** Settles the attempt of a charge (Stripe's payment_intent events); an unknown charge does nothing. */
    async settleCharge(chargeId: string): Promise<SettleResult | null> {
      if (!isGatewayRef(chargeId)) return null;
      const [attempt] = await db
        .select({ id: paymentAttempts.id })
        .from(paymentAttempts)
        .where(eq(paymentAttempts.chargeId, chargeId));
      return attempt ? settleForRequest(attempt.id) : null;
    },

    /**
     * Stripe's hosted card page (the card step without JavaScript, stripe-card-step.ts) confirms
     * a SetupIntent of its own, not the one `start` made: the attempt, while it still waits for
     * the customer, takes that one as its setup, so that the return page, the checks and the
     * webhooks find it. `userId` null: the caller read the attempt from Stripe's signed data (a
     * webhook). Repeating it changes nothing. Returns the order and the setup it replaced (to be
     * cancelled at the gateway), or null when the attempt is not the customer's or no longer waits.
     */
    async adoptSetup(
      userId: string | null,
      attemptId: string,
      setupId: string,
    ): Promise<{ orderId: string; replaced: string | null } | null> {
      if (!isUuid(attemptId) || !isGatewayRef(setupId)) return null;
      const read = async () => {
        const [row] = await db
          .select({ orderId: paymentAttempts.orderId, setupId: paymentAttempts.setupId, userId: orders.userId })
          .from(paymentAttempts)
          .innerJoin(orders, eq(orders.id, paymentAttempts.orderId))
          .where(eq(paymentAttempts.id, attemptId));
        return row && (userId === null || row.userId === userId) ? row : null;
      };
      const row = await read();
      if (!row) return null;
      if (row.setupId === setupId) return { orderId: row.orderId, replaced: null };
      const moved = await db
        .update(paymentAttempts)
        .set({ setupId, updatedAt: now() })
        .where(
          and(
            eq(paymentAttempts.id, attemptId),
            eq(paymentAttempts.status, "awaiting_customer"),
            row.setupId === null ? sql`${paymentAttempts.setupId} is null` : eq(paymentAttempts.setupId, row.setupId),
          ),
        )
        .returning({ id: paymentAttempts.id });
      if (moved.length > 0) return { orderId: row.orderId, replaced: row.setupId };
      // The return page and a webhook at once: the other one adopted it.
      return (await read())?.setupId === setupId ? { orderId: row.orderId, replaced: null } : null;
    },

    /** The customer's order a card setup belongs to (the sandbox's 3-D Secure page), or null. */
    async orderOfSetup(userId: string, setupId: string): Promise<string | null> {
      if (!isGatewayRef(setupId)) return null;
      const [row] = await db
        .select({ orderId: orders.id })
        .from(paymentAttempts)
        .innerJoin(orders, eq(orders.id, paymentAttempts.orderId))
        .where(and(eq(paymentAttempts.setupId, setupId), eq(orders.userId, userId)));
      return row?.orderId ?? null;
    },

    /**
     * Where the card step of the return page's setup stands, read only; null unless the setup
     * belongs to an attempt of this customer's order (the return's parameters are only hints).
     */
    async setupState(
      userId: string,
      orderId: string,
      setupId: string,
    ): Promise<{ status: SetupStatus; errorMessage: string | null } | null> {
      if (!isGatewayRef(setupId)) return null;
      const order = await ownedOrder(userId, orderId);
      if (!order) return null;
      const [attempt] = await db
        .select({ id: paymentAttempts.id })
        .from(paymentAttempts)
        .where(and(eq(paymentAttempts.orderId, orderId), eq(paymentAttempts.setupId, setupId)));
      if (!attempt) return null;
      const setup = await gateway.retrieveSetup(setupId);
      return setup && { status: setup.status, errorMessage: setup.errorMessage };
    },

    /**
     * Spec: resetpaymenthub. Gives up the open attempt, unless its charge is running or done
     * (then the payment is being verified: nothing is undone, and false is answered). The order
     * is new again.
     */
    async reset(userId: string, orderId: string): Promise<{ ok: boolean }> {
      const order = await ownedOrder(userId, orderId);
      if (!order || order.status === "payed") return { ok: false };
      const attempt = await latestAttempt(orderId, ["created", "awaiting_customer", "setup_succeeded"]);
      if (!attempt) return { ok: order.status === "new" };
      if (attempt.status === "awaiting_customer") await cancelSetupQuietly(attempt);
      // Closed only as it was read: a settlement that claimed it meanwhile goes on and pays.
      return { ok: await closeAttempt(attempt, attempt.status, "canceled", null) };
    },

    /**
     * Finishes what a dead instance or a closed browser left, in every state an attempt can be
     * left in: charges whose lease ran out, and card setups that succeeded without anyone checking,
     * are settled; a card step the customer left (a 3-D Secure page closed, no other card given)
     * for ABANDONED_AFTER_MS is cancelled at the gateway and closed; an attempt an instance left
     * `created` (it died before the card step existed) is closed after UNSTARTED_AFTER_MS. A
     * closed attempt gives its discount code's use back and its order is `new` again (its usual
     * expiry applies). Any instance may run it at any time. Returns how many were paid or failed.
     */
    async reconcile(): Promise<number> {
      const at = now();
      const stale = await db
        .select({
          id: paymentAttempts.id,
          orderId: paymentAttempts.orderId,
          status: paymentAttempts.status,
          setupId: paymentAttempts.setupId,
          updatedAt: paymentAttempts.updatedAt,
        })
        .from(paymentAttempts)
        .where(
          sql`(${paymentAttempts.status} = 'charging' and ${paymentAttempts.leaseUntil} <= ${at})
            or ${paymentAttempts.status} in ('awaiting_customer', 'setup_succeeded')
            or (${paymentAttempts.status} = 'created' and ${paymentAttempts.updatedAt} <= ${new Date(at.getTime() - UNSTARTED_AFTER_MS)})`,
        )
        .orderBy(asc(paymentAttempts.updatedAt))
        .limit(100);
      let settled = 0;
      for (const attempt of stale) {
        // One attempt the gateway cannot answer for (it is down, or lost the setup) must not hold
        // up the others: they are ordered oldest first, so it would come first on every round.
        try {
          if (await reconcileAttempt(attempt, at)) settled++;
        } catch (err) {
          log.error({ err, attemptId: attempt.id }, "a payment could not be reconciled; it is tried again next round");
        }
      }
      return settled;
    },
  };
}
