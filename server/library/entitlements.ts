// Entitlements: who may read or open which product, until when. EDU is the entitlement to the
// abbonamentoedu product; `has_edu_upto` is its latest expiry.
import { and, desc, eq, isNull, max, or, sql } from "drizzle-orm";
import type { Database, Transaction } from "../db/client.ts";
import { entitlements, products, users, type EntitlementSource } from "../db/schema.ts";
import { addMonths, EDU_PRODUCT_CODE } from "./constants.ts";

type Queryable = Database | Transaction;

export type Grant = {
  userId: string;
  productId: string;
  source: EntitlementSource;
  startsAt: Date;
  expiresAt: Date | null;
  orderId: string | null;
};

export async function grantEntitlement(tx: Transaction, grant: Grant) {
  const [row] = await tx.insert(entitlements).values(grant).returning();
  return row!;
}

/**
 * Serialises the entitlement changes of one customer: two activations of the same customer at
 * once would otherwise both read the same EDU expiry and extend it only once.
 */
export async function lockCustomer(tx: Transaction, userId: string): Promise<void> {
  await tx.select({ id: users.id }).from(users).where(eq(users.id, userId)).for("update");
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
  { userId, orderId, now, months }: { userId: string; orderId: string; now: Date; months: number },
) {
  const [edu] = await tx.select({ id: products.id }).from(products).where(eq(products.code, EDU_PRODUCT_CODE));
  if (!edu) throw new Error(`The ${EDU_PRODUCT_CODE} product is missing from the catalogue`);
  const current = await eduActiveUntil(tx, userId);
  const startsAt = current && current > now ? current : now;
  return grantEntitlement(tx, {
    userId,
    productId: edu.id,
    source: "activation_code",
    startsAt,
    expiresAt: addMonths(startsAt, months),
    orderId,
  });
}

export type Access = { startsAt: Date; expiresAt: Date | null; expired: boolean };

/**
 * The customer's access to a product: the grant that lasts longest (no end beats any date), or
 * null when the product was never granted. `expired` is true once that grant is over.
 */
export async function accessTo(db: Queryable, userId: string, productId: string, now: Date = new Date()): Promise<Access | null> {
  const [row] = await db
    .select({ startsAt: entitlements.startsAt, expiresAt: entitlements.expiresAt })
    .from(entitlements)
    .where(and(eq(entitlements.userId, userId), eq(entitlements.productId, productId)))
    .orderBy(sql`${entitlements.expiresAt} desc nulls first`)
    .limit(1);
  if (!row) return null;
  return { ...row, expired: row.expiresAt !== null && row.expiresAt <= now };
}

/** Whether the customer may read the product now. */
export async function hasAccess(db: Queryable, userId: string, productId: string, now: Date = new Date()): Promise<boolean> {
  const [row] = await db
    .select({ id: entitlements.id })
    .from(entitlements)
    .where(
      and(
        eq(entitlements.userId, userId),
        eq(entitlements.productId, productId),
        sql`${entitlements.startsAt} <= ${now}`,
        or(isNull(entitlements.expiresAt), sql`${entitlements.expiresAt} > ${now}`),
      ),
    )
    .orderBy(desc(entitlements.expiresAt))
    .limit(1);
  return row !== undefined;
}
