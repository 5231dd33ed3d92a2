// The sandbox gateway: the embedded default when no Stripe keys are configured. It behaves like
// Stripe for the portal (setups, charges, idempotency keys, the same return parameters) and keeps
// its records in a table of its own, as a provider would. The card form is the portal's own,
// rendered by the server, so a purchase completes without JavaScript; only Stripe's test card
// numbers are accepted (shared/payment-cards.ts), and of a card it keeps the brand, the last 4
// digits and what the test card does: never the number.
import { randomBytes } from "node:crypto";
import { and, eq, sql } from "drizzle-orm";
import type { Database } from "#server/db/client.ts";
import { sandboxGatewayObjects } from "#server/db/schema/index.ts";
import { isUniqueViolation } from "#server/db/errors.ts";
import { systemClock, type Clock } from "#server/lib/clock.ts";
import { cardDigits, SANDBOX_TEST_CARDS, type SandboxCardBehaviour } from "#shared/payment-cards.ts";
import type { Charge, PaymentGateway, Refund, Setup, SetupStatus } from "./gateway.ts";
import { sandboxChargeAuthenticationPath } from "#shared/links.ts";

/**
 * What the bank does with later charges of a saved card: what its test number says, unless a
 * test or a developer changed it since (`simulateSavedCard`: the card ran out of funds, or the
 * bank now wants the customer to authenticate charges made without them).
 */
export type SavedCardBehaviour = "succeeds" | "declined" | "authentication_required";

/**
 * A refund of a charge. `status` absent: made before refunds could wait (it succeeded at once).
 * A held refund stays `pending` until `settleRefund` says how it ended.
 */
type RefundData = {
  chargeId: string;
  amountCents: number;
  metadata: Record<string, string>;
  status?: Refund["status"];
  failureReason?: string | null;
};

type SetupData = {
  status: SetupStatus;
  clientSecret: string;
  /** The portal's user the card is saved for (as Stripe's Customer); absent on setups made before it was kept. */
  customer?: string;
  metadata: Record<string, string>;
  card: { brand: string; last4: string; behaviour: SandboxCardBehaviour; later?: SavedCardBehaviour } | null;
  errorMessage: string | null;
};

type ChargeData = {
  status: "requires_confirmation" | Charge["status"];
  /** The refund that gave the whole charge back, on charges refunded before refunds could be partial. */
  refundId?: string;
  /** What its refunds not failed gave back so far (a charge is refunded up to its amount). */
  refundedCents?: number;
  /** Its next refunds wait (`pending`) until `settleRefund` ends them, as a bank's slow refund. */
  holdRefunds?: boolean;
  setupId: string;
  amountCents: number;
  metadata: Record<string, string>;
  errorMessage: string | null;
  needsAuthentication?: boolean;
};

/** The messages a provider would give the customer (Stripe's, in Italian). */
export const SANDBOX_MESSAGES = {
  notATestCard: "Nell'ambiente di prova si possono usare solo le carte di prova.",
  declined: "La carta è stata rifiutata per fondi insufficienti.",
  authenticationFailed: "Non è stato possibile autenticare la carta. Prova con un'altra carta.",
  authenticationRequired: "La banca chiede di confermare il pagamento.",
} as const;

/** Why a refund failed or was refused, in Stripe's words (for the operator, who reads them in English). */
const REFUND_FAILURES = {
  /** A held refund the test failed: the card can no longer take money (Stripe's failure_reason). */
  failed: "expired_or_canceled_card",
  notCharged: "The charge has not succeeded: there is nothing to refund",
  tooMuch: "The refund is more than the charge has left",
} as const;

const refundView = (id: string, data: RefundData): Refund => {
  const status = data.status ?? "succeeded";
  return { id, status, gatewayStatus: status, amountCents: data.amountCents, failureReason: data.failureReason ?? null };
};
const refused = (failureReason: string): Refund => ({
  id: null,
  status: "failed",
  gatewayStatus: "refused",
  amountCents: 0,
  failureReason,
});
/** What of a charge its refunds not failed gave back (all of it on charges refunded before partial refunds). */
const refundedOf = (charge: ChargeData) => charge.refundedCents ?? (charge.refundId ? charge.amountCents : 0);

/** What the customer's side of a card setup answers (what Stripe.js does in the browser). */
export type SandboxCardResult =
  | { status: "succeeded" }
  | { status: "requires_action" }
  | { status: "requires_payment_method"; errorMessage: string }
  | { status: "not_found" | "not_pending" };

