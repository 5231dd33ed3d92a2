// Password links: forgotten password, and first password of accounts migrated from the old shop.
// A token is 256 random bits, stored only as its SHA-256, valid one hour, usable once.
import { createHash, randomBytes } from "node:crypto";
import { and, eq, gt, isNull } from "drizzle-orm";
import type { Database, Queryable, Transaction } from "#server/db/client.ts";
import { systemClock, type Clock } from "#server/lib/clock.ts";
import { passwordResetTokens, users } from "#server/db/schema/index.ts";
import { standardPasswords, type PasswordHasher } from "./passwords.ts";

export const RESET_TOKEN_TTL_MS = 60 * 60 * 1000;
export type ResetPurpose = "reset" | "migrated";

const hashToken = (token: string) => createHash("sha256").update(token).digest("base64url");

export function createPasswordResets(db: Database, now: Clock = systemClock, passwords: PasswordHasher = standardPasswords) {
  const usable = (token: string, purpose: ResetPurpose) =>
    and(
      eq(passwordResetTokens.tokenHash, hashToken(token)),
      eq(passwordResetTokens.purpose, purpose),
      isNull(passwordResetTokens.usedAt),
      gt(passwordResetTokens.expiresAt, now()),
    );

  /** A new link token for the user; earlier unused tokens stay valid until they expire. */
  async function issue(userId: string, purpose: ResetPurpose, into: Queryable = db): Promise<string> {
    const token = randomBytes(32).toString("base64url");
    await into.insert(passwordResetTokens).values({
      tokenHash: hashToken(token),
      userId,
      purpose,
      createdAt: now(),
      expiresAt: new Date(now().getTime() + RESET_TOKEN_TTL_MS),
    });
    return token;
  }

  return {
    issue,

    /**
     * A new link token and the mail that carries it, in one transaction (issue 29: no link is
     * written that its mail does not carry). `owe` keeps the mail with the token (MailService.owe);
     * its answer, returned here, sends it over SMTP once the transaction has committed.
     */
    issueWithMail(
      userId: string,
      purpose: ResetPurpose,
      owe: (tx: Transaction, token: string) => Promise<() => Promise<void>>,
    ): Promise<() => Promise<void>> {
      return db.transaction(async (tx) => owe(tx, await issue(userId, purpose, tx)));
    },

    /** Whether the link can still be used (the page checks before showing the form). */
    async isUsable(token: string, purpose: ResetPurpose): Promise<boolean> {
      const [row] = await db
        .select({ userId: passwordResetTokens.userId })
        .from(passwordResetTokens)
        .where(usable(token, purpose));
      return Boolean(row);
    },

    /**
     * Sets the new password and uses up the token in one transaction. The UPDATE that marks the
     * token used matches only an unused one, so of parallel submissions exactly one succeeds.
     * Every other token of the user dies with it. Returns the user, or null for a dead link.
     */
    async resetPassword(
      token: string,
      purpose: ResetPurpose,
      newPassword: string,
    ): Promise<{ userId: string; email: string | null } | null> {
      const passwordHash = await passwords.hash(newPassword);
      return db.transaction(async (tx) => {
        const [used] = await tx
          .update(passwordResetTokens)
          .set({ usedAt: now() })
          .where(usable(token, purpose))
          .returning({ userId: passwordResetTokens.userId });
        if (!used) return null;
        const [account] = await tx
          .update(users)
          .set({ passwordHash, migratedFromShop: false, updatedAt: now() })
          .where(and(eq(users.id, used.userId), eq(users.status, "active")))
          .returning({ email: users.email });
        await tx
          .update(passwordResetTokens)
          .set({ usedAt: now() })
          .where(and(eq(passwordResetTokens.userId, used.userId), isNull(passwordResetTokens.usedAt)));
        return { userId: used.userId, email: account?.email ?? null };
      });
    },
  };
}

export type PasswordResets = ReturnType<typeof createPasswordResets>;
