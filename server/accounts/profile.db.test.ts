import { randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seededReferenceIds, type ReferenceIds } from "#tests/support/reference-ids.ts";
import { createTestDatabase, type TestDatabase } from "#tests/support/database.ts";
import { createAuditLog } from "#server/audit/service.ts";
import { passwordResetTokens, sessions, userInterests, users } from "#server/db/schema/index.ts";
import { createPasswordResets } from "./password-resets.ts";
import { createProfiles } from "./profile.ts";
import { createAccountsService } from "./service.ts";
import { createSessionStore } from "./sessions.ts";

let database: TestDatabase;
let ref: ReferenceIds;
const UNKNOWN = "00000000-0000-4000-8000-000000000000";

beforeAll(async () => {
  database = await createTestDatabase();
  ref = await seededReferenceIds(database.db);
});
afterAll(() => database.destroy());

const uniqueEmail = (name = "cliente") => `${name}.${randomBytes(4).toString("hex")}@example.it`;

async function newUser(email = uniqueEmail()) {
  const result = await createAccountsService(database.db).register({
    firstname: "Maria",
    lastname: "Rossi",
    email,
    password: "Segreta1!",
  });
  if (!result.ok) throw new Error("setup: registration failed");
  return result.user;
}

async function row(userId: string) {
  const [user] = await database.db.select().from(users).where(eq(users.id, userId));
  return user!;
}

async function interestIdsOf(userId: string) {
  return (await database.db.select().from(userInterests).where(eq(userInterests.userId, userId))).map((r) => r.interestId).sort();
}

/** A user whose first access is done, as a student of Milan. */
async function student() {
  const user = await newUser();
  const done = await createProfiles(database.db).completeFirstAccess(user.id, {
    professionId: ref.student,
    universityId: ref.milano,
    degreeCourseId: ref.milanoCourse,
  });
  expect(done.ok).toBe(true);
  return user;
}