const newId = (prefix: string) => `${prefix}_${randomBytes(12).toString("base64url")}`;

export function createSandboxGateway(db: Database, now: Clock = systemClock) {
  /** Inserts an object, or returns the one made earlier with the same idempotency key. */
  async function insertOnce(kind: "setup" | "charge", idPrefix: string, idempotencyKey: string, data: SetupData | ChargeData) {
    const id = newId(idPrefix);
    try {
      await db.insert(sandboxGatewayObjects).values({ id, kind, idempotencyKey, data, createdAt: now() });
      return { id, data };
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      const [earlier] = await db
        .select()
        .from(sandboxGatewayObjects)
        .where(eq(sandboxGatewayObjects.idempotencyKey, idempotencyKey));
      if (!earlier) throw error;
      return { id: earlier.id, data: earlier.data as SetupData | ChargeData };
    }
  }

  async function read<T extends SetupData | ChargeData>(id: string, kind: "setup" | "charge"): Promise<T | null> {
    const [row] = await db.select().from(sandboxGatewayObjects).where(eq(sandboxGatewayObjects.id, id));
    return row && row.kind === kind ? (row.data as T) : null;
  }

  /**
   * Changes an object in one transaction, the row locked: `change` sees the current data and
   * returns the new data, or null to leave it as it is.
   */
  async function update<T extends SetupData | ChargeData>(id: string, change: (data: T) => T | null): Promise<T | null> {
    return db.transaction(async (tx) => {
      const [row] = await tx.select().from(sandboxGatewayObjects).where(eq(sandboxGatewayObjects.id, id)).for("update");
      if (!row) return null;
      const next = change(row.data as T);
      if (next === null) return row.data as T;
      await tx.update(sandboxGatewayObjects).set({ data: next }).where(eq(sandboxGatewayObjects.id, id));
      return next;
    });
  }

  const setupView = (id: string, data: SetupData): Setup => ({
    id,
    status: data.status,
    paymentMethodRef: data.status === "succeeded" ? `sbx_pm_${id}` : null,
    card: data.card && { brand: data.card.brand, last4: data.card.last4 },
    errorMessage: data.errorMessage,
  });
  const chargeView = (id: string, data: ChargeData): Charge => ({
    id,
    status: data.status === "requires_confirmation" ? "unconfirmed" : data.status,
    amountCents: data.amountCents,
    errorMessage: data.errorMessage,
    needsAuthentication: data.needsAuthentication ?? false,
    clientSecret: null,
    redirectUrl: data.status === "requires_action" ? sandboxChargeAuthenticationPath(id) : null,
  });

  const gateway: PaymentGateway = {
    name: "sandbox",

    async createSetup({ customer, idempotencyKey, metadata }) {
      const { id, data } = await insertOnce("setup", "sbx_seti", idempotencyKey, {
        status: "requires_payment_method",
        clientSecret: newId("sbx_secret"),
        customer: customer.userId,
        metadata,
        card: null,
        errorMessage: null,
      });
      return { id, clientSecret: (data as SetupData).clientSecret };
    },

    async retrieveSetup(id) {
      const data = await read<SetupData>(id, "setup");
      return data && setupView(id, data);
    },

    async cancelSetup(id) {
      await update<SetupData>(id, (data) => (data.status === "succeeded" ? null : { ...data, status: "canceled" }));
    },

    async createCharge({ setupId, amountCents, idempotencyKey, metadata }) {
      const setup = await read<SetupData>(setupId, "setup");
      // As Stripe refuses a payment method no longer attached to its customer.
      if (setup?.status !== "succeeded" || !setup.card) throw new Error("The sandbox charges only a card saved by a setup");
      const { id } = await insertOnce("charge", "sbx_ch", idempotencyKey, {
        status: "requires_confirmation",
        setupId,
        amountCents,
        metadata,
        errorMessage: null,
      });
      return { id };
    },

    async confirmCharge(id, { offSession }) {
      const pending = await read<ChargeData>(id, "charge");
      if (!pending) throw new Error(`Unknown sandbox charge ${id}`);
      const card = (await read<SetupData>(pending.setupId, "setup"))?.card;
      const behaviour = card?.later ?? (card?.behaviour === "declined" ? "declined" : "succeeds");
      // Confirmed once, under the row's lock: a repeated confirmation answers what the first did.
      const charge = await update<ChargeData>(id, (data) => {
        if (data.status !== "requires_confirmation") return null;
        if (behaviour === "declined") return { ...data, status: "failed", errorMessage: SANDBOX_MESSAGES.declined };
        if (behaviour === "authentication_required") {
          // Without the customer the bank refuses (as Stripe's authentication_required does);
          // with them, it shows its 3-D Secure page.
          return offSession
            ? { ...data, status: "failed", errorMessage: SANDBOX_MESSAGES.authenticationRequired, needsAuthentication: true }
            : { ...data, status: "requires_action" };
        }
        return { ...data, status: "succeeded" };
      });
      return chargeView(id, charge!);
    },

    async cancelCharge(id) {
      const data = await update<ChargeData>(id, (charge) =>
        charge.status === "requires_confirmation" || charge.status === "requires_action"
          ? { ...charge, status: "failed", errorMessage: SANDBOX_MESSAGES.authenticationFailed }
          : null,
      );
      return data && chargeView(id, data);
    },

    async retrieveCharge(id) {
      const data = await read<ChargeData>(id, "charge");
      return data && chargeView(id, data);
    },

    async refundCharge(id, { amountCents, idempotencyKey, metadata }) {
      // Under the charge's lock: what it has left is read and taken in one go, and a request
      // repeated with its key finds the refund the first one made.
      return db.transaction(async (tx) => {
        const [row] = await tx.select().from(sandboxGatewayObjects).where(eq(sandboxGatewayObjects.id, id)).for("update");
        const [earlier] = await tx
          .select()
          .from(sandboxGatewayObjects)
          .where(eq(sandboxGatewayObjects.idempotencyKey, idempotencyKey));
        if (earlier) return refundView(earlier.id, earlier.data as RefundData);
        const charge = row?.kind === "charge" ? (row.data as ChargeData) : null;
        if (charge?.status !== "succeeded") return refused(REFUND_FAILURES.notCharged);
        const left = charge.amountCents - refundedOf(charge);
        const wanted = amountCents ?? left;
        if (wanted <= 0 || wanted > left) return refused(REFUND_FAILURES.tooMuch);
        const refund: RefundData = {
          chargeId: id,
          amountCents: wanted,
          metadata,
          status: charge.holdRefunds ? "pending" : "succeeded",
          failureReason: null,
        };
        const refundId = newId("sbx_re");
        await tx
          .insert(sandboxGatewayObjects)
          .values({ id: refundId, kind: "refund", idempotencyKey, data: refund, createdAt: now() });
        await tx
          .update(sandboxGatewayObjects)
          .set({ data: { ...charge, refundedCents: refundedOf(charge) + wanted } })
          .where(eq(sandboxGatewayObjects.id, id));
        return refundView(refundId, refund);
      });
    },

    async retrieveRefund(id) {
      const [row] = await db.select().from(sandboxGatewayObjects).where(eq(sandboxGatewayObjects.id, id));
      return row?.kind === "refund" ? refundView(row.id, row.data as RefundData) : null;
    },

    async deleteCustomer(userId) {
      // As deleting a Stripe Customer detaches its cards: the setups stay, without their card.
      await db
        .update(sandboxGatewayObjects)
        .set({ data: sql`${sandboxGatewayObjects.data} || '{"card": null}'::jsonb` })
        .where(and(eq(sandboxGatewayObjects.kind, "setup"), sql`${sandboxGatewayObjects.data}->>'customer' = ${userId}`));
    },
  };

  return {
    gateway,

    /**
     * The customer's side of a setup (what Stripe.js does with the card element): a test card is
     * attached; one that asks for 3-D Secure waits on the sandbox's authentication page.
     */
    async confirmCard(setupId: string, cardNumber: string): Promise<SandboxCardResult> {
      const digits = cardDigits(cardNumber);
      const test = SANDBOX_TEST_CARDS[digits];
      let outcome: SandboxCardResult | undefined;
      const data = await update<SetupData>(setupId, (setup) => {
        if (setup.status !== "requires_payment_method" && setup.status !== "requires_action") {
          outcome = { status: "not_pending" };
          return null;
        }
        if (!test) {
          outcome = { status: "requires_payment_method", errorMessage: SANDBOX_MESSAGES.notATestCard };
          return { ...setup, status: "requires_payment_method", card: null, errorMessage: SANDBOX_MESSAGES.notATestCard };
        }
        const card = { brand: test.brand, last4: digits.slice(-4), behaviour: test.behaviour };
        const status = test.behaviour === "authentication" ? "requires_action" : "succeeded";
        outcome = { status };
        return { ...setup, status, card, errorMessage: null };
      });
      return data === null ? { status: "not_found" } : outcome!;
    },

    /** The sandbox's 3-D Secure page: the customer approves or fails the authentication. */
    async authenticate(setupId: string, approve: boolean): Promise<SandboxCardResult> {
      let outcome: SandboxCardResult = { status: "not_pending" };
      const data = await update<SetupData>(setupId, (setup) => {
        if (setup.status !== "requires_action") return null;
        if (approve) {
          outcome = { status: "succeeded" };
          return { ...setup, status: "succeeded" };
        }
        outcome = { status: "requires_payment_method", errorMessage: SANDBOX_MESSAGES.authenticationFailed };
        return { ...setup, status: "requires_payment_method", card: null, errorMessage: SANDBOX_MESSAGES.authenticationFailed };
      });
      return data === null ? { status: "not_found" } : outcome;
    },

    /** The sandbox's 3-D Secure page of a charge: the customer approves or fails the authentication. */
    async authenticateCharge(chargeId: string, approve: boolean): Promise<void> {
      await update<ChargeData>(chargeId, (charge) => {
        if (charge.status !== "requires_action") return null;
        return approve
          ? { ...charge, status: "succeeded" }
          : { ...charge, status: "failed", errorMessage: SANDBOX_MESSAGES.authenticationFailed };
      });
    },

    /** Whether a charge waits for its 3-D Secure step (the sandbox's page shows only then). */
    async chargeAwaitsAuthentication(chargeId: string): Promise<boolean> {
      return (await read<ChargeData>(chargeId, "charge"))?.status === "requires_action";
    },

    /** Tests and the development clock page: what the bank will do with the saved card's later charges. */
    async simulateSavedCard(setupId: string, later: SavedCardBehaviour): Promise<boolean> {
      const data = await update<SetupData>(setupId, (setup) =>
        setup.status === "succeeded" && setup.card ? { ...setup, card: { ...setup.card, later } } : null,
      );
      return data?.card?.later === later;
    },

    /**
     * Tests and developers: the charge's next refunds wait (`pending`, as a bank's slow refund
     * does) until `settleRefund` ends each; `false` lets them succeed at once again.
     */
    async holdRefunds(chargeId: string, hold: boolean): Promise<boolean> {
      const data = await update<ChargeData>(chargeId, (charge) => ({ ...charge, holdRefunds: hold }));
      return data?.holdRefunds === hold;
    },

    /**
     * Ends a held refund as the bank would: the money went back, or it could not (then the charge
     * has that much to refund again). False when the refund is unknown or no longer pending.
     */
    async settleRefund(refundId: string, outcome: "succeeded" | "failed"): Promise<boolean> {
      return db.transaction(async (tx) => {
        const [row] = await tx.select().from(sandboxGatewayObjects).where(eq(sandboxGatewayObjects.id, refundId)).for("update");
        const refund = row?.kind === "refund" ? (row.data as RefundData) : null;
        if (refund?.status !== "pending") return false;
        const failed = outcome === "failed";
        await tx
          .update(sandboxGatewayObjects)
          .set({ data: { ...refund, status: outcome, failureReason: failed ? REFUND_FAILURES.failed : null } })
          .where(eq(sandboxGatewayObjects.id, refundId));
        if (failed) {
          const [charge] = await tx
            .select()
            .from(sandboxGatewayObjects)
            .where(eq(sandboxGatewayObjects.id, refund.chargeId))
            .for("update");
          const data = charge!.data as ChargeData;
          await tx
            .update(sandboxGatewayObjects)
            .set({ data: { ...data, refundedCents: refundedOf(data) - refund.amountCents } })
            .where(eq(sandboxGatewayObjects.id, refund.chargeId));
        }
        return true;
      });
    },

    /** Whether a setup waits for its 3-D Secure step (the authentication page shows only then). */
    async awaitsAuthentication(setupId: string): Promise<boolean> {
      return (await read<SetupData>(setupId, "setup"))?.status === "requires_action";
    },
  };
}
