// Abandoned checkouts: an order left `new` (opened, never submitted, or its payment given up) for
// ABANDONED_ORDER_DAYS after its last change expires. Its page then shows 'Ordine
// annullato/scaduto o interrotto', and following the product's buy link opens a new order at
// today's price. A sweep of the job runner, so every instance runs it and each order is expired
// once: the UPDATE moves only rows still `new`, and a submit racing it (new → waitforpayment,
// also conditional) wins or finds the order closed, never both.
import { and, asc, eq, inArray, lte } from "drizzle-orm";
import type { Database } from "#server/db/client.ts";
import { orders } from "#server/db/schema/index.ts";

/** Days an unsubmitted order stays open after its last change. */
export const ABANDONED_ORDER_DAYS = 7;
const DAY_MS = 24 * 60 * 60 * 1000;

/** The runner's sweep: expires up to `limit` orders abandoned at `at`; returns how many. */
export function abandonedOrderSweep(db: Database) {
  return async (at: Date, limit: number): Promise<number> => {
    const abandoned = db
      .select({ id: orders.id })
      .from(orders)
      .where(and(eq(orders.status, "new"), lte(orders.updatedAt, new Date(at.getTime() - ABANDONED_ORDER_DAYS * DAY_MS))))
      .orderBy(asc(orders.updatedAt))
      .limit(limit)
      .for("update", { skipLocked: true });
    const expired = await db
      .update(orders)
      .set({ status: "expired", updatedAt: at })
      .where(and(inArray(orders.id, abandoned), eq(orders.status, "new")))
      .returning({ id: orders.id });
    return expired.length;
  };
}
