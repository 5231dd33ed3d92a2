// The portal's sessions: a row per signed-in browser. The cookie carries a random 256-bit id;
// the table keeps only its SHA-256, so a leaked table does not hand out sessions.
import { createHash, randomBytes } from "node:crypto";
import { and, asc, desc, eq, gt, isNull, lte, ne, or, sql } from "drizzle-orm";
import type { Database } from "#server/db/client.ts";
import { idempotent } from "#server/db/reconnecting-pool.ts";
import { systemClock, type Clock } from "#server/lib/clock.ts";
import { sessions, users } from "#server/db/schema/index.ts";
import { sessionUserColumns, type SessionUser } from "./service.ts";

/** A session unused this long ends (a week without visits). */
export const SESSION_IDLE_TIMEOUT_MS = 7 * 24 * 60 * 60 * 1000;
/** A session ends this long after sign-in, however active (30 days). */
export const SESSION_ABSOLUTE_TIMEOUT_MS = 30 * 24 * 60 * 60 * 1000;
/** How long one request may take to refresh a session's tokens before another may try. */
const REFRESH_CLAIM_MS = 10_000;
/** lastSeenAt is written at most this often, not on every request. */
const TOUCH_INTERVAL_MS = 60 * 1000;

export type ProviderTokens = {
  accessToken: string;
  accessTokenExpiresAt: Date;
  refreshToken: string | null;
  idToken: string;
};

export type Session = typeof sessions.$inferSelect;
/** Where a session signed in from: the browser's user agent and its network's prefix (session-devices.ts). */
export type SessionDevice = { userAgent: string | null; ipPrefix: string | null };
const NO_DEVICE: SessionDevice = { userAgent: null, ipPrefix: null };
/** A live session as the account console lists it: never its id or tokens. */
export type LiveDevice = Pick<Session, "publicId" | "createdAt" | "lastSeenAt" | "userAgent" | "ipPrefix"> & { current: boolean };
/** What a request needs of its session: the provider's tokens stay in the table until a refresh. */
export type LiveSession = Pick<Session, "idHash" | "userId" | "lastSeenAt" | "accessTokenExpiresAt">;

const hashId = (rawId: string) => createHash("sha256").update(rawId).digest("base64url");

