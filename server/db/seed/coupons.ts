// The demo discount code for a development install (never seeded in production): a live welcome
// code is the publisher's decision, made with `npm run admin -- coupons:create`.
import type { Database } from "#server/db/client.ts";
import { coupons } from "#server/db/schema/index.ts";

const DEMO_COUPON = {
  code: "BENVENUTO10",
  description: "Benvenuto: 10% di sconto sul primo acquisto",
  kind: "percent",
  percentOff: 10,
} as const;

/** Inserts the demo discount code unless it is there; returns how many were inserted. */
export async function seedDemoCoupons(db: Database): Promise<number> {
  const inserted = await db.insert(coupons).values(DEMO_COUPON).onConflictDoNothing().returning({ id: coupons.id });
  return inserted.length;
}
