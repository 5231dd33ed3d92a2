// The account console's 'Dove hai effettuato l'accesso': every live session of the account, each
// described by its device and rough place, and signing out of one or of all the others. Ending a
// session also ends the identity provider's session and grant behind it: otherwise that browser
// would be signed in again silently on its next visit, without the password.
import { and, desc, eq, inArray } from "drizzle-orm";
import type { Database } from "../db/client.ts";
import { auditLog } from "../db/schema.ts";
import type { AuditLog } from "../audit/service.ts";
import { isUuid } from "../lib/uuid.ts";
import type { SessionStore } from "./sessions.ts";
import { approximatePlace, describeDevice } from "./session-devices.ts";

export type DeviceView = {
  /** The session's public id: names it in the forms, signs nobody in. */
  id: string;
  /** 'Firefox su Windows · Computer'. */
  device: string;
  /** 'Italia', 'Rete locale', or null when unknown. */
  place: string | null;
  /** The network prefix the place comes from ("93.44.12.0/24"), or null. */
  network: string | null;
  firstSeenAt: Date;
  lastSeenAt: Date;
  /** The session of the browser looking at the page. */
  current: boolean;
};

/** The events after which every other session of the account had ended. */
const PASSWORD_EVENTS = ["password_changed", "password_reset"] as const;

export function createDevices({
  db,
  sessions,
  audit,
  endProviderSession,
}: {
  db: Database;
  sessions: SessionStore;
  audit: AuditLog;
  /** Ends the identity provider's session and grant behind a portal session's refresh token. */
  endProviderSession: (refreshToken: string) => Promise<void>;
}) {
  const endProviderSessions = async (ended: { refreshToken: string | null }[]) => {
    for (const { refreshToken } of ended) if (refreshToken) await endProviderSession(refreshToken);
  };

  return {
    /** The account's live sessions: this browser's first, marked `current`, then the latest used first. */
    async list(userId: string, currentSessionId: string): Promise<DeviceView[]> {
      const live = await sessions.listLive(userId, currentSessionId);
      return live.map((session) => ({
        id: session.publicId,
        device: describeDevice(session.userAgent),
        place: approximatePlace(session.ipPrefix),
        network: session.ipPrefix,
        firstSeenAt: session.createdAt,
        lastSeenAt: session.lastSeenAt,
        current: session.current,
      }));
    },

    /** When the password was last changed or reset (every other session ended then), or null. */
    async lastPasswordChange(userId: string): Promise<Date | null> {
      const [row] = await db
        .select({ at: auditLog.createdAt })
        .from(auditLog)
        .where(and(eq(auditLog.userId, userId), inArray(auditLog.event, [...PASSWORD_EVENTS])))
        .orderBy(desc(auditLog.seq))
        .limit(1);
      return row?.at ?? null;
    },

    /**
     * 'Esci da questo dispositivo' for another session of the account. False when there is no such
     * session of this account (ended already, or not theirs): nothing changes.
     */
    async signOut(userId: string, deviceId: string, currentSessionId: string, ip: string): Promise<boolean> {
      if (!isUuid(deviceId)) return false;
      const ended = await sessions.destroyOther(userId, deviceId, currentSessionId);
      if (!ended) return false;
      await endProviderSessions([ended]);
      await audit.record("session_ended", { userId, ip, details: { sessions: 1 } });
      return true;
    },

    /** 'Esci da tutti gli altri': every session of the account but this browser's. Returns how many ended. */
    async signOutOthers(userId: string, currentSessionId: string, ip: string): Promise<number> {
      const ended = await sessions.destroyAllForUser(userId, currentSessionId);
      await endProviderSessions(ended);
      if (ended.length > 0) await audit.record("session_ended", { userId, ip, details: { sessions: ended.length } });
      return ended.length;
    },
  };
}
