// How the customer got each product they have, or had, access to (the account console's "How you
// got each product"): every grant with what gave it (a code printed in a book, a purchase and its
// order, a month of the EDU subscription, an operator) and when it runs, told per product as what
// gives access now, what comes after it, or what gave it last. 'I miei acquisti' shows it; the
// dashboard's cards read the source from their own query (dashboard.ts) and cost nothing more.
import { and, asc, eq, sql } from "drizzle-orm";
import type { Database } from "#server/db/client.ts";
import { entitlements, orders, productTypes, products, subscriptionPeriods, subscriptions } from "#server/db/schema/index.ts";
import { systemClock, type Clock } from "#server/lib/clock.ts";
import { instalmentOf } from "#shared/subscription.ts";
import type { AccessGrant, ProductAccess } from "./types.ts";

type GrantRow = AccessGrant & { productId: string; name: string; typeName: string };

/** When a grant ends; no end is the latest. */
const endOf = (grant: AccessGrant) => grant.expiresAt?.getTime() ?? Infinity;
const runsAt = (grant: AccessGrant, now: Date) => grant.startsAt <= now && endOf(grant) > now.getTime();
// Not a subtraction: two grants without an end would give Infinity − Infinity.
const latestEndFirst = (a: AccessGrant, b: AccessGrant) => (endOf(a) === endOf(b) ? 0 : endOf(a) > endOf(b) ? -1 : 1);

/**
 * Each product's grants (in start order) as the customer reads them at `now`. A grant that ended
 * where it started (revoked or refunded before it began) gave nothing and is left out. Products
 * with access now or to come first, then those whose access ended; by name within each.
 */
export function accessByProduct(rows: readonly GrantRow[], now: Date): ProductAccess[] {
  const byProduct = new Map<string, { product: GrantRow; grants: AccessGrant[] }>();
  for (const row of rows) {
    if (row.expiresAt !== null && row.expiresAt <= row.startsAt) continue;
    const { productId: _id, name: _name, typeName: _type, ...grant } = row;
    const entry = byProduct.get(row.productId) ?? { product: row, grants: [] };
    entry.grants.push(grant);
    byProduct.set(row.productId, entry);
  }
  const result: ProductAccess[] = [];
  for (const { product, grants } of byProduct.values()) {
    const current = grants.filter((g) => runsAt(g, now)).sort(latestEndFirst)[0] ?? null;
    // Only what lengthens the access: a grant ending before the current one does adds nothing.
    const next = grants.filter((g) => g.startsAt > now && (current === null || endOf(g) > endOf(current)));
    result.push({
      productId: product.productId,
      name: product.name,
      typeName: product.typeName,
      current,
      next,
      ended: current || next.length > 0 ? null : ([...grants].sort(latestEndFirst)[0] ?? null),
    });
  }
  const later = (p: ProductAccess) => (p.ended ? 1 : 0);
  return result.sort((a, b) => later(a) - later(b) || a.name.localeCompare(b.name, "it"));
}

export function createProvenance({ db, now: clock = systemClock }: { db: Database; now?: Clock }) {
  /** Every grant of the customer, with its order's code and, for a subscription's month, its number (prepared once). */
  const ownGrants = db
    .select({
      productId: entitlements.productId,
      name: products.name,
      typeName: productTypes.name,
      source: entitlements.source,
      at: entitlements.createdAt,
      startsAt: entitlements.startsAt,
      expiresAt: entitlements.expiresAt,
      orderCode: orders.orderCode,
      month: subscriptionPeriods.number,
    })
    .from(entitlements)
    .innerJoin(products, eq(products.id, entitlements.productId))
    .innerJoin(productTypes, eq(productTypes.id, products.productTypeId))
    .leftJoin(orders, eq(orders.id, entitlements.orderId))
    // A paid month grants its own dates on the subscription's order (subscription-records.ts,
    // grantMonth): the month of that order's subscription starting when the grant starts.
    .leftJoin(subscriptions, and(eq(entitlements.source, "subscription"), eq(subscriptions.orderId, entitlements.orderId)))
    .leftJoin(
      subscriptionPeriods,
      and(
        eq(subscriptionPeriods.subscriptionId, subscriptions.id),
        eq(subscriptionPeriods.startsAt, entitlements.startsAt),
        eq(subscriptionPeriods.status, "paid"),
      ),
    )
    .where(eq(entitlements.userId, sql.placeholder("userId")))
    .orderBy(asc(entitlements.startsAt), asc(entitlements.createdAt))
    .prepare("library_provenance");

  return {
    /** The customer's products, each with how they got it and until when (the signed-in customer's own only). */
    async ofCustomer(userId: string): Promise<ProductAccess[]> {
      const rows = await ownGrants.execute({ userId });
      return accessByProduct(
        rows.map(({ month, ...row }) => ({ ...row, instalment: month === null ? null : instalmentOf(month) })),
        clock(),
      );
    },
  };
}
