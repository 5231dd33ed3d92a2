// Password change from the profile (spec §2 /profile/change-password/, §5, §8): the customer
// proves the current password and chooses a new one that meets the rule.
//
// After the change only the browser that made it stays signed in. The portal's other sessions
// are ended by the caller (`auth.endOtherSessions`); this module ends the identity provider's
// side in the same transaction as the new hash: every provider session, grant and token of the
// account except the grant behind the portal session that stays. Without that, a browser whose
// portal session was ended would be signed straight back in by the provider's own session
// cookie (30 days) at its next visit to /login/, without a password.
import { and, eq } from "drizzle-orm";
import type { Database } from "#server/db/client.ts";
import { systemClock, type Clock } from "#server/lib/clock.ts";
import type { AuditLog } from "#server/audit/service.ts";
import { users } from "#server/db/schema/index.ts";
import { endOtherProviderSessions, grantOfSession } from "./provider-grants.ts";
import type { RateLimits } from "#server/security/rate-limits.ts";
import { isValidPassword } from "#shared/password-rule.ts";
import { standardPasswords, type PasswordHasher } from "./passwords.ts";

type PasswordChangeFailure =
  /** The current password is wrong (or the password changed meanwhile, so it is no longer right). */
  | "wrong_password"
  /** The new password does not meet the rule (the form checks it first; this is the guard). */
  | "invalid_password"
  /** No active account with this id (deleted meanwhile). */
  | "unknown_user";

export type PasswordChangeResult = { ok: true } | { ok: false; reason: PasswordChangeFailure };

export type PasswordChangeOptions = {
  /** The raw id of the portal session that stays signed in; its provider grant survives. */
  keepSessionId?: string;
  /** The provider grant that survives (an API client's: the app that made the change). */
  keepGrantId?: string;
};

/**
 * Changes the password of an active account after checking the current one. The new hash is
 * written only over the hash that was verified, so a reset or another change that lands in
 * between is never overwritten by a password nobody proved.
 */
export async function changePassword(
  db: Database,
  userId: string,
  currentPassword: string,
  newPassword: string,
  { keepSessionId, keepGrantId }: PasswordChangeOptions = {},
  now: Clock = systemClock,
  passwords: PasswordHasher = standardPasswords,
): Promise<PasswordChangeResult> {
  if (!isValidPassword(newPassword)) return { ok: false, reason: "invalid_password" };
  const [user] = await db
    .select({ passwordHash: users.passwordHash })
    .from(users)
    .where(and(eq(users.id, userId), eq(users.status, "active")));
  if (!user) {
    await passwords.verify(null, currentPassword); // the same time as a real check
    return { ok: false, reason: "unknown_user" };
  }
  if (!user.passwordHash || !(await passwords.verify(user.passwordHash, currentPassword))) {
    return { ok: false, reason: "wrong_password" };
  }
  const verifiedHash = user.passwordHash;
  const passwordHash = await passwords.hash(newPassword);
  return db.transaction(async (tx) => {
    const updated = await tx
      .update(users)
      .set({ passwordHash, updatedAt: now() })
      .where(and(eq(users.id, userId), eq(users.status, "active"), eq(users.passwordHash, verifiedHash)))
      .returning({ id: users.id });
    if (updated.length === 0) return { ok: false, reason: "wrong_password" } as const;
    const keptGrant = keepGrantId ?? (keepSessionId ? await grantOfSession(tx, keepSessionId) : null);
    await endOtherProviderSessions(tx, userId, keptGrant);
    return { ok: true } as const;
  });
}

export type PasswordChangeRequest = {
  user: { id: string; email: string | null };
  /**
   * What made the change, and stays signed in: a portal session (its raw id), or an API
   * client's grant (then every portal session ends).
   */
  keep: { sessionId: string } | { grantId: string };
  currentPassword: string;
  newPassword: string;
  ip: string | undefined;
};

export type PasswordChangeOutcome =
  | PasswordChangeResult
  /** The account's sign-in is locked by failed attempts: the password was not even checked. */
  | { ok: false; reason: "locked"; retryAfterSeconds: number };

export type PasswordChangeDependencies = {
  rateLimits: Pick<RateLimits, "checkSignIn" | "recordSignInFailure" | "recordSignInSuccess">;
  audit: Pick<AuditLog, "record">;
  /** Ends the portal's sessions of the user except `keep` (all of them without one). */
  endOtherPortalSessions: (userId: string, keep?: string) => Promise<void>;
  /** The configuration's hasher (the production cost when not given). */
  passwords?: PasswordHasher;
};

/**
 * The service the routes reach through the context (`services.passwordChanges`). The current
 * password is a sign-in credential, so the sign-in's brute-force limits apply: a wrong one counts
 * as a failed sign-in, and while the sign-in is locked it is not even checked. On success only
 * the browser that made the change stays signed in, and the audit log records it.
 */
export function createPasswordChanges(db: Database, deps: PasswordChangeDependencies, now: Clock = systemClock) {
  const passwords = deps.passwords ?? standardPasswords;
  return {
    /**
     * Whether `password` is the account's current one (the API's verifypassword), under the
     * sign-in's limits: a wrong one counts as a failed sign-in, and while locked none is checked.
     */
    async verify({
      user,
      password,
      ip,
    }: {
      user: { id: string; email: string | null };
      password: string;
      ip: string | undefined;
    }): Promise<{ ok: true; matches: boolean } | { ok: false; reason: "locked"; retryAfterSeconds: number }> {
      const account = { email: user.email ?? user.id, ip };
      const lock = await deps.rateLimits.checkSignIn(account);
      if (!lock.ok) return { ok: false, reason: "locked", retryAfterSeconds: lock.retryAfterSeconds };
      const [row] = await db
        .select({ passwordHash: users.passwordHash })
        .from(users)
        .where(and(eq(users.id, user.id), eq(users.status, "active")));
      const matches = await passwords.verify(row?.passwordHash ?? null, password);
      if (matches) await deps.rateLimits.recordSignInSuccess(account);
      else await deps.rateLimits.recordSignInFailure(account);
      return { ok: true, matches };
    },

    async change({ user, keep, currentPassword, newPassword, ip }: PasswordChangeRequest): Promise<PasswordChangeOutcome> {
      const account = { email: user.email ?? user.id, ip };
      const lock = await deps.rateLimits.checkSignIn(account);
      if (!lock.ok) return { ok: false, reason: "locked", retryAfterSeconds: lock.retryAfterSeconds };
      const keepSessionId = "sessionId" in keep ? keep.sessionId : undefined;
      const keepGrantId = "grantId" in keep ? keep.grantId : undefined;
      const result = await changePassword(
        db,
        user.id,
        currentPassword,
        newPassword,
        { keepSessionId, keepGrantId },
        now,
        passwords,
      );
      if (!result.ok) {
        if (result.reason === "wrong_password") await deps.rateLimits.recordSignInFailure(account);
        return result;
      }
      await deps.rateLimits.recordSignInSuccess(account);
      await deps.endOtherPortalSessions(user.id, keepSessionId);
      await deps.audit.record("password_changed", { userId: user.id, ip });
      return result;
    },
  };
}
