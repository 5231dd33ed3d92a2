// Entitlements: who may read or open which product, until when. EDU is the entitlement to the
// abbonamentoedu product; `has_edu_upto` is its latest expiry.
import { and, eq, gt, isNull, max, or, sql, type SQL } from "drizzle-orm";
import type { Queryable, Transaction } from "#server/db/client.ts";
import { entitlements, products, type EntitlementSource } from "#server/db/schema/index.ts";
import { addMonths, EDU_PRODUCT_CODE } from "#shared/library-constants.ts";

export type Grant = {
  userId: string;
  productId: string;
  source: EntitlementSource;
  startsAt: Date;
  expiresAt: Date | null;
  orderId: string | null;
};

/** Records a grant made at `now` (which is not always when it starts: EDU time stacks). */
export async function grantEntitlement(tx: Transaction, grant: Grant, now: Date) {
  const [row] = await tx
    .insert(entitlements)
    .values({ ...grant, createdAt: now })
    .returning();
  return row!;
}

/**
 * Ends now the grants matching `which` that have not ended yet (an operator's revocation, a
 * refunded order). The rows stay, as the record of what was given; a grant still to start (EDU
 * stacked after the current one) ends where it would have started, so it gives nothing.
 */
export async function endEntitlements(tx: Queryable, which: SQL | undefined, now: Date) {
  return tx
    .update(entitlements)
    .set({ expiresAt: sql`greatest(${entitlements.startsAt}, ${now.toISOString()}::timestamptz)` })
    .where(and(which, or(isNull(entitlements.expiresAt), gt(entitlements.expiresAt, now))))
    .returning({ id: entitlements.id, productId: entitlements.productId, expiresAt: entitlements.expiresAt });
}

/** An EDU grant moved back by `closeEduGap`: where it started and ended, where it starts and ends now. */
export type MovedGrant = { id: string; formerStart: Date; formerEnd: Date | null; startsAt: Date; expiresAt: Date | null };

/**
 * After a refund cut a customer's EDU short, the EDU granted to start later (an eBook+EDU code's
 * months, an operator's months, stacked after the access that was cut) moves back to start where
 * access now ends, one grant after the other and each as long as it was, so that no gap and no
 * overlap is left. In the refund's transaction, under the customer's lock. Returns the grants moved.
 */
export async function closeEduGap(tx: Transaction, userId: string, now: Date): Promise<MovedGrant[]> {
  const grants = await tx
    .select({ id: entitlements.id, startsAt: entitlements.startsAt, expiresAt: entitlements.expiresAt })
    .from(entitlements)
    .innerJoin(products, eq(products.id, entitlements.productId))
    .where(and(eq(entitlements.userId, userId), eq(products.code, EDU_PRODUCT_CODE)))
    .orderBy(entitlements.startsAt, entitlements.expiresAt);
  // Where the access running now ends (now, when none runs).
  let accessEnd: Date = now;
  for (const grant of grants.filter((g) => g.startsAt <= now)) {
    if (grant.expiresAt === null) return [];
    if (grant.expiresAt > accessEnd) accessEnd = grant.expiresAt;
  }
  const moved: MovedGrant[] = [];
  for (const grant of grants.filter((g) => g.startsAt > now)) {
    // Ended before it began (revoked, refunded): it gives nothing and stays where it is.
    if (grant.expiresAt !== null && grant.expiresAt <= grant.startsAt) continue;
    if (grant.startsAt > accessEnd) {
      const shift = grant.startsAt.getTime() - accessEnd.getTime();
      const expiresAt = grant.expiresAt && new Date(grant.expiresAt.getTime() - shift);
      await tx.update(entitlements).set({ startsAt: accessEnd, expiresAt }).where(eq(entitlements.id, grant.id));
      moved.push({ id: grant.id, formerStart: grant.startsAt, formerEnd: grant.expiresAt, startsAt: accessEnd, expiresAt });
      if (expiresAt === null) break;
      accessEnd = expiresAt;
    } else if (grant.expiresAt === null) {
      break;
    } else if (grant.expiresAt > accessEnd) {
      accessEnd = grant.expiresAt;
    }
  }
  return moved;
}

/** When the customer's EDU access ends (the latest expiry), or null if they never had it. */
export async function eduActiveUntil(db: Queryable, userId: string): Promise<Date | null> {
  const [row] = await db
    .select({ until: max(entitlements.expiresAt) })
    .from(entitlements)
    .innerJoin(products, eq(products.id, entitlements.productId))
    .where(and(eq(entitlements.userId, userId), eq(products.code, EDU_PRODUCT_CODE)));
  return row?.until ?? null;
}

/**
 * Adds `months` of EDU after the current EDU access (or from `now` when none is running), so an
 * eBook+EDU tag redeemed during a subscription lengthens it instead of overlapping it.
 */
export async function extendEdu(
  tx: Transaction,
  {
    userId,
    orderId,
    now,
    months,
    source = "activation_code",
  }: { userId: string; orderId: string | null; now: Date; months: number; source?: EntitlementSource },
) {
  const [edu] = await tx.select({ id: products.id }).from(products).where(eq(products.code, EDU_PRODUCT_CODE));
  if (!edu) throw new Error(`The ${EDU_PRODUCT_CODE} product is missing from the catalogue`);
  const current = await eduActiveUntil(tx, userId);
  const startsAt = current && current > now ? current : now;
  return grantEntitlement(
    tx,
    {
      userId,
      productId: edu.id,
      source,
      startsAt,
      expiresAt: addMonths(startsAt, months),
      orderId,
    },
    now,
  );
}

/**
 * A customer's access to a product: `allowed` when a grant holds now; `expiresAt` the end of the
 * longest grant (null: no end); `expired` when every grant has ended. Null when the product was
 * never granted.
 */
export type Access = { allowed: boolean; expiresAt: Date | null; expired: boolean };

/** One statement: a customer has few grants of a product, and they are all read. */
export async function accessTo(db: Queryable, userId: string, productId: string, now: Date): Promise<Access | null> {
  const grants = await db
    .select({ startsAt: entitlements.startsAt, expiresAt: entitlements.expiresAt })
    .from(entitlements)
    .where(and(eq(entitlements.userId, userId), eq(entitlements.productId, productId)))
    .orderBy(sql`${entitlements.expiresAt} desc nulls first`);
  const longest = grants[0];
  if (!longest) return null;
  const running = (end: Date | null) => end === null || end > now;
  return {
    allowed: grants.some((g) => g.startsAt <= now && running(g.expiresAt)),
    expiresAt: longest.expiresAt,
    expired: !running(longest.expiresAt),
  };
}
