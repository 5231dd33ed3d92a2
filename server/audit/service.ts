// The audit log: security-relevant events of an account (sign-ins, password resets and changes,
// deletion) and what operators' commands did, with who, when and from where. The API has no field
// for a password or a token, so none can be stored by mistake; an operator's `details` are the
// command's own summary (a batch, a product, an amount), never a code in clear.
import { desc, eq } from "drizzle-orm";
import type { Queryable } from "#server/db/client.ts";
import { AUDIT_EVENTS, auditLog, type AuditEvent } from "#server/db/schema/index.ts";
import { systemClock, type Clock } from "#server/lib/clock.ts";

export type AuditDetails = {
  /** The account concerned, when there is one (it must exist: the column references users). */
  userId?: string | null;
  /** The e-mail typed at a failed sign-in; stored trimmed, lower-cased, at most 254 characters. */
  subject?: string | null;
  /** The client address; at most 45 characters (the longest textual IPv6 address). */
  ip?: string | null;
  /** Who acted when not the customer: `operator:<name>` for an operator's command. At most 100 characters. */
  actor?: string | null;
  /** What an operator's command did, as JSON. */
  details?: Record<string, unknown> | null;
};

export type AuditEntry = {
  id: string;
  event: AuditEvent;
  userId: string | null;
  subject: string | null;
  ip: string | null;
  actor: string | null;
  details: unknown;
  createdAt: Date;
};

const MAX_SUBJECT = 254;
const MAX_IP = 45;
const MAX_ACTOR = 100;
const MAX_LIST = 500;

/** Trimmed and cut to `max` characters (whole code points); null when nothing is left. */
function bounded(value: string | null | undefined, max: number): string | null {
  const text = Array.from(value?.trim() ?? "")
    .slice(0, max)
    .join("");
  return text === "" ? null : text;
}

/**
 * Takes any Drizzle database or transaction: to record an event in the same transaction as
 * the change it describes, create one over the transaction (`createAuditLog(tx)`).
 */
export function createAuditLog(db: Queryable, now: Clock = systemClock) {
  return {
    async record(event: AuditEvent, { userId, subject, ip, actor, details }: AuditDetails = {}): Promise<void> {
      if (!AUDIT_EVENTS.includes(event)) throw new Error(`Unknown audit event: ${String(event)}`);
      await db.insert(auditLog).values({
        event,
        userId: userId ?? null,
        subject: bounded(subject?.toLowerCase(), MAX_SUBJECT),
        ip: bounded(ip, MAX_IP),
        actor: bounded(actor, MAX_ACTOR),
        details: details ?? null,
        createdAt: now(),
      });
    },

    /** The account's events, newest first. */
    async listForUser(userId: string, limit = 50): Promise<AuditEntry[]> {
      const rows = Number.isFinite(limit) ? Math.min(Math.max(Math.trunc(limit), 1), MAX_LIST) : 50;
      return db
        .select({
          id: auditLog.id,
          event: auditLog.event,
          userId: auditLog.userId,
          subject: auditLog.subject,
          ip: auditLog.ip,
          actor: auditLog.actor,
          details: auditLog.details,
          createdAt: auditLog.createdAt,
        })
        .from(auditLog)
        .where(eq(auditLog.userId, userId))
        .orderBy(desc(auditLog.seq))
        .limit(rows);
    },
  };
}

export type AuditLog = ReturnType<typeof createAuditLog>;