describe("first access", () => {
  it("completes a student with university and a degree course of that university", async () => {
    const user = await newUser();
    const profiles = createProfiles(database.db);
    const result = await profiles.completeFirstAccess(user.id, {
      professionId: ref.student,
      universityId: ref.milano,
      degreeCourseId: ref.milanoCourse,
      subjectId: ref.subject, // not the student's branch: ignored
      interestIds: [ref.interestA],
    });
    expect(result).toEqual({ ok: true, professionCode: "student" });
    const saved = await row(user.id);
    expect(saved).toMatchObject({
      professionId: ref.student,
      universityId: ref.milano,
      degreeCourseId: ref.milanoCourse,
      subjectId: null,
    });
    expect(await interestIdsOf(user.id)).toEqual([]);
    expect((await profiles.get(user.id))?.professionCode).toBe("student");
  });

  it("completes a professor with university and subject", async () => {
    const user = await newUser();
    const result = await createProfiles(database.db).completeFirstAccess(user.id, {
      professionId: ref.professor,
      universityId: ref.bologna,
      subjectId: ref.subject,
    });
    expect(result.ok).toBe(true);
    expect(await row(user.id)).toMatchObject({
      professionId: ref.professor,
      universityId: ref.bologna,
      subjectId: ref.subject,
      degreeCourseId: null,
    });
  });

  it("completes another professional with interests (duplicates collapse)", async () => {
    const user = await newUser();
    const result = await createProfiles(database.db).completeFirstAccess(user.id, {
      professionId: ref.other,
      universityId: ref.milano, // not this branch: ignored
      interestIds: [ref.interestA, ref.interestB, ref.interestA.toUpperCase()],
    });
    expect(result.ok).toBe(true);
    expect(await row(user.id)).toMatchObject({ professionId: ref.other, universityId: null });
    expect(await interestIdsOf(user.id)).toEqual([ref.interestA, ref.interestB].sort());
  });

  it.each([
    ["no profession", { professionId: "" }, { professionId: "required" }],
    ["an unknown profession", { professionId: UNKNOWN }, { professionId: "unknown" }],
    ["a malformed profession", { professionId: "not-a-uuid" }, { professionId: "unknown" }],
    [
      "a student without university or course",
      { professionId: "student" as const },
      { universityId: "required", degreeCourseId: "required" },
    ],
    ["a student without course", { professionId: "student" as const, universityId: "milano" }, { degreeCourseId: "required" }],
    [
      "a degree course of another university",
      { professionId: "student" as const, universityId: "milano", degreeCourseId: "bolognaCourse" },
      { degreeCourseId: "mismatch" },
    ],
    [
      "an unknown university",
      { professionId: "student" as const, universityId: UNKNOWN, degreeCourseId: "milanoCourse" },
      { universityId: "unknown" },
    ],
    ["a professor without subject", { professionId: "professor" as const, universityId: "milano" }, { subjectId: "required" }],
    [
      "a professor with an unknown subject",
      { professionId: "professor" as const, universityId: "milano", subjectId: UNKNOWN },
      { subjectId: "unknown" },
    ],
    ["a professional without interests", { professionId: "other" as const, interestIds: [] }, { interestIds: "required" }],
    [
      "a professional choosing 'Altro'",
      { professionId: "other" as const, interestIds: ["interestA", "altro"] },
      { interestIds: "unknown" },
    ],
    [
      "a professional with an unknown interest",
      { professionId: "other" as const, interestIds: [UNKNOWN] },
      { interestIds: "unknown" },
    ],
  ])("refuses %s and saves nothing", async (_label, input, errors) => {
    const id = (v: string | undefined) => (v && v in ref ? ref[v as keyof typeof ref] : v);
    const user = await newUser();
    const result = await createProfiles(database.db).completeFirstAccess(user.id, {
      professionId: id((input as { professionId: string }).professionId) ?? "",
      universityId: id((input as { universityId?: string }).universityId),
      degreeCourseId: id((input as { degreeCourseId?: string }).degreeCourseId),
      subjectId: id((input as { subjectId?: string }).subjectId),
      interestIds: (input as { interestIds?: string[] }).interestIds?.map((v) => id(v)!),
    });
    expect(result).toEqual({ ok: false, reason: "invalid", errors });
    expect(await row(user.id)).toMatchObject({ professionId: null, universityId: null, degreeCourseId: null, subjectId: null });
    expect(await interestIdsOf(user.id)).toEqual([]);
  });

  it("completes once: a second or concurrent submission changes nothing", async () => {
    const user = await newUser();
    const profiles = createProfiles(database.db);
    const attempts = await Promise.all([
      profiles.completeFirstAccess(user.id, {
        professionId: ref.student,
        universityId: ref.milano,
        degreeCourseId: ref.milanoCourse,
      }),
      profiles.completeFirstAccess(user.id, { professionId: ref.other, interestIds: [ref.interestA] }),
    ]);
    expect(attempts.filter((a) => a.ok)).toHaveLength(1);
    expect(attempts.filter((a) => !a.ok && a.reason === "already_completed")).toHaveLength(1);
    const saved = await row(user.id);
    const again = await profiles.completeFirstAccess(user.id, {
      professionId: ref.professor,
      universityId: ref.milano,
      subjectId: ref.subject,
    });
    expect(again).toEqual({ ok: false, reason: "already_completed" });
    expect(await row(user.id)).toEqual(saved);
  });
});

