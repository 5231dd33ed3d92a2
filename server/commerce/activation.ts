// Activation codes (spec §3, §5, §7): checking a code as it is typed, activating it (a free
// completed order plus 6 months of access, and 6 more months of EDU for an eBook+EDU tag), and
// generating batches. The database holds only keyed hashes of the codes. Every wrong guess counts
// against the customer and their address; while either is locked every code is "invalid"
// without being looked up, so guessing cannot tell a lock from a wrong code.
import { and, eq, gt, isNull, lt, lte, or, sql } from "drizzle-orm";
import { insertCompletedOrder } from "./orders.ts";
import type { Database, Queryable } from "#server/db/client.ts";
import {
  ACTIVATION_CODE_KINDS,
  activationCodeBatches,
  activationCodes,
  activationRedemptions,
  products,
  type ActivationCodeKind,
} from "#server/db/schema/index.ts";
import type { RateLimits } from "#server/security/rate-limits.ts";
import { formatCode, generateCode, hashCode, normalizeCode } from "#server/library/codes.ts";
import { ACTIVATION_ACCESS_MONTHS, addMonths, EDU_MONTHS } from "#shared/library-constants.ts";
import { grantEntitlement } from "#server/library/entitlements.ts";
import { lockCustomer } from "#server/db/customer-lock.ts";
import { giveFreeEduMonths } from "./subscription-records.ts";
import { systemClock, type Clock } from "#server/lib/clock.ts";

export type ActivationOptions = { db: Database; codeKey: string; rateLimits: RateLimits; now?: Clock };

/** `now` defaults to the service's clock; a caller that already holds the request's time passes it. */
type Attempt = { userId: string; ip: string | undefined; code: string; now?: Date };

export type ActivationResult =
  | { ok: true; orderId: string; orderCode: string; productId: string; productName: string; expiresAt: Date }
  | { ok: false; reason: "invalid" | "already_redeemed" };

export type NewBatch = {
  productId: string;
  kind: ActivationCodeKind;
  label: string;
  count: number;
  /** How many customers each code may activate (1: single-use). */
  maxUses?: number;
  /** First instant the codes work; null: at once. */
  validFrom?: Date | null;
  /** First instant they no longer work (exclusive); null: never expire. */
  validUntil?: Date | null;
};

/** Most codes one batch may have: a print run, not a bulk export. */
const MAX_BATCH_SIZE = 100_000;
/** Codes per INSERT when a batch is stored (well under PostgreSQL's 65,535 parameters). */
const INSERT_CHUNK = 1_000;

/** A code with its batch and product, and whether this customer has already redeemed it. */
type FoundCode = {
  codeId: string;
  uses: number;
  kind: ActivationCodeKind;
  maxUses: number;
  validFrom: Date | null;
  validUntil: Date | null;
  disabledAt: Date | null;
  productId: string;
  productName: string;
  redeemedByUser: boolean;
};

async function findCode(db: Queryable, codeHash: string, userId: string): Promise<FoundCode | undefined> {
  const [row] = await db
    .select({
      codeId: activationCodes.id,
      uses: activationCodes.uses,
      kind: activationCodeBatches.kind,
      maxUses: activationCodeBatches.maxUses,
      validFrom: activationCodeBatches.validFrom,
      validUntil: activationCodeBatches.validUntil,
      disabledAt: activationCodeBatches.disabledAt,
      productId: products.id,
      productName: products.name,
      redemptionId: activationRedemptions.id,
    })
    .from(activationCodes)
    .innerJoin(activationCodeBatches, eq(activationCodeBatches.id, activationCodes.batchId))
    .innerJoin(products, eq(products.id, activationCodeBatches.productId))
    .leftJoin(
      activationRedemptions,
      and(eq(activationRedemptions.codeId, activationCodes.id), eq(activationRedemptions.userId, userId)),
    )
    .where(eq(activationCodes.codeHash, codeHash));
  if (!row) return undefined;
  const { redemptionId, ...code } = row;
  return { ...code, redeemedByUser: redemptionId !== null };
}

/**
 * The batch's validity window holds `now` and no operator has withdrawn it (the same rule as
 * `batchOpenAt`, in SQL). A withdrawn batch's codes are simply invalid, as unknown or expired
 * ones are: the customer is told nothing more.
 */
