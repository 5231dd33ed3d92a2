// The customer's profile: first-access completion, 'Il mio account', preferences and account
// deletion (spec §2, §4, §5). Every change is validated here against the database, whatever the
// form sent: ids must exist, a degree course must belong to the chosen university, the branch of
// the profession decides which fields are required, and the profession is set once.
import { and, eq, inArray, isNull, or, sql } from "drizzle-orm";
import { createAuditLog } from "#server/audit/service.ts";
import { isProfessionCode, OTHER_INTEREST_CODE, type ProfessionCode } from "#server/catalog/reference.ts";
import { isUuid } from "#server/lib/uuid.ts";
import { systemClock, type Clock } from "#server/lib/clock.ts";
import type { Database } from "#server/db/client.ts";
import {
  auditLog,
  degreeCourses,
  emailChangeRequests,
  interests,
  mailOutbox,
  oidcPayloads,
  passwordResetTokens,
  rateLimits,
  professions,
  sessions,
  subjects,
  universities,
  userInterests,
  users,
  orders,
  savedCheckoutDetails,
} from "#server/db/schema/index.ts";
import { PROFILE_LIMITS } from "#shared/profile-limits.ts";
import { isEmail, isMobile, normalizeMobile } from "#shared/contact-rules.ts";
import { personalKeys } from "#server/security/rate-limits.ts";
import { endSubscriptionsOfDeletedAccount } from "#server/commerce/subscription-records.ts";
import { enqueueCustomerErasure } from "#server/payments/customer-erasure.ts";
import { normalizeEmail, sessionUserColumns } from "./service.ts";

export type ProfileField =
  | "firstname"
  | "lastname"
  | "email"
  | "mobile"
  | "professionId"
  | "universityId"
  | "degreeCourseId"
  | "subjectId"
  | "interestIds";

/**
 * Why a field was refused: `required` (empty), `invalid` (malformed or too long), `unknown` (no
 * such choice), `mismatch` (a degree course of another university), `locked` (another profession
 * than the one set: it is set once).
 */
export type ProfileErrorCode = "required" | "invalid" | "unknown" | "mismatch" | "locked";
export type ProfileErrors = Partial<Record<ProfileField, ProfileErrorCode>>;

export type Profile = {
  id: string;
  /** Also the username ('Utente'), read-only on the account page. */
  email: string;
  firstname: string | null;
  lastname: string | null;
  mobile: string | null;
  professionId: string | null;
  professionCode: ProfessionCode | null;
  professionName: string | null;
  universityId: string | null;
  degreeCourseId: string | null;
  subjectId: string | null;
  interestIds: string[];
  acceptMarketing: boolean;
  acceptCustomize: boolean;
};

export type FirstAccessInput = {
  professionId: string | null | undefined;
  universityId?: string | null;
  degreeCourseId?: string | null;
  subjectId?: string | null;
  interestIds?: readonly string[];
};

export type FirstAccessResult =
  | { ok: true; professionCode: ProfessionCode }
  | { ok: false; reason: "invalid"; errors: ProfileErrors }
  /** The profile already has a profession (set by another tab, or before): nothing was written. */
  | { ok: false; reason: "already_completed" };

/**
 * What the account form sent. A field left undefined was not in the form and is kept as it is;
 * strings are taken raw and trimmed here. The username is not a field: it is never taken from a form.
 */
export type ProfileSubmission = {
  firstname?: string;
  lastname?: string;
  email?: string;
  mobile?: string;
  professionId?: string;
  universityId?: string;
  degreeCourseId?: string;
  subjectId?: string;
  interestIds?: readonly string[];
};

export type ProfileUpdateResult =
  | { ok: true; changed: ProfileField[] }
  | { ok: false; reason: "invalid"; errors: ProfileErrors }
  | { ok: false; reason: "not_found" };

type Transaction = Parameters<Parameters<Database["transaction"]>[0]>[0];
type Executor = Database | Transaction;

/** A branch's choices, as they will be stored. */
type BranchChoice = {
  universityId: string | null;
  degreeCourseId: string | null;
  subjectId: string | null;
  interestIds: string[] | null;
};

