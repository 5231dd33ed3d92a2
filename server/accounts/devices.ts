// The account console's 'Dove hai effettuato l'accesso': every live session of the account, each
// described by its device and rough place, and signing out of one or of all the others. Ending a
// session also ends the identity provider's session and grant behind it: otherwise that browser
// would be signed in again silently on its next visit, without the password.
//
// Apps signed in with the account (the publisher's app: another client of the provider, code +
// PKCE) have no portal session: they hold a provider grant, listed here beside the browsers and
// ended with its tokens. 'Esci da tutti gli altri' ends them too, as a password change does: a
// customer who lost a phone is then signed out of its app as well.
import { and, desc, eq, inArray } from "drizzle-orm";
import type { Database } from "#server/db/client.ts";
import { auditLog } from "#server/db/schema/index.ts";
import type { AuditLog } from "#server/audit/service.ts";
import { endGrant, endOtherProviderSessions, grantOfSession, listGrants } from "./provider-grants.ts";
import { systemClock, type Clock } from "#server/lib/clock.ts";
import { isUuid } from "#server/lib/uuid.ts";
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

export type AppView = {
  /** The grant's id: names it in the form; only this account's grants are ever ended by it. */
  id: string;
  /** 'App Novalex': the client's name at the provider. */
  app: string;
  signedInAt: Date;
  /** When the app last renewed its access (it does so every few minutes while in use). */
  lastUsedAt: Date;
  /** Where it last renewed it from, as for a browser: 'Italia', 'Rete locale', or null. */
  place: string | null;
  network: string | null;
};

/** The events after which every other session of the account had ended. */
const PASSWORD_EVENTS = ["password_changed", "password_reset"] as const;

export function createDevices({
  db,
  sessions,
  audit,
  endProviderSession,
  portalClientId,
  clientName,
  now = systemClock,
}: {
  db: Database;
  sessions: SessionStore;
  audit: AuditLog;
  /** Ends the identity provider's session and grant behind a portal session's refresh token. */
  endProviderSession: (refreshToken: string) => Promise<void>;
  /** The portal's own client: its grants are the browsers', listed as sessions, not as apps. */
  portalClientId: string;
  /** The name a client is shown by ('App Novalex'). */
  clientName: (clientId: string) => Promise<string>;
  now?: Clock;
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

    /** The apps signed in with the account, the most recently used first. */
    async listApps(userId: string): Promise<AppView[]> {
      const grants = await listGrants(db, userId, portalClientId, now());
      return Promise.all(
        grants.map(async ({ clientId, ipPrefix, ...grant }) => ({
          ...grant,
          app: await clientName(clientId),
          place: approximatePlace(ipPrefix),
          network: ipPrefix,
        })),
      );
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

    /**
     * 'Esci dall'app' for one app of the account: its grant and tokens end. False when the account
     * has no such app grant (ended already, or not theirs): nothing changes.
     */
    async signOutApp(userId: string, grantId: string, ip: string): Promise<boolean> {
      const clientId = await endGrant(db, userId, grantId, portalClientId);
      if (!clientId) return false;
      await audit.record("session_ended", { userId, ip, details: { apps: [clientId] } });
      return true;
    },

    /**
     * 'Esci da tutti gli altri': every session of the account but this browser's, and every grant
     * of the provider but the one behind this browser's session: the apps' included, so their
     * access tokens are refused and their refresh tokens revoked from this moment. Returns how
     * many browsers and apps ended.
     */
    async signOutOthers(userId: string, currentSessionId: string, ip: string): Promise<{ sessions: number; apps: number }> {
      // The provider's side first, in one statement: what is ended there cannot sign back in, even
      // if ending the portal's sessions below fails (they then end at their next token refresh).
      const apps = await db.transaction(async (tx) => {
        const kept = await grantOfSession(tx, currentSessionId);
        const endedClients = await endOtherProviderSessions(tx, userId, kept);
        return endedClients.filter((clientId) => clientId !== portalClientId);
      });
      const ended = await sessions.destroyAllForUser(userId, currentSessionId);
      if (ended.length > 0 || apps.length > 0) {
        await audit.record("session_ended", { userId, ip, details: { sessions: ended.length, apps } });
      }
      return { sessions: ended.length, apps: apps.length };
    },
  };
}