function isOpen(code: Pick<FoundCode, "validFrom" | "validUntil" | "disabledAt">, now: Date): boolean {
  return (
    code.disabledAt === null &&
    (code.validFrom === null || code.validFrom <= now) &&
    (code.validUntil === null || code.validUntil > now)
  );
}

function batchOpenAt(now: Date) {
  return and(
    isNull(activationCodeBatches.disabledAt),
    or(isNull(activationCodeBatches.validFrom), lte(activationCodeBatches.validFrom, now)),
    or(isNull(activationCodeBatches.validUntil), gt(activationCodeBatches.validUntil, now)),
  );
}

/** Thrown inside the activation transaction to undo it when the customer's redemption already exists. */
class AlreadyRedeemed extends Error {}

const INVALID = { ok: false, reason: "invalid" } as const;
const ALREADY_REDEEMED = { ok: false, reason: "already_redeemed" } as const;

export function createActivation({ db, codeKey, rateLimits, now: clock = systemClock }: ActivationOptions) {
  if (codeKey.length === 0) throw new Error("The activation code key is empty");

  /** The code's stored hash, or null when the input cannot be a code (no lookup is then made). */
  const hashOf = (code: string) => {
    const normalized = normalizeCode(code);
    return normalized === null ? null : hashCode(codeKey, normalized);
  };

  /** One activation, in one transaction; the caller has already passed the rate limits. */
  async function redeem(userId: string, codeHash: string, now: Date): Promise<ActivationResult> {
    try {
      return await db.transaction(async (tx) => {
        // First, before any insert takes a key-share lock on the customer's row (foreign keys):
        // two activations of one customer then run one after the other instead of deadlocking
        // in extendEdu, and the second sees the first one's redemption.
        await lockCustomer(tx, userId);
        const found = await findCode(tx, codeHash, userId);
        if (!found) return INVALID;
        if (found.redeemedByUser) return ALREADY_REDEEMED;

        // The claim: one UPDATE that only matches while a use is left and the batch is open, so
        // however many customers race for the last use, exactly one gets a row back.
        const claimed = await tx
          .update(activationCodes)
          .set({ uses: sql`${activationCodes.uses} + 1` })
          .from(activationCodeBatches)
          .where(
            and(
              eq(activationCodes.codeHash, codeHash),
              eq(activationCodeBatches.id, activationCodes.batchId),
              lt(activationCodes.uses, activationCodeBatches.maxUses),
              batchOpenAt(now),
            ),
          )
          .returning({ id: activationCodes.id });
        if (claimed.length === 0) return INVALID;

        const order = await insertCompletedOrder(tx, {
          userId,
          now,
          lines: [{ productId: found.productId, description: found.productName, totalCents: 0 }],
        });
        // The unique (code, user) index is the last word on "once per customer": should a
        // redemption exist after all, everything above is rolled back.
        const redeemed = await tx
          .insert(activationRedemptions)
          .values({ codeId: found.codeId, userId, orderId: order.id, redeemedAt: now })
          .onConflictDoNothing()
          .returning({ id: activationRedemptions.id });
        if (redeemed.length === 0) throw new AlreadyRedeemed();

        const expiresAt = addMonths(now, ACTIVATION_ACCESS_MONTHS);
        await grantEntitlement(
          tx,
          {
            userId,
            productId: found.productId,
            source: "activation_code",
            startsAt: now,
            expiresAt,
            orderId: order.id,
          },
          now,
        );
        // During a subscription the code's EDU months replace the next charges; otherwise they
        // come after any EDU running.
        if (found.kind === "ebook_edu") {
          await giveFreeEduMonths(tx, { userId, orderId: order.id, months: EDU_MONTHS, source: "activation_code", at: now });
        }

        return {
          ok: true,
          orderId: order.id,
          orderCode: order.orderCode,
          productId: found.productId,
          productName: found.productName,
          expiresAt,
        } as const;
      });
    } catch (error) {
      if (error instanceof AlreadyRedeemed) return ALREADY_REDEEMED;
      throw error;
    }
  }

  return {
    /**
     * order_verify_codiceattivazione: whether this customer could activate the code now (it
     * exists, its batch is open, a use is left), or has already activated it. Reads only,
     * apart from counting a failed guess.
     */
    async verify({ userId, ip, code, now = clock() }: Attempt): Promise<"valid" | "invalid" | "already_redeemed"> {
      // Input that cannot be a code (a code half typed while the modal checks as the user
      // types) is invalid without a lookup, and is no guess: it costs nothing.
      const codeHash = hashOf(code);
      if (codeHash === null) return "invalid";
      if (!(await rateLimits.checkActivation({ userId, ip })).ok) return "invalid";
      const found = await findCode(db, codeHash, userId);
      // The customer's own code is no guess either: they are told they already activated it.
      if (found?.redeemedByUser) return "already_redeemed";
      if (found && found.uses < found.maxUses && isOpen(found, now)) return "valid";
      await rateLimits.recordActivationFailure({ userId, ip });
      return "invalid";
    },

    /**
     * order_create_with_codiceattivazione: claims a use of the code and, in the same
     * transaction, records the redemption, creates the free completed order and grants 6 months
     * of the product (plus 6 months of EDU after any running EDU, for an eBook+EDU code).
     * `already_redeemed` when this customer has activated the code before; `invalid` for
     * everything else, a code used up by others included.
     */
    async activate({ userId, ip, code, now = clock() }: Attempt): Promise<ActivationResult> {
      const codeHash = hashOf(code);
      if (codeHash === null) return INVALID;
      if (!(await rateLimits.checkActivation({ userId, ip })).ok) return INVALID;
      const result = await redeem(userId, codeHash, now);
      if (!result.ok && result.reason === "invalid") await rateLimits.recordActivationFailure({ userId, ip });
      return result;
    },

    /**
     * Generates a batch of codes for a product and stores their hashes. The plaintext codes
     * (XXXX-XXXX-XXXX-XXXX) are returned this once, for printing; they cannot be read back.
     */
    async createBatch({
      productId,
      kind,
      label,
      count,
      maxUses = 1,
      validFrom = null,
      validUntil = null,
    }: NewBatch): Promise<{ batchId: string; codes: string[] }> {
      if (!Number.isInteger(count) || count < 1 || count > MAX_BATCH_SIZE) {
        throw new Error(`A batch has 1 to ${MAX_BATCH_SIZE} codes, not ${count}`);
      }
      if (!Number.isInteger(maxUses) || maxUses < 1) throw new Error(`maxUses must be a positive integer, not ${maxUses}`);
      if (!ACTIVATION_CODE_KINDS.includes(kind)) throw new Error(`Unknown activation code kind ${String(kind)}`);
      if (label.trim() === "") throw new Error("A batch needs a label");
      if (validFrom && validUntil && validFrom >= validUntil) throw new Error("validFrom must come before validUntil");

      const batchCreatedAt = clock();
      return db.transaction(async (tx) => {
        const [batch] = await tx
          .insert(activationCodeBatches)
          .values({ productId, kind, label: label.trim(), maxUses, validFrom, validUntil, createdAt: batchCreatedAt })
          .returning({ id: activationCodeBatches.id });
        const batchId = batch!.id;
        const codes: string[] = [];
        while (codes.length < count) {
          const wanted = Math.min(INSERT_CHUNK, count - codes.length);
          const byHash = new Map<string, string>();
          while (byHash.size < wanted) {
            const code = generateCode();
            byHash.set(hashCode(codeKey, code), code);
          }
          // A hash already stored (2^-80 per pair of codes) is skipped here and its code is
          // simply not handed out; the loop makes up the number with fresh ones.
          const inserted = await tx
            .insert(activationCodes)
            .values([...byHash.keys()].map((codeHash) => ({ batchId, codeHash, createdAt: batchCreatedAt })))
            .onConflictDoNothing({ target: activationCodes.codeHash })
            .returning({ codeHash: activationCodes.codeHash });
          for (const row of inserted) codes.push(formatCode(byHash.get(row.codeHash)!));
        }
        return { batchId, codes };
      });
    },
  };
}

export type Activation = ReturnType<typeof createActivation>;
