// 'Scarica i tuoi dati': the customer downloads, as a JSON file, everything the portal holds about
// them (GDPR art. 15 and 20): the same export the operators' `customer:export` gives. Throttled
// per account, since each download reads the whole account; every download is in the audit log.
import { eq } from "drizzle-orm";
import type { Database } from "#server/db/client.ts";
import { users } from "#server/db/schema/index.ts";
import type { AuditLog } from "#server/audit/service.ts";
import type { Clock } from "#server/lib/clock.ts";
import type { RateLimits } from "#server/security/rate-limits.ts";
import { romeDay } from "#shared/rome-clock.ts";
import { customerData } from "./customer-data.ts";

export type DataExportResult =
  | { ok: true; fileName: string; json: string }
  | { ok: false; reason: "throttled"; retryAfterSeconds: number }
  | { ok: false; reason: "not_found" };

/** "novalex-dati-2026-11-26.json": the day in Rome, when the customer asked. */
const fileName = (at: Date) => `novalex-dati-${romeDay(at)}.json`;

export function createDataExports({
  db,
  rateLimits,
  audit,
  now,
}: {
  db: Database;
  rateLimits: RateLimits;
  audit: AuditLog;
  now: Clock;
}) {
  return {
    async download(userId: string, ip: string): Promise<DataExportResult> {
      const allowed = await rateLimits.checkDataExport(userId);
      if (!allowed.ok) return { ok: false, reason: "throttled", retryAfterSeconds: allowed.retryAfterSeconds };
      const [customer] = await db.select({ id: users.id, email: users.email }).from(users).where(eq(users.id, userId));
      if (!customer) return { ok: false, reason: "not_found" };
      const at = now();
      const data = await customerData(db, customer, at);
      await audit.record("data_exported", { userId, ip });
      return { ok: true, fileName: fileName(at), json: JSON.stringify(data, null, 2) };
    },
  };
}