async function professionById(tx: Executor, id: string | null | undefined) {
  if (!isUuid(id)) return null;
  const [row] = await tx.select({ id: professions.id, code: professions.code }).from(professions).where(eq(professions.id, id));
  return row && isProfessionCode(row.code) ? { id: row.id, code: row.code } : null;
}

async function exists(tx: Executor, table: typeof universities | typeof subjects, id: string): Promise<boolean> {
  if (!isUuid(id)) return false;
  const [row] = await tx.select({ id: table.id }).from(table).where(eq(table.id, id));
  return Boolean(row);
}

/** The university of a degree course, or null when there is no such course. */
async function universityOfCourse(tx: Executor, id: string): Promise<string | null> {
  if (!isUuid(id)) return null;
  const [row] = await tx.select({ universityId: degreeCourses.universityId }).from(degreeCourses).where(eq(degreeCourses.id, id));
  return row?.universityId ?? null;
}

/** Whether every id names an interest (and, at first access, none is the catch-all 'Altro'). */
async function interestsExist(tx: Executor, ids: string[], { firstAccess }: { firstAccess: boolean }): Promise<boolean> {
  if (!ids.every(isUuid)) return false;
  const rows = await tx.select({ id: interests.id, code: interests.code }).from(interests).where(inArray(interests.id, ids));
  return rows.length === ids.length && !(firstAccess && rows.some((r) => r.code === OTHER_INTEREST_CODE));
}

const orNull = (value: string | null | undefined) => (value ? value : null);
const unique = (ids: readonly string[]) => [...new Set(ids.map((id) => id.trim().toLowerCase()).filter(Boolean))];

/**
 * Checks a profession's branch (spec §5): student → university and a degree course of that
 * university; professor → university and subject; other → at least one interest. Records the
 * errors and returns the columns to store (the other branches' columns empty).
 */
async function checkBranch(
  tx: Executor,
  code: ProfessionCode,
  input: { universityId: string | null; degreeCourseId: string | null; subjectId: string | null; interestIds: string[] | null },
  errors: ProfileErrors,
  { firstAccess }: { firstAccess: boolean },
): Promise<BranchChoice> {
  const choice: BranchChoice = { universityId: null, degreeCourseId: null, subjectId: null, interestIds: null };
  if (code === "student" || code === "professor") {
    choice.universityId = input.universityId;
    if (!input.universityId) errors.universityId = "required";
    else if (!(await exists(tx, universities, input.universityId))) errors.universityId = "unknown";
  }
  if (code === "student") {
    choice.degreeCourseId = input.degreeCourseId;
    if (!input.degreeCourseId) errors.degreeCourseId = "required";
    else {
      const courseUniversity = await universityOfCourse(tx, input.degreeCourseId);
      if (!courseUniversity) errors.degreeCourseId = "unknown";
      else if (!errors.universityId && courseUniversity !== input.universityId?.toLowerCase()) errors.degreeCourseId = "mismatch";
    }
  }
  if (code === "professor") {
    choice.subjectId = input.subjectId;
    if (!input.subjectId) errors.subjectId = "required";
    else if (!(await exists(tx, subjects, input.subjectId))) errors.subjectId = "unknown";
  }
  if (code === "other" && input.interestIds) {
    choice.interestIds = input.interestIds;
    if (input.interestIds.length === 0) errors.interestIds = "required";
    else if (!(await interestsExist(tx, input.interestIds, { firstAccess }))) errors.interestIds = "unknown";
  }
  return choice;
}

async function replaceInterests(tx: Executor, userId: string, interestIds: string[]) {
  await tx.delete(userInterests).where(eq(userInterests.userId, userId));
  if (interestIds.length > 0) await tx.insert(userInterests).values(interestIds.map((interestId) => ({ userId, interestId })));
}

/**
 * Erases what other tables keep of a deleted account's address: its mails in the outbox (those
 * about the account, whatever address they went to, and any to its address), the e-mail
 * changes it asked for and those of others to its address, its rate-limit
 * counters, the address typed at failed sign-ins in the audit log (the events stay, anonymous),
 * and the identity provider's records that mention it (an interaction's login hint, say); the
 * provider's records of the account itself are `identity.revokeAccount`'s.
 */