describe("account save", () => {
  it("writes only the fields that changed, and nothing when nothing changed", async () => {
    const user = await student();
    const profiles = createProfiles(database.db);
    const before = await row(user.id);
    const unchanged = await profiles.update(user.id, {
      firstname: " Maria ",
      lastname: "Rossi",
      email: user.email!.toUpperCase(),
      mobile: "",
      universityId: ref.milano,
      degreeCourseId: ref.milanoCourse,
    });
    expect(unchanged).toEqual({ ok: true, changed: [] });
    expect(await row(user.id)).toEqual(before);

    const result = await profiles.update(user.id, { firstname: "Marta", lastname: "Rossi", mobile: "+39 333 1234567" });
    expect(result).toEqual({ ok: true, changed: ["firstname", "mobile"] });
    const after = await row(user.id);
    expect(after).toMatchObject({ firstname: "Marta", lastname: "Rossi", mobile: "+39 333 1234567", email: user.email });
    expect(after.updatedAt.getTime()).toBeGreaterThanOrEqual(before.updatedAt.getTime());
  });

  it("refuses emptied names and e-mail, and writes none of the other changes", async () => {
    const user = await student();
    const profiles = createProfiles(database.db);
    const result = await profiles.update(user.id, { firstname: "  ", lastname: "", email: " ", mobile: "3331234567" });
    expect(result).toEqual({
      ok: false,
      reason: "invalid",
      errors: { firstname: "required", lastname: "required", email: "required" },
    });
    expect(await row(user.id)).toMatchObject({ firstname: "Maria", lastname: "Rossi", mobile: null });
  });

  it("checks a submitted e-mail but never writes it, and answers alike whether another account has it", async () => {
    const user = await student();
    const other = await newUser();
    const profiles = createProfiles(database.db);
    const taken = await profiles.update(user.id, { email: `  ${other.email!.toUpperCase()} ` });
    const free = await profiles.update(user.id, { email: uniqueEmail("nuova") });
    expect(taken).toEqual({ ok: true, changed: [] });
    expect(free).toEqual(taken);
    expect(await profiles.update(user.id, { email: "non-una-email" })).toMatchObject({ errors: { email: "invalid" } });
    expect((await row(user.id)).email).toBe(user.email);
  });

  it("never changes a profession once set: another one, or none, is refused; the same one is no change", async () => {
    const user = await student();
    const profiles = createProfiles(database.db);
    expect(await profiles.update(user.id, { professionId: ref.professor, subjectId: ref.subject })).toEqual({
      ok: false,
      reason: "invalid",
      errors: { professionId: "locked" },
    });
    expect(await profiles.update(user.id, { professionId: " " })).toEqual({
      ok: false,
      reason: "invalid",
      errors: { professionId: "required" },
    });
    expect(await profiles.update(user.id, { professionId: ref.student.toUpperCase() })).toEqual({ ok: true, changed: [] });
    expect(await row(user.id)).toMatchObject({ professionId: ref.student, subjectId: null });
  });

  it("keeps a student's university and course required and paired", async () => {
    const user = await student();
    const profiles = createProfiles(database.db);
    expect(await profiles.update(user.id, { universityId: "", degreeCourseId: "" })).toEqual({
      ok: false,
      reason: "invalid",
      errors: { universityId: "required", degreeCourseId: "required" },
    });
    expect(await profiles.update(user.id, { universityId: ref.bologna })).toEqual({
      ok: false,
      reason: "invalid",
      errors: { degreeCourseId: "mismatch" },
    });
    expect(await profiles.update(user.id, { degreeCourseId: ref.bolognaCourse })).toMatchObject({
      errors: { degreeCourseId: "mismatch" },
    });
    expect(await row(user.id)).toMatchObject({ universityId: ref.milano, degreeCourseId: ref.milanoCourse });

    expect(await profiles.update(user.id, { universityId: ref.bologna, degreeCourseId: ref.bolognaCourse })).toEqual({
      ok: true,
      changed: ["universityId", "degreeCourseId"],
    });
    expect(await profiles.update(user.id, { degreeCourseId: ref.milanoCourse2 })).toMatchObject({
      errors: { degreeCourseId: "mismatch" },
    });
  });

  it("keeps a professor's subject required", async () => {
    const user = await newUser();
    const profiles = createProfiles(database.db);
    await profiles.completeFirstAccess(user.id, {
      professionId: ref.professor,
      universityId: ref.milano,
      subjectId: ref.subject,
    });
    expect(await profiles.update(user.id, { subjectId: "" })).toEqual({
      ok: false,
      reason: "invalid",
      errors: { subjectId: "required" },
    });
    expect(await profiles.update(user.id, { subjectId: ref.subject2 })).toEqual({ ok: true, changed: ["subjectId"] });
  });

  it("requires interests only when they were edited, and replaces them", async () => {
    const user = await newUser();
    const profiles = createProfiles(database.db);
    await profiles.completeFirstAccess(user.id, { professionId: ref.other, interestIds: [ref.interestA] });
    expect(await profiles.update(user.id, { interestIds: [] })).toEqual({
      ok: false,
      reason: "invalid",
      errors: { interestIds: "required" },
    });
    expect(await interestIdsOf(user.id)).toEqual([ref.interestA]);
    expect(await profiles.update(user.id, { firstname: "Maria", interestIds: [ref.interestA] })).toEqual({
      ok: true,
      changed: [],
    });
    // 'Altro' is offered on the account page.
    expect(await profiles.update(user.id, { interestIds: [ref.interestB, ref.altro] })).toEqual({
      ok: true,
      changed: ["interestIds"],
    });
    expect(await interestIdsOf(user.id)).toEqual([ref.interestB, ref.altro].sort());
    expect(await profiles.update(user.id, { interestIds: [UNKNOWN] })).toMatchObject({ errors: { interestIds: "unknown" } });
  });

  it("refuses to save without a profession, and accepts one set with its branch", async () => {
    const user = await newUser();
    const profiles = createProfiles(database.db);
    expect(await profiles.update(user.id, { firstname: "Marta" })).toEqual({
      ok: false,
      reason: "invalid",
      errors: { professionId: "required" },
    });
    expect(await profiles.update(user.id, { professionId: ref.student, universityId: ref.milano })).toEqual({
      ok: false,
      reason: "invalid",
      errors: { degreeCourseId: "required" },
    });
    expect((await row(user.id)).professionId).toBeNull();
    expect(
      await profiles.update(user.id, {
        professionId: ref.professor,
        universityId: ref.milano,
        subjectId: ref.subject,
        degreeCourseId: ref.milanoCourse,
      }),
    ).toEqual({ ok: true, changed: ["professionId", "universityId", "subjectId"] });
    expect(await row(user.id)).toMatchObject({ professionId: ref.professor, degreeCourseId: null });
  });

  it("accepts an optional mobile number and refuses a malformed one", async () => {
    const user = await student();
    const profiles = createProfiles(database.db);
    expect(await profiles.update(user.id, { mobile: "chiamami" })).toMatchObject({ errors: { mobile: "invalid" } });
    expect(await profiles.update(user.id, { mobile: "333  1234567" })).toEqual({ ok: true, changed: ["mobile"] });
    expect((await row(user.id)).mobile).toBe("333 1234567");
    expect(await profiles.update(user.id, { mobile: "  " })).toEqual({ ok: true, changed: ["mobile"] });
    expect((await row(user.id)).mobile).toBeNull();
  });
});

