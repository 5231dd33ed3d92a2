// Customer accounts: registration, credentials, lookups.
import { and, eq } from "drizzle-orm";
import type { PgColumn } from "drizzle-orm/pg-core";
import type { Database, Transaction } from "#server/db/client.ts";
import { isUniqueViolation } from "#server/db/errors.ts";
import { users } from "#server/db/schema/index.ts";
import { systemClock, type Clock } from "#server/lib/clock.ts";
import { standardPasswords, type PasswordHasher } from "./passwords.ts";

export type User = typeof users.$inferSelect;
/**
 * The signed-in customer as every request sees them: what pages show and services act on. The
 * password hash and the account's bookkeeping stay in the table (services that need them read them).
 */
export type SessionUser = Omit<User, "passwordHash" | "migratedFromShop" | "status" | "createdAt" | "updatedAt" | "deletedAt">;

/** A SessionUser's columns, selected alike by the session lookup and the profile. */
export const sessionUserColumns = {
  id: users.id,
  email: users.email,
  firstname: users.firstname,
  lastname: users.lastname,
  mobile: users.mobile,
  professionId: users.professionId,
  universityId: users.universityId,
  degreeCourseId: users.degreeCourseId,
  subjectId: users.subjectId,
  acceptMarketing: users.acceptMarketing,
  acceptCustomize: users.acceptCustomize,
} satisfies Record<keyof SessionUser, PgColumn>;

/** E-mails are compared trimmed and lower-cased: one account per address, whatever the case. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export type RegistrationInput = { firstname: string; lastname: string; email: string; password: string };

export type CredentialsResult =
  | { ok: true; user: User }
  | { ok: false; reason: "invalid" }
  /** Imported from the old shop: has to set a password through an e-mailed link first. */
  | { ok: false; reason: "migrated"; user: User };

export function createAccountsService(db: Database, now: Clock = systemClock, passwords: PasswordHasher = standardPasswords) {
  const createdNow = () => {
    const at = now();
    return { createdAt: at, updatedAt: at };
  };

  async function findActiveByEmail(email: string): Promise<User | null> {
    const [user] = await db
      .select()
      .from(users)
      .where(and(eq(users.email, normalizeEmail(email)), eq(users.status, "active")));
    return user ?? null;
  }

  return {
    findActiveByEmail,

    async findActiveById(id: string): Promise<User | null> {
      if (!/^[0-9a-f-]{36}$/i.test(id)) return null;
      const [user] = await db
        .select()
        .from(users)
        .where(and(eq(users.id, id), eq(users.status, "active")));
      return user ?? null;
    },

    /** Creates an account; the unique index on e-mail decides races between two sign-ups. */
    /**
     * A new account. `owed` writes what the account is owed (its welcome mail) in the same
     * transaction: the account exists with it or not at all.
     */
    async register(
      input: RegistrationInput,
      owed: (tx: Transaction, user: User) => Promise<void> = async () => {},
    ): Promise<{ ok: true; user: User } | { ok: false; reason: "email_taken" }> {
      const passwordHash = await passwords.hash(input.password);
      try {
        return await db.transaction(async (tx) => {
          const [user] = await tx
            .insert(users)
            .values({
              email: normalizeEmail(input.email),
              passwordHash,
              firstname: input.firstname.trim(),
              lastname: input.lastname.trim(),
              ...createdNow(),
            })
            .returning();
          await owed(tx, user!);
          return { ok: true as const, user: user! };
        });
      } catch (error) {
        if (isUniqueViolation(error)) return { ok: false, reason: "email_taken" };
        throw error;
      }
    },

    /**
     * An account for a customer proven by the social login's upstream provider: no password
     * (one can be set later through "password dimenticata"). A racing twin returns the same row.
     */
    async registerWithoutPassword(input: { email: string; firstname: string; lastname: string }): Promise<User> {
      try {
        const [user] = await db
          .insert(users)
          .values({
            email: normalizeEmail(input.email),
            firstname: input.firstname.trim(),
            lastname: input.lastname.trim(),
            ...createdNow(),
          })
          .returning();
        return user!;
      } catch (error) {
        const existing = isUniqueViolation(error) ? await findActiveByEmail(input.email) : null;
        if (!existing) throw error;
        return existing;
      }
    },

    /** Checks e-mail and password. Unknown e-mail and wrong password are the same answer. */
    async verifyCredentials(email: string, password: string): Promise<CredentialsResult> {
      const user = await findActiveByEmail(email);
      const valid = await passwords.verify(user?.passwordHash, password);
      if (user?.migratedFromShop) return { ok: false, reason: "migrated", user };
      if (!user || !valid) return { ok: false, reason: "invalid" };
      return { ok: true, user };
    },
  };
}

export type AccountsService = ReturnType<typeof createAccountsService>;