async function eraseAddressTraces(tx: Executor, userId: string, email: string | null): Promise<void> {
  await tx
    .delete(mailOutbox)
    .where(
      email === null ? eq(mailOutbox.userId, userId) : or(eq(mailOutbox.userId, userId), sql`lower(${mailOutbox.to}) = ${email}`),
    );
  await tx.delete(rateLimits).where(inArray(rateLimits.key, personalKeys({ email, userId })));
  await tx.delete(emailChangeRequests).where(eq(emailChangeRequests.userId, userId));
  // Orders stay for the accounts (ten years, by law), without the ways to reach the customer:
  // the e-mail typed at checkout and the invoice's PEC. What the checkout kept for next time goes.
  await tx.delete(savedCheckoutDetails).where(eq(savedCheckoutDetails.userId, userId));
  await tx
    .update(orders)
    .set({ customerEmail: null, billing: sql`${orders.billing} - 'pec'` })
    .where(eq(orders.userId, userId));
  if (email === null) return;
  // Another account's pending change to this address names it too.
  await tx.delete(emailChangeRequests).where(eq(emailChangeRequests.newEmail, email));
  await tx.update(auditLog).set({ subject: null }).where(eq(auditLog.subject, email));
  await tx.delete(oidcPayloads).where(sql`strpos(lower(${oidcPayloads.payload}::text), ${email}) > 0`);
}

const sameSet = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x) => b.includes(x));