export function createSessionStore(db: Database, now: Clock = systemClock) {
  // Prepared once: every signed-in request runs it.
  const liveSession = db
    .select({
      session: {
        idHash: sessions.idHash,
        userId: sessions.userId,
        lastSeenAt: sessions.lastSeenAt,
        accessTokenExpiresAt: sessions.accessTokenExpiresAt,
      },
      user: sessionUserColumns,
    })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(
      and(
        eq(sessions.idHash, sql.placeholder("idHash")),
        gt(sessions.expiresAt, sql.placeholder("now")),
        gt(sessions.lastSeenAt, sql.placeholder("idleSince")),
        eq(users.status, "active"),
      ),
    )
    .prepare("session_live");

  return {
    /** A new session (and a new id: sign-in never reuses an id the browser had before). */
    async create(userId: string, tokens: ProviderTokens, device: SessionDevice = NO_DEVICE): Promise<string> {
      const rawId = randomBytes(32).toString("base64url");
      const at = now();
      await db.insert(sessions).values({
        idHash: hashId(rawId),
        userId,
        createdAt: at,
        lastSeenAt: at,
        expiresAt: new Date(at.getTime() + SESSION_ABSOLUTE_TIMEOUT_MS),
        userAgent: device.userAgent,
        ipPrefix: device.ipPrefix,
        ...tokens,
      });
      return rawId;
    },

    /** The user's live sessions: `currentRawId`'s first, marked `current`, then the most recently used first. */
    async listLive(userId: string, currentRawId: string): Promise<LiveDevice[]> {
      const at = now();
      const rows = await db
        .select({
          idHash: sessions.idHash,
          publicId: sessions.publicId,
          createdAt: sessions.createdAt,
          lastSeenAt: sessions.lastSeenAt,
          userAgent: sessions.userAgent,
          ipPrefix: sessions.ipPrefix,
        })
        .from(sessions)
        .where(
          and(
            eq(sessions.userId, userId),
            gt(sessions.expiresAt, at),
            gt(sessions.lastSeenAt, new Date(at.getTime() - SESSION_IDLE_TIMEOUT_MS)),
          ),
        )
        .orderBy(desc(sessions.lastSeenAt), asc(sessions.createdAt));
      const current = hashId(currentRawId);
      const listed = rows.map(({ idHash, ...row }) => ({ ...row, current: idHash === current }));
      // This browser first (its last visit may not be written yet: lastSeenAt is written once a minute).
      return [...listed.filter((row) => row.current), ...listed.filter((row) => !row.current)];
    },

    /**
     * Ends the user's session named by its public id, unless it is `currentRawId`'s (that one signs
     * out). Returns the ended session's refresh token (or null), or false when there was none to end.
     */
    async destroyOther(userId: string, publicId: string, currentRawId: string): Promise<{ refreshToken: string | null } | false> {
      const [row] = await db
        .delete(sessions)
        .where(and(eq(sessions.userId, userId), eq(sessions.publicId, publicId), ne(sessions.idHash, hashId(currentRawId))))
        .returning({ refreshToken: sessions.refreshToken });
      return row ?? false;
    },

    /**
     * The live session of this id with its (active) user, in one statement: this runs on every
     * signed-in request. Null when unknown, idle too long, past its end or the account is gone.
     */
    async find(rawId: string): Promise<{ session: LiveSession; user: SessionUser } | null> {
      const at = now();
      const [row] = await liveSession.execute({
        idHash: hashId(rawId),
        now: at,
        idleSince: new Date(at.getTime() - SESSION_IDLE_TIMEOUT_MS),
      });
      if (!row) return null;
      if (at.getTime() - row.session.lastSeenAt.getTime() > TOUCH_INTERVAL_MS) {
        await idempotent(db, () => db.update(sessions).set({ lastSeenAt: at }).where(eq(sessions.idHash, row.session.idHash)));
      }
      return row;
    },

    /**
     * Renews the provider tokens of a session whose access token has expired, once however many
     * requests (on however many instances) need it at the same moment. One request claims the
     * refresh with an atomic UPDATE; the others wait for its result. No lock is held during the
     * call to the provider, which uses the same database.
     * Returns false when the session cannot be renewed (grant revoked): it is then deleted.
     */
    async refreshTokens(idHash: string, refresh: (refreshToken: string) => Promise<ProviderTokens | null>): Promise<boolean> {
      const claimed = await db
        .update(sessions)
        .set({ refreshingUntil: new Date(now().getTime() + REFRESH_CLAIM_MS) })
        .where(
          and(
            eq(sessions.idHash, idHash),
            or(isNull(sessions.accessTokenExpiresAt), lte(sessions.accessTokenExpiresAt, now())),
            or(isNull(sessions.refreshingUntil), lte(sessions.refreshingUntil, now())),
          ),
        )
        .returning({ refreshToken: sessions.refreshToken });
      const claim = claimed[0];
      if (claim) {
        const fresh = claim.refreshToken ? await refresh(claim.refreshToken).catch(() => null) : null;
        if (!fresh) {
          await db.delete(sessions).where(eq(sessions.idHash, idHash));
          return false;
        }
        await db
          .update(sessions)
          // A refresh may come without a new ID token: the one there stays.
          .set({ ...fresh, idToken: fresh.idToken || undefined, refreshingUntil: null })
          .where(eq(sessions.idHash, idHash));
        return true;
      }
      // Someone else is refreshing (or just did): wait for the renewed tokens.
      const deadline = now().getTime() + REFRESH_CLAIM_MS;
      while (now().getTime() < deadline) {
        const [row] = await db
          .select({ expiresAt: sessions.accessTokenExpiresAt })
          .from(sessions)
          .where(eq(sessions.idHash, idHash));
        if (!row) return false;
        if (row.expiresAt && row.expiresAt > now()) return true;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return false;
    },

    async destroy(rawId: string): Promise<Session | null> {
      const [row] = await db
        .delete(sessions)
        .where(eq(sessions.idHash, hashId(rawId)))
        .returning();
      return row ?? null;
    },

    /**
     * Ends the user's sessions, except the one given (password change keeps the current one).
     * Returns the refresh tokens the ended sessions held, for ending the provider's sessions too.
     */
    async destroyAllForUser(userId: string, exceptRawId?: string): Promise<{ refreshToken: string | null }[]> {
      return db
        .delete(sessions)
        .where(and(eq(sessions.userId, userId), exceptRawId ? ne(sessions.idHash, hashId(exceptRawId)) : sql`true`))
        .returning({ refreshToken: sessions.refreshToken });
    },
  };
}

export type SessionStore = ReturnType<typeof createSessionStore>;