describe("preferences", () => {
  it("changes the marketing consent only", async () => {
    const user = await student();
    const profiles = createProfiles(database.db);
    expect(await profiles.updatePreferences(user.id, { acceptMarketing: true })).toEqual({ ok: true, changed: true });
    expect(await profiles.updatePreferences(user.id, { acceptMarketing: true })).toEqual({ ok: true, changed: false });
    expect(await row(user.id)).toMatchObject({ acceptMarketing: true, acceptCustomize: false });
    expect(await profiles.updatePreferences(user.id, { acceptMarketing: false })).toEqual({ ok: true, changed: true });
    expect((await row(user.id)).acceptMarketing).toBe(false);
    expect(await profiles.updatePreferences(UNKNOWN, { acceptMarketing: true })).toEqual({ ok: false, reason: "not_found" });
  });
});

describe("account deletion", () => {
  it("erases the personal data, ends the sessions, records it and frees the e-mail", async () => {
    const { db } = database;
    const user = await newUser();
    const profiles = createProfiles(db);
    await profiles.completeFirstAccess(user.id, { professionId: ref.other, interestIds: [ref.interestA, ref.interestB] });
    await profiles.update(user.id, { mobile: "3331234567" });
    await profiles.updatePreferences(user.id, { acceptMarketing: true });
    const store = createSessionStore(db);
    const tokens = { accessToken: "at", accessTokenExpiresAt: new Date(Date.now() + 60_000), refreshToken: "rt", idToken: "it" };
    const sessionA = await store.create(user.id, tokens);
    await store.create(user.id, tokens);
    const bystander = await newUser();
    const bystanderSession = await store.create(bystander.id, tokens);
    await createPasswordResets(db).issue(user.id, "reset");

    expect(await profiles.deleteAccount(user.id, { ip: "203.0.113.9" })).toEqual({ ok: true });

    const deleted = await row(user.id);
    expect(deleted).toMatchObject({
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
      status: "deleted",
    });
    expect(deleted.deletedAt).toBeInstanceOf(Date);
    expect(await interestIdsOf(user.id)).toEqual([]);
    expect(await db.select().from(sessions).where(eq(sessions.userId, user.id))).toEqual([]);
    expect(await store.find(sessionA)).toBeNull();
    expect(await store.find(bystanderSession)).not.toBeNull();
    expect(await db.select().from(passwordResetTokens).where(eq(passwordResetTokens.userId, user.id))).toEqual([]);
    const [entry] = await createAuditLog(db).listForUser(user.id);
    expect(entry).toMatchObject({ event: "account_deleted", userId: user.id, ip: "203.0.113.9" });

    expect(await profiles.get(user.id)).toBeNull();
    expect(await createAccountsService(db).findActiveByEmail(user.email!)).toBeNull();
    expect(await profiles.deleteAccount(user.id)).toEqual({ ok: false, reason: "not_found" });

    // The address is free: a new account, a new row; the old row stays, anonymous.
    const again = await createAccountsService(db).register({
      firstname: "Maria",
      lastname: "Rossi",
      email: user.email!,
      password: "Segreta1!",
    });
    expect(again.ok && again.user.id !== user.id).toBe(true);
    expect((await row(user.id)).status).toBe("deleted");
  });
});