export function createProfiles(db: Database, now: Clock = systemClock) {
  /**
   * An active account's profile with its profession and chosen interests, in one statement
   * prepared once: the account page, its preferences and the API read it on every visit.
   */
  const profileOf = db
    .select({
      ...sessionUserColumns,
      professionCode: professions.code,
      professionName: professions.name,
      interestIds: sql<string[]>`(
        select coalesce(json_agg(${userInterests.interestId}), '[]'::json)
        from ${userInterests} where ${userInterests.userId} = ${users.id}
      )`,
    })
    .from(users)
    .leftJoin(professions, eq(professions.id, users.professionId))
    .where(and(eq(users.id, sql.placeholder("userId")), eq(users.status, "active")))
    .prepare("profile_of");

  return {
    /** The profile of an active account, or null. */
    async get(userId: string): Promise<Profile | null> {
      if (!isUuid(userId)) return null;
      const [row] = await profileOf.execute({ userId });
      if (!row || row.email === null) return null;
      return {
        id: row.id,
        email: row.email,
        firstname: row.firstname,
        lastname: row.lastname,
        mobile: row.mobile,
        professionId: row.professionId,
        professionCode: row.professionCode && isProfessionCode(row.professionCode) ? row.professionCode : null,
        professionName: row.professionName,
        universityId: row.universityId,
        degreeCourseId: row.degreeCourseId,
        subjectId: row.subjectId,
        interestIds: row.interestIds,
        acceptMarketing: row.acceptMarketing,
        acceptCustomize: row.acceptCustomize,
      };
    },

    /**
     * 'Completa' at first access: profession and its branch, validated and saved in one
     * transaction. The profession is written only if the profile has none yet (one UPDATE with
     * that condition), so two submissions cannot both complete it.
     */
    async completeFirstAccess(userId: string, input: FirstAccessInput): Promise<FirstAccessResult> {
      return db.transaction(async (tx) => {
        const errors: ProfileErrors = {};
        const profession = await professionById(tx, input.professionId);
        if (!profession) {
          return { ok: false, reason: "invalid", errors: { professionId: input.professionId ? "unknown" : "required" } };
        }
        const branch = await checkBranch(
          tx,
          profession.code,
          {
            universityId: orNull(input.universityId),
            degreeCourseId: orNull(input.degreeCourseId),
            subjectId: orNull(input.subjectId),
            interestIds: unique(input.interestIds ?? []),
          },
          errors,
          { firstAccess: true },
        );
        if (Object.keys(errors).length > 0) return { ok: false, reason: "invalid", errors };

        const [updated] = await tx
          .update(users)
          .set({
            professionId: profession.id,
            universityId: branch.universityId,
            degreeCourseId: branch.degreeCourseId,
            subjectId: branch.subjectId,
            updatedAt: now(),
          })
          .where(and(eq(users.id, userId), eq(users.status, "active"), isNull(users.professionId)))
          .returning({ id: users.id });
        if (!updated) return { ok: false, reason: "already_completed" };
        await replaceInterests(tx, userId, branch.interestIds ?? []);
        return { ok: true, professionCode: profession.code };
      });
    },

    /**
     * Saves the account form (spec §5 "Account save"): only the fields that differ from what is
     * stored are written. Emptied names, e-mail, profession, university, degree course or
     * subject are refused, as is a profile the profession's branch leaves incomplete; emptied
     * interests are refused when they were edited. The profession, once set, is never changed:
     * another one submitted is refused (`locked`).
     */
    async update(userId: string, submission: ProfileSubmission): Promise<ProfileUpdateResult> {
      return db.transaction(async (tx): Promise<ProfileUpdateResult> => {
        if (!isUuid(userId)) return { ok: false, reason: "not_found" };
        const [current] = await tx
          .select()
          .from(users)
          .where(and(eq(users.id, userId), eq(users.status, "active")))
          .for("update");
        if (!current) return { ok: false, reason: "not_found" };
        const currentInterests = (
          await tx.select({ id: userInterests.interestId }).from(userInterests).where(eq(userInterests.userId, userId))
        ).map((r) => r.id);

        const errors: ProfileErrors = {};
        const set: Partial<typeof users.$inferInsert> = {};
        const changed: ProfileField[] = [];

        for (const field of ["firstname", "lastname"] as const) {
          const value = submission[field]?.trim();
          if (value === undefined) continue;
          if (value === "") errors[field] = "required";
          else if (value.length > PROFILE_LIMITS.name) errors[field] = "invalid";
          else if (value !== current[field]) {
            set[field] = value;
            changed.push(field);
          }
        }

        // The e-mail is checked but never written here: a new address takes effect only when
        // the link sent to it is opened (email-changes.ts), and this answer must not tell
        // whether another account has it.
        if (submission.email !== undefined) {
          const email = normalizeEmail(submission.email);
          if (email === "") errors.email = "required";
          else if (!isEmail(email)) errors.email = "invalid";
        }

        if (submission.mobile !== undefined) {
          const mobile = normalizeMobile(submission.mobile);
          if (mobile !== "" && !isMobile(mobile)) errors.mobile = "invalid";
          else if ((mobile || null) !== current.mobile) {
            set.mobile = mobile || null;
            changed.push("mobile");
          }
        }

        // The profession: set once (first access, or here while still empty), never changed. The
        // page does not send a set one (its select is disabled); a submission that names another,
        // or empties it, is refused rather than answered as saved.
        const settingProfession = current.professionId === null;
        const profession = await professionById(tx, settingProfession ? submission.professionId : current.professionId);
        if (settingProfession && !profession) errors.professionId = submission.professionId ? "unknown" : "required";
        const submittedProfession = submission.professionId?.trim().toLowerCase();
        if (!settingProfession && submittedProfession !== undefined && submittedProfession !== current.professionId) {
          errors.professionId = submittedProfession === "" ? "required" : "locked";
        }

        if (profession) {
          const pick = (submitted: string | undefined, stored: string | null) =>
            submitted === undefined ? stored : orNull(submitted.trim().toLowerCase());
          const submittedInterests = submission.interestIds === undefined ? null : unique(submission.interestIds);
          const interestsEdited = submittedInterests !== null && !sameSet(submittedInterests, currentInterests);
          const branch = await checkBranch(
            tx,
            profession.code,
            {
              universityId: pick(submission.universityId, current.universityId),
              degreeCourseId: pick(submission.degreeCourseId, current.degreeCourseId),
              subjectId: pick(submission.subjectId, current.subjectId),
              // Unedited interests are left alone (and not re-checked).
              interestIds:
                interestsEdited || (settingProfession && profession.code === "other") ? (submittedInterests ?? []) : null,
            },
            errors,
            { firstAccess: false },
          );
          if (settingProfession) {
            set.professionId = profession.id;
            changed.push("professionId");
          }
          for (const field of ["universityId", "degreeCourseId", "subjectId"] as const) {
            if (branch[field] !== current[field] && (settingProfession || branch[field] !== null)) {
              set[field] = branch[field];
              changed.push(field);
            }
          }
          if (branch.interestIds && !sameSet(branch.interestIds, currentInterests)) changed.push("interestIds");
          if (Object.keys(errors).length > 0) return { ok: false, reason: "invalid", errors };
          if (branch.interestIds && changed.includes("interestIds")) await replaceInterests(tx, userId, branch.interestIds);
        }
        if (Object.keys(errors).length > 0) return { ok: false, reason: "invalid", errors };

        if (Object.keys(set).length > 0) {
          await tx
            .update(users)
            .set({ ...set, updatedAt: now() })
            .where(eq(users.id, userId));
        }
        return { ok: true, changed };
      });
    },

    /** The marketing consent (accept_customize is not the customer's to change here). */
    async updatePreferences(
      userId: string,
      { acceptMarketing }: { acceptMarketing: boolean },
    ): Promise<{ ok: true; changed: boolean } | { ok: false; reason: "not_found" }> {
      if (!isUuid(userId)) return { ok: false, reason: "not_found" };
      return db.transaction(async (tx) => {
        const [current] = await tx
          .select({ acceptMarketing: users.acceptMarketing })
          .from(users)
          .where(and(eq(users.id, userId), eq(users.status, "active")))
          .for("update");
        if (!current) return { ok: false, reason: "not_found" } as const;
        if (current.acceptMarketing === acceptMarketing) return { ok: true, changed: false } as const;
        await tx.update(users).set({ acceptMarketing, updatedAt: now() }).where(eq(users.id, userId));
        return { ok: true, changed: true } as const;
      });
    },

    /**
     * Deletes the account, in one transaction: the personal data are erased (the row stays,
     * anonymous, so orders and payments remain attached for the accounts), the status becomes
     * `deleted`, the portal sessions and password links end, every other trace of the address
     * goes (`eraseAddressTraces`), a job is queued to delete the customer and their saved cards
     * at the payment provider, and the audit log records the deletion. The e-mail is free again
     * at once. The identity provider's sessions and grants are the
     * caller's to revoke after this returns (`identity.revokeAccount`).
     */
    async deleteAccount(
      userId: string,
      { ip }: { ip?: string | null } = {},
    ): Promise<{ ok: true } | { ok: false; reason: "not_found" }> {
      if (!isUuid(userId)) return { ok: false, reason: "not_found" };
      return db.transaction(async (tx) => {
        const at = now();
        const [before] = await tx
          .select({ email: users.email })
          .from(users)
          .where(and(eq(users.id, userId), eq(users.status, "active")))
          .for("update");
        if (!before) return { ok: false, reason: "not_found" } as const;
        const [deleted] = await tx
          .update(users)
          .set({
            email: null,
            passwordHash: null,
            firstname: null,
            lastname: null,
            mobile: null,
            professionId: null,
            universityId: null,
            degreeCourseId: null,
            subjectId: null,
            acceptMarketing: false,
            acceptCustomize: false,
            migratedFromShop: false,
            status: "deleted",
            deletedAt: at,
            updatedAt: at,
          })
          .where(and(eq(users.id, userId), eq(users.status, "active")))
          .returning({ id: users.id });
        if (!deleted) return { ok: false, reason: "not_found" } as const;
        await tx.delete(userInterests).where(eq(userInterests.userId, userId));
        await tx.delete(sessions).where(eq(sessions.userId, userId));
        await tx.delete(passwordResetTokens).where(eq(passwordResetTokens.userId, userId));
        await eraseAddressTraces(tx, userId, before.email);
        await endSubscriptionsOfDeletedAccount(tx, userId, at);
        await enqueueCustomerErasure(tx, userId, at);
        await createAuditLog(tx, now).record("account_deleted", { userId, ip });
        return { ok: true } as const;
      });
    },
  };
}

export type Profiles = ReturnType<typeof createProfiles>;
