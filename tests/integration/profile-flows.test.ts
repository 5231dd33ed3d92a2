// First access, 'Il mio account', preferences and account deletion, through the routes' loaders
// and actions as React Router calls them: plain GET and form POST requests with a session cookie.
import { randomBytes } from "node:crypto";
import { checkoutDetails, SHIPMENT } from "#tests/support/checkout.ts";
import { eq, sql, type SQL } from "drizzle-orm";
import { createCookie } from "react-router";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { action as firstAccessActionBare, loader as firstAccessLoaderBare } from "#app/routes/first-access.tsx";
import { action as profileActionBare, loader as profileLoaderBare } from "#app/routes/profile.tsx";
import { action as preferencesActionBare, loader as preferencesLoaderBare } from "#app/routes/profile.preferences.tsx";
import { action as deleteActionBare, loader as deleteLoaderBare } from "#app/routes/profile.delete-user.tsx";
import { loader as deletedLoader } from "#app/routes/account-deleted.tsx";
import { action as forgotPasswordAction } from "#app/routes/forgot-password.tsx";
import { loader as dashboardLoaderBare } from "#app/routes/dashboard.tsx";
import type { FormReply } from "#app/lib/form-reply.ts";
import { MESSAGES } from "#shared/messages.ts";
import { requestContext } from "#shared/context.ts";
import { action as confirmEmailAction, loader as confirmEmailLoader } from "#app/routes/profile.confirm-email.tsx";
import type { Profiles } from "#server/accounts/profile.ts";
import { createSessionStore } from "#server/accounts/sessions.ts";
import {
  auditLog,
  emailChangeRequests,
  mailOutbox,
  oidcPayloads,
  orders,
  rateLimits,
  sessions,
  userInterests,
  users,
} from "#server/db/schema/index.ts";
import { emailKey } from "#server/security/rate-limits.ts";
import type { Services } from "#server/services.ts";
import { thrownResponse, toastOf } from "#tests/support/requests.ts";
import { createTestDatabase, type TestDatabase } from "#tests/support/database.ts";
import { loaderArgs } from "#tests/support/router-context.ts";
import { seededReferenceIds, type ReferenceIds } from "#tests/support/reference-ids.ts";
import { createTestServices } from "#tests/support/services.ts";
import { behindSignIn } from "#tests/support/customer-pages.ts";

// The customer's pages run behind the customer layout's sign-in.
const firstAccessAction = behindSignIn(firstAccessActionBare);
const firstAccessLoader = behindSignIn(firstAccessLoaderBare);
const profileAction = behindSignIn(profileActionBare);
const profileLoader = behindSignIn(profileLoaderBare);
const preferencesAction = behindSignIn(preferencesActionBare);
const preferencesLoader = behindSignIn(preferencesLoaderBare);
const deleteAction = behindSignIn(deleteActionBare);
const deleteLoader = behindSignIn(deleteLoaderBare);
const dashboardLoader = behindSignIn(dashboardLoaderBare);

let database: TestDatabase;
let services: Services;
let profiles: Profiles;
let ref: ReferenceIds;

beforeAll(async () => {
  database = await createTestDatabase();
  services = await createTestServices(database);
  profiles = services.profiles;
  ref = await seededReferenceIds(database.db);
});
afterAll(async () => {
  await services.close();
  await database.destroy();
});

// ---------------------------------------------------------------- helpers

const sessionCookie = createCookie("portal_session");

async function newCustomer(email = `cliente.${randomBytes(4).toString("hex")}@example.it`) {
  const result = await services.accounts.register({ firstname: "Maria", lastname: "Rossi", email, password: "Segreta1!" });
  if (!result.ok) throw new Error("setup: registration failed");
  const rawId = await createSessionStore(database.db).create(result.user.id, {
    accessToken: "at",
    accessTokenExpiresAt: new Date(Date.now() + 10 * 60_000),
    refreshToken: "rt",
    idToken: "it",
  });
  const cookie = (await sessionCookie.serialize(rawId)).split(";")[0]!;
  return { user: result.user, cookie };
}

function get(url: string, cookie?: string) {
  const args = loaderArgs(services, url);
  return { ...args, request: new Request(args.request.url, { headers: cookie ? { cookie } : {} }) };
}

function post(url: string, cookie: string | undefined, fields: Record<string, string | string[]>, ip?: string) {
  const args = loaderArgs(services, url);
  if (ip) args.context.set(requestContext, { ...args.context.get(requestContext), ip });
  const body = new URLSearchParams();
  for (const [name, value] of Object.entries(fields)) for (const v of [value].flat()) body.append(name, v);
  const headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded" };
  if (cookie) headers.cookie = cookie;
  return { ...args, request: new Request(args.request.url, { method: "POST", headers, body }) };
}

/** The Response a loader or action threw (a redirect), or fails. */

/** What `data(...)` carried: the payload and the status. */
function payload<T>(result: unknown): { data: T; status: number } {
  const value = result as { type?: string; data: T; init?: ResponseInit | null };
  if (value instanceof Response || value?.type !== "DataWithResponseInit")
    throw new Error(`expected data(), got ${String(result)}`);
  return { data: value.data, status: value.init?.status ?? 200 };
}

async function userRow(id: string) {
  const [row] = await database.db.select().from(users).where(eq(users.id, id));
  return row!;
}

const login = (path: string) => `/login/?${new URLSearchParams({ redirect: path })}`;

// ---------------------------------------------------------------- guards

describe("who may open the profile pages", () => {
  it.each([
    ["/profilo/primoaccesso/", firstAccessLoader],
    ["/profile/", profileLoader],
    ["/profile/preferences/", preferencesLoader],
    ["/profile/delete-user/", deleteLoader],
  ] as const)("%s sends a signed-out visitor to the sign-in, and back", async (path, loader) => {
    const response = await thrownResponse((loader as (args: unknown) => Promise<unknown>)(get(`${path}?x=1`)));
    expect(response.status).toBe(302);
    expect(response.headers.get("Location")).toBe(login(`${path}?x=1`));
  });

  it.each([
    ["/profilo/primoaccesso/", firstAccessAction],
    ["/profile/", profileAction],
    ["/profile/preferences/", preferencesAction],
    ["/profile/delete-user/", deleteAction],
  ] as const)("a signed-out POST to %s changes nothing and goes to the sign-in", async (path, action) => {
    const response = await thrownResponse(
      (action as (args: unknown) => Promise<unknown>)(post(path, undefined, { firstname: "X" })),
    );
    expect(response.headers.get("Location")).toBe(login(path));
  });

  it("the dashboard sends a profile without profession to first access, and first access sends a complete one home", async () => {
    const { user, cookie } = await newCustomer();
    expect((await thrownResponse(dashboardLoader(get("/dashboard/", cookie)))).headers.get("Location")).toBe(
      "/profilo/primoaccesso/",
    );
    await profiles.completeFirstAccess(user.id, { professionId: ref.other, interestIds: [ref.interestA] });
    expect((await thrownResponse(firstAccessLoader(get("/profilo/primoaccesso/", cookie)))).headers.get("Location")).toBe("/");
    const again = await thrownResponse(firstAccessAction(post("/profilo/primoaccesso/", cookie, { profession: ref.student })));
    expect(again.headers.get("Location")).toBe("/");
    expect((await userRow(user.id)).professionId).toBe(ref.other);
  });
});

// ---------------------------------------------------------------- first access

describe("first access", () => {
  it("renders each step from the address", async () => {
    const { cookie } = await newCustomer();
    const path = "/profilo/primoaccesso/";
    const start = await firstAccessLoader(get(path, cookie));
    expect(start.step).toBe("profession");
    expect(start.professions.map((p) => p.code)).toEqual(["student", "professor", "other"]);
    expect(start.errors).toEqual({});

    const nothingChosen = await firstAccessLoader(get(`${path}?from=profession`, cookie));
    expect(nothingChosen).toMatchObject({ step: "profession", errors: { profession: MESSAGES.professionRequired } });
    const bogus = await firstAccessLoader(get(`${path}?from=profession&profession=bogus`, cookie));
    expect(bogus.errors.profession).toBe(MESSAGES.invalidChoice);

    const student = await firstAccessLoader(get(`${path}?from=profession&profession=${ref.student}`, cookie));
    expect(student.step).toBe("university");
    expect(student.universities.length).toBeGreaterThan(10);
    const noUniversity = await firstAccessLoader(get(`${path}?profession=${ref.student}&from=university`, cookie));
    expect(noUniversity).toMatchObject({ step: "university", errors: { university: MESSAGES.universityRequired } });

    const course = await firstAccessLoader(
      get(`${path}?profession=${ref.student}&university=${ref.milano}&from=university`, cookie),
    );
    expect(course.step).toBe("details");
    expect(course.university?.id).toBe(ref.milano);
    expect(course.degreeCourses.map((c) => c.id)).toContain(ref.milanoCourse);
    expect(course.degreeCourses.map((c) => c.id)).not.toContain(ref.bolognaCourse);

    const back = await firstAccessLoader(
      get(`${path}?profession=${ref.student}&university=${ref.milano}&step=university`, cookie),
    );
    expect(back).toMatchObject({ step: "university", university: { id: ref.milano } });

    const professor = await firstAccessLoader(get(`${path}?profession=${ref.professor}&university=${ref.bologna}`, cookie));
    expect(professor.step).toBe("details");
    expect(professor.subjects.length).toBeGreaterThan(0);
    expect(professor.degreeCourses).toEqual([]);

    const other = await firstAccessLoader(get(`${path}?profession=${ref.other}`, cookie));
    expect(other.step).toBe("details");
    expect(other.interests.map((i) => i.id)).toContain(ref.interestA);
    expect(other.interests.map((i) => i.id)).not.toContain(ref.altro);
  });

  it("completes a student: saved, 'Profilo aggiornato', on to / (which leads to the dashboard), which now opens", async () => {
    const { user, cookie } = await newCustomer();
    const response = await firstAccessAction(
      post(`/profilo/primoaccesso/?profession=${ref.student}&university=${ref.milano}`, cookie, {
        profession: ref.student,
        university: ref.milano,
        degreeCourse: ref.milanoCourse,
      }),
    );
    expect(response).toBeInstanceOf(Response);
    expect((response as Response).headers.get("Location")).toBe("/");
    expect(await toastOf(services.flash, response as Response)).toEqual({ type: "success", title: "Profilo aggiornato" });
    expect(await userRow(user.id)).toMatchObject({
      professionId: ref.student,
      universityId: ref.milano,
      degreeCourseId: ref.milanoCourse,
    });
    expect(await dashboardLoader(get("/dashboard/", cookie))).toMatchObject({ firstname: "Maria", items: [] });
  });

  it("completes a professor with university and subject", async () => {
    const { user, cookie } = await newCustomer();
    const response = (await firstAccessAction(
      post("/profilo/primoaccesso/", cookie, { profession: ref.professor, university: ref.bologna, subject: ref.subject }),
    )) as Response;
    expect(response.headers.get("Location")).toBe("/");
    expect(await userRow(user.id)).toMatchObject({
      professionId: ref.professor,
      universityId: ref.bologna,
      subjectId: ref.subject,
    });
  });

  it("completes another professional with interests", async () => {
    const { user, cookie } = await newCustomer();
    const response = (await firstAccessAction(
      post("/profilo/primoaccesso/", cookie, { profession: ref.other, interests: [ref.interestA, ref.interestB] }),
    )) as Response;
    expect(response.headers.get("Location")).toBe("/");
    const chosen = await database.db.select().from(userInterests).where(eq(userInterests.userId, user.id));
    expect(chosen.map((c) => c.interestId).sort()).toEqual([ref.interestA, ref.interestB].sort());
  });

  it.each([
    ["no profession", {}, { profession: MESSAGES.professionRequired }, MESSAGES.professionRequired],
    [
      "a student without course",
      { profession: "student", university: "milano" },
      { degreeCourse: MESSAGES.degreeCourseRequired },
      undefined,
    ],
    [
      "a degree course of another university",
      { profession: "student", university: "milano", degreeCourse: "bolognaCourse" },
      { degreeCourse: MESSAGES.degreeCourseMismatch },
      undefined,
    ],
    [
      "a professor without university and subject",
      { profession: "professor" },
      { university: MESSAGES.universityRequired, subject: MESSAGES.subjectRequired },
      MESSAGES.universityRequired,
    ],
    ["a professional without interests", { profession: "other" }, { interests: MESSAGES.interestsRequired }, undefined],
    ["the interest 'Altro'", { profession: "other", interests: "altro" }, { interests: MESSAGES.invalidChoice }, undefined],
  ] as const)("refuses %s with a clear message and saves nothing", async (_label, fields, errors, earlierStep) => {
    const { user, cookie } = await newCustomer();
    const form = Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, ref[v as keyof typeof ref]]));
    const { data, status } = payload<FormReply<string>>(await firstAccessAction(post("/profilo/primoaccesso/", cookie, form)));
    expect(status).toBe(400);
    expect(data.fieldErrors).toEqual(errors);
    // The steps before this one show their choice as text: their message is the alert's.
    expect(data.alert).toEqual(earlierStep ? { title: MESSAGES.errorTitle, text: earlierStep } : undefined);
    expect(data.values).toEqual({ ...form, interests: form.interests ? [form.interests] : [] });
    expect(await userRow(user.id)).toMatchObject({
      professionId: null,
      universityId: null,
      degreeCourseId: null,
      subjectId: null,
    });
  });
});

// ---------------------------------------------------------------- account page

describe("'Il mio account'", () => {
  async function studentCustomer() {
    const customer = await newCustomer();
    await profiles.completeFirstAccess(customer.user.id, {
      professionId: ref.student,
      universityId: ref.milano,
      degreeCourseId: ref.milanoCourse,
    });
    return customer;
  }

  it("shows the stored profile and the lists of the form", async () => {
    const { user, cookie } = await studentCustomer();
    const data = await profileLoader(get("/profile/", cookie));
    expect(data.profile).toMatchObject({
      email: user.email,
      firstname: "Maria",
      lastname: "Rossi",
      professionCode: "student",
      universityId: ref.milano,
      degreeCourseId: ref.milanoCourse,
    });
    expect(data.degreeCourses.find((c) => c.id === ref.bolognaCourse)?.universityId).toBe(ref.bologna);
    expect(data.interests.map((i) => i.id)).toContain(ref.altro);
  });

  it("saves the changed fields with 'Profilo aggiornato'; the username is never taken from the form, a set profession never changed", async () => {
    const { user, cookie } = await studentCustomer();
    // Another profession (the page sends none once set: its select is disabled) is refused, not answered saved.
    const { data, status } = payload<FormReply<string>>(
      await profileAction(post("/profile/", cookie, { firstname: "Marta", profession: ref.professor })),
    );
    expect(status).toBe(400);
    expect(data.fieldErrors).toEqual({ profession: MESSAGES.professionLocked });
    expect(data.alert).toEqual({ title: "Errore", text: MESSAGES.professionLocked });
    expect((await userRow(user.id)).firstname).toBe("Maria");

    const response = (await profileAction(
      post("/profile/", cookie, {
        username: "altro@example.it",
        firstname: "Marta",
        lastname: "Rossi",
        email: user.email!,
        mobile: "+39 333 1234567",
        profession: ref.student,
        university: ref.milano,
        degreeCourse: ref.milanoCourse,
      }),
    )) as Response;
    expect(response.headers.get("Location")).toBe("/profile/");
    expect(await toastOf(services.flash, response)).toEqual({ type: "success", title: "Profilo aggiornato" });
    expect(await userRow(user.id)).toMatchObject({
      firstname: "Marta",
      mobile: "+39 333 1234567",
      email: user.email,
      professionId: ref.student,
    });

    const unchanged = (await profileAction(post("/profile/", cookie, { firstname: "Marta", lastname: "Rossi" }))) as Response;
    expect(await toastOf(services.flash, unchanged)).toEqual({ type: "info", title: MESSAGES.profileNoChanges });
  });

  it("refuses emptied fields with 'Errore' and the messages, and saves nothing", async () => {
    const { user, cookie } = await studentCustomer();
    const { data, status } = payload<FormReply<string>>(
      await profileAction(
        post("/profile/", cookie, {
          firstname: " ",
          lastname: "",
          email: "",
          mobile: "3331234567",
          university: "",
          degreeCourse: "",
        }),
      ),
    );
    expect(status).toBe(400);
    expect(data.fieldErrors).toEqual({
      firstname: "Nome obbligatorio",
      lastname: "Cognome obbligatorio",
      email: "Email obbligatoria",
      university: MESSAGES.universityRequired,
      degreeCourse: MESSAGES.degreeCourseRequired,
    });
    expect(data.alert).toEqual({ title: "Errore", text: MESSAGES.profileIncomplete });
    expect(data.values?.mobile).toBe("3331234567");
    expect(await userRow(user.id)).toMatchObject({ firstname: "Maria", lastname: "Rossi", email: user.email, mobile: null });
  });

  it("refuses a degree course of another university", async () => {
    const { user, cookie } = await studentCustomer();
    const { data } = payload<FormReply<string>>(
      await profileAction(post("/profile/", cookie, { university: ref.bologna, degreeCourse: ref.milanoCourse })),
    );
    expect(data.fieldErrors).toEqual({ degreeCourse: MESSAGES.degreeCourseMismatch });
    expect((await userRow(user.id)).universityId).toBe(ref.milano);
    await profileAction(post("/profile/", cookie, { university: ref.bologna, degreeCourse: ref.bolognaCourse }));
    expect(await userRow(user.id)).toMatchObject({ universityId: ref.bologna, degreeCourseId: ref.bolognaCourse });
  });

  it("refuses to save a profile without profession", async () => {
    const { user, cookie } = await newCustomer();
    const { data } = payload<FormReply<string>>(
      await profileAction(post("/profile/", cookie, { firstname: "Marta", profession: "" })),
    );
    expect(data.fieldErrors).toEqual({ profession: MESSAGES.professionRequired });
    expect(data.alert?.text).toBe(MESSAGES.profileIncomplete);
    expect((await userRow(user.id)).firstname).toBe("Maria");
  });

  it("requires interests only when they were edited", async () => {
    const { user, cookie } = await newCustomer();
    await profiles.completeFirstAccess(user.id, { professionId: ref.other, interestIds: [ref.interestA] });
    const emptied = payload<FormReply<string>>(await profileAction(post("/profile/", cookie, { interestsShown: "1" })));
    expect(emptied.data.fieldErrors).toEqual({ interests: MESSAGES.interestsRequired });
    // Without the marker the page did not show the interests: they are not the form's.
    const notShown = (await profileAction(post("/profile/", cookie, { interests: ref.interestB }))) as Response;
    expect(await toastOf(services.flash, notShown)).toEqual({ type: "info", title: MESSAGES.profileNoChanges });
    const changed = (await profileAction(
      post("/profile/", cookie, { interestsShown: "1", interests: [ref.interestB, ref.altro] }),
    )) as Response;
    expect(await toastOf(services.flash, changed)).toEqual({ type: "success", title: "Profilo aggiornato" });
    const chosen = await database.db.select().from(userInterests).where(eq(userInterests.userId, user.id));
    expect(chosen.map((c) => c.interestId).sort()).toEqual([ref.interestB, ref.altro].sort());
  });
});

// ---------------------------------------------------------------- preferences

describe("'Preferenze'", () => {
  it("shows and saves the marketing consent with 'Preferenze aggiornate'; accept_customize is not the form's", async () => {
    const { user, cookie } = await newCustomer();
    expect(await preferencesLoader(get("/profile/preferences/", cookie))).toMatchObject({
      acceptMarketing: false,
      acceptCustomize: false,
    });

    const on = (await preferencesAction(
      post("/profile/preferences/", cookie, { acceptMarketing: "on", acceptCustomize: "on" }),
    )) as Response;
    expect(on.headers.get("Location")).toBe("/profile/preferences/");
    expect(await toastOf(services.flash, on)).toEqual({ type: "success", title: "Preferenze aggiornate" });
    expect(await userRow(user.id)).toMatchObject({ acceptMarketing: true, acceptCustomize: false });
    expect(await preferencesLoader(get("/profile/preferences/", cookie))).toMatchObject({ acceptMarketing: true });

    await preferencesAction(post("/profile/preferences/", cookie, {}));
    expect((await userRow(user.id)).acceptMarketing).toBe(false);

    const tampered = payload<FormReply>(
      await preferencesAction(post("/profile/preferences/", cookie, { acceptMarketing: "yes" })),
    );
    expect(tampered.status).toBe(400);
    expect(tampered.data).toEqual({ alert: { title: "Errore", text: MESSAGES.profileInvalid } });
  });
});

// ---------------------------------------------------------------- e-mail change

describe("e-mail change on the account page", () => {
  async function studentCustomer() {
    const customer = await newCustomer();
    await profiles.completeFirstAccess(customer.user.id, {
      professionId: ref.student,
      universityId: ref.milano,
      degreeCourseId: ref.milanoCourse,
    });
    return customer;
  }

  const freshAddress = () => `nuova.${randomBytes(4).toString("hex")}@example.it`;

  async function mailsTo(address: string) {
    return database.db.select().from(mailOutbox).where(eq(mailOutbox.to, address)).orderBy(mailOutbox.seq);
  }

  /** The confirmation link's token in the newest mail to `address`, or null. */
  async function confirmationToken(address: string): Promise<string | null> {
    const mail = (await mailsTo(address)).at(-1);
    return /\/profile\/confirm-email\/([A-Za-z0-9_-]{43})/.exec(mail?.text ?? "")?.[1] ?? null;
  }

  const confirmArgs = (token: string) => ({ ...post(`/profile/confirm-email/${token}`, undefined, {}), params: { token } });
  /** What the page shows after 'Conferma': the address changed, or why not. */
  const confirm = async (token: string) => {
    const result = await confirmEmailAction(confirmArgs(token));
    if ("confirmed" in result) return { outcome: "changed", status: 200 };
    const { data, status } = payload<FormReply<never, string>>(result);
    return { outcome: data.reason, status };
  };

  it("asks for the current password, and saves nothing and sends nothing without it or with a wrong one", async () => {
    const { user, cookie } = await studentCustomer();
    const wanted = freshAddress();
    const missing = payload<FormReply<string>>(
      await profileAction(post("/profile/", cookie, { firstname: "Marta", email: wanted }, "198.51.100.31")),
    );
    expect(missing.status).toBe(400);
    expect(missing.data.fieldErrors).toEqual({ currentPassword: MESSAGES.currentPasswordForEmail });
    expect(missing.data.values).toMatchObject({ firstname: "Marta", email: wanted });

    const wrong = payload<FormReply<string>>(
      await profileAction(
        post("/profile/", cookie, { firstname: "Marta", email: wanted, currentPassword: "Sbagliata1!" }, "198.51.100.31"),
      ),
    );
    expect(wrong.status).toBe(400);
    expect(wrong.data.fieldErrors).toEqual({ currentPassword: MESSAGES.currentPasswordWrong });
    expect(wrong.data.values).not.toHaveProperty("currentPassword");

    expect(await userRow(user.id)).toMatchObject({ firstname: "Maria", email: user.email });
    expect(await mailsTo(wanted)).toEqual([]);
    expect(await mailsTo(user.email!)).toEqual([]);
  });

  it("answers the same whether or not the new address is taken: only the mail to it differs, and the old address is told", async () => {
    const first = await studentCustomer();
    const second = await studentCustomer();
    const other = await newCustomer();
    const free = freshAddress();
    const change = (customer: { cookie: string }, email: string) =>
      profileAction(
        post("/profile/", customer.cookie, { lastname: "Bianchi", email, currentPassword: "Segreta1!" }, "198.51.100.32"),
      ) as Promise<Response>;

    const toFree = await change(first, free);
    const toTaken = await change(second, `  ${other.user.email!.toUpperCase()} `);
    for (const response of [toFree, toTaken]) {
      expect(response.status).toBe(302);
      expect(response.headers.get("Location")).toBe("/profile/");
      expect(await toastOf(services.flash, response)).toEqual({
        type: "success",
        title: MESSAGES.profileUpdated,
        message: MESSAGES.emailChangeSent,
      });
    }
    // The rest of the form is saved; the address is not, yet.
    expect(await userRow(first.user.id)).toMatchObject({ lastname: "Bianchi", email: first.user.email });
    expect(await userRow(second.user.id)).toMatchObject({ lastname: "Bianchi", email: second.user.email });

    expect(await confirmationToken(free)).not.toBeNull();
    const [takenMail, ...more] = await mailsTo(other.user.email!);
    expect(more).toEqual([]);
    expect(takenMail!.subject).toBe("Richiesta di cambio indirizzo email");
    expect(takenMail!.text).not.toMatch(/confirm-email/);
    for (const customer of [first, second]) {
      expect((await mailsTo(customer.user.email!)).map((m) => m.subject)).toEqual([
        "Richiesta di cambio del tuo indirizzo email",
      ]);
    }
    const audit = await services.audit.listForUser(first.user.id);
    expect(audit.map((entry) => entry.event)).toContain("email_change_requested");
  });

  it("changes the address only when the link is opened, once however many confirmations race", async () => {
    const { user, cookie } = await studentCustomer();
    const wanted = freshAddress();
    await profileAction(
      post("/profile/", cookie, { email: wanted.toUpperCase(), currentPassword: "Segreta1!" }, "198.51.100.33"),
    );
    const token = (await confirmationToken(wanted))!;
    expect(await confirmEmailLoader(confirmArgs(token))).toEqual({ usable: true });
    expect((await userRow(user.id)).email).toBe(user.email);

    const outcomes = await Promise.all(Array.from({ length: 8 }, () => confirm(token)));
    expect(outcomes.filter((o) => o.outcome === "changed")).toHaveLength(1);
    expect(outcomes.filter((o) => o.outcome === "invalid" && o.status === 410)).toHaveLength(7);
    expect((await userRow(user.id)).email).toBe(wanted);
    expect(await confirmEmailLoader(confirmArgs(token))).toEqual({ usable: false });
    expect(await services.accounts.findActiveByEmail(user.email!)).toBeNull();
    expect((await services.accounts.findActiveByEmail(wanted))?.id).toBe(user.id);
    expect((await services.audit.listForUser(user.id)).map((entry) => entry.event)).toContain("email_changed");
    // The link is stored only as a digest.
    const stored = await database.db.select().from(emailChangeRequests).where(eq(emailChangeRequests.userId, user.id));
    expect(JSON.stringify(stored)).not.toContain(token);
  });

  it("refuses at confirmation an address another account took meanwhile, and a link past its 24 hours", async () => {
    const { user, cookie } = await studentCustomer();
    const wanted = freshAddress();
    await profileAction(post("/profile/", cookie, { email: wanted, currentPassword: "Segreta1!" }, "198.51.100.34"));
    const token = (await confirmationToken(wanted))!;
    await services.accounts.register({ firstname: "Altra", lastname: "Persona", email: wanted, password: "Segreta1!" });
    expect(await confirm(token)).toEqual({ outcome: "taken", status: 409 });
    expect((await userRow(user.id)).email).toBe(user.email);

    const later = freshAddress();
    await profileAction(post("/profile/", cookie, { email: later, currentPassword: "Segreta1!" }, "198.51.100.34"));
    const expiring = (await confirmationToken(later))!;
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      vi.setSystemTime(new Date(Date.now() + 24 * 60 * 60_000 + 1000));
      expect(await confirm(expiring)).toEqual({ outcome: "invalid", status: 410 });
    } finally {
      vi.useRealTimers();
    }
    expect((await userRow(user.id)).email).toBe(user.email);
  });

  it("allows 3 change requests an hour per account, then refuses without mail", async () => {
    const { user, cookie } = await studentCustomer();
    const addresses = [freshAddress(), freshAddress(), freshAddress(), freshAddress()];
    const statuses = [];
    for (const email of addresses) {
      const result = await profileAction(post("/profile/", cookie, { email, currentPassword: "Segreta1!" }, "198.51.100.35"));
      statuses.push(result instanceof Response ? result.status : payload(result).status);
    }
    expect(statuses).toEqual([302, 302, 302, 429]);
    expect(await mailsTo(addresses[3]!)).toEqual([]);
    expect(await mailsTo(user.email!)).toHaveLength(3);
  });

  it("counts a wrong current password as a failed sign-in: after 5 even the right one is refused", async () => {
    const { user, cookie } = await studentCustomer();
    const wanted = freshAddress();
    for (let i = 0; i < 5; i++) {
      await profileAction(post("/profile/", cookie, { email: wanted, currentPassword: "Sbagliata1!" }, "198.51.100.36"));
    }
    const locked = payload<FormReply<string>>(
      await profileAction(post("/profile/", cookie, { email: wanted, currentPassword: "Segreta1!" }, "198.51.100.36")),
    );
    expect(locked.status).toBe(429);
    expect(locked.data.fieldErrors?.currentPassword).toBe(MESSAGES.currentPasswordLocked);
    expect(await mailsTo(wanted)).toEqual([]);
    expect((await userRow(user.id)).email).toBe(user.email);
  });
});

// ---------------------------------------------------------------- deletion

describe("account deletion", () => {
  /** The rows of a raw query, on PGlite and on PostgreSQL alike (both answer with `rows`). */
  async function rows<T>(query: SQL): Promise<T[]> {
    return ((await database.db.execute(query)) as unknown as { rows: T[] }).rows;
  }

  /** Every place of the database where `needle` occurs: each text or JSON column of each table, case-insensitive. */
  async function occurrences(needle: string): Promise<string[]> {
    const columns = await rows<{ table_schema: string; table_name: string; column_name: string }>(sql`
      select c.table_schema, c.table_name, c.column_name
      from information_schema.columns c
      join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
      where t.table_type = 'BASE TABLE'
        and c.table_schema not in ('pg_catalog', 'information_schema')
        and c.data_type in ('text', 'character varying', 'character', 'json', 'jsonb', 'ARRAY', 'USER-DEFINED')`);
    expect(columns.map((c) => `${c.table_name}.${c.column_name}`)).toEqual(
      expect.arrayContaining(["users.email", "mail_outbox.to", "rate_limits.key", "audit_log.subject", "oidc_payloads.payload"]),
    );
    const found: string[] = [];
    for (const { table_schema, table_name, column_name } of columns) {
      const column = sql.identifier(column_name);
      const hits = await rows<{ n: number }>(
        sql`select count(*)::int as n from ${sql.identifier(table_schema)}.${sql.identifier(table_name)}
            where strpos(lower(${column}::text), ${needle.toLowerCase()}) > 0`,
      );
      if (Number(hits[0]!.n) > 0) found.push(`${table_schema}.${table_name}.${column_name}`);
    }
    return found;
  }

  it("leaves the deleted account's address in no column of any table", async () => {
    const email = `cancellata.${randomBytes(4).toString("hex")}@example.it`;
    const { user, cookie } = await newCustomer(email);
    // Traces of the address: failed sign-ins (audit, rate limits), a reset request (outbox,
    // rate limits, token), a mail about the account sent to another address of it, and the
    // identity provider's interaction started with the address as login hint.
    await services.signIn.attempt({ email: email.toUpperCase(), password: "Sbagliata1!", ip: "203.0.113.9" });
    await services.signIn.attempt({ email, password: "Sbagliata1!", ip: "203.0.113.9" });
    await forgotPasswordAction(post("/forgot-password/", undefined, { email }));
    const nextAddress = `prossima.${randomBytes(4).toString("hex")}@example.it`;
    await profileAction(post("/profile/", cookie, { email: nextAddress, currentPassword: "Segreta1!" }, "198.51.100.40"));
    await services.mail.send({
      to: "vecchia@example.it",
      userId: user.id,
      subject: "Cambio email",
      text: `Nuova: ${email}`,
      html: email,
    });
    await database.db
      .insert(oidcPayloads)
      .values({ id: `interaction-${user.id}`, type: "Interaction", payload: { params: { login_hint: email.toUpperCase() } } });
    // A purchase with the address at checkout and as the invoice's PEC, kept for next time.
    const opened = await services.checkout.open(user.id, "abbonamentoedu");
    if (!opened.ok) throw new Error(opened.reason);
    const started = await services.payments.start(
      user.id,
      opened.orderId,
      checkoutDetails({
        customer: { firstname: "Maria", lastname: "Rossi", email },
        billing: { isCompany: false, ssn: "RSSMRA85T10A562S", pec: email, addressAsShipment: false, address: SHIPMENT },
        billingSave: true,
      }),
    );
    if (!started.ok) throw new Error(started.reason);
    await services.sandbox!.confirmCard(started.setupId, "4242 4242 4242 4242");
    expect(await services.payments.settleSetup(started.setupId)).toEqual({ state: "paid" });
    expect(await occurrences(email)).toEqual(
      expect.arrayContaining([
        "public.users.email",
        "public.mail_outbox.to",
        "public.audit_log.subject",
        "public.oidc_payloads.payload",
        "public.orders.customer_email",
        "public.orders.billing",
        "public.saved_checkout_details.billing",
      ]),
    );

    const response = (await deleteAction(post("/profile/delete-user/", cookie, {}))) as Response;
    expect(response.headers.get("Location")).toBe("/profile/delete-user/confermata/#account-cancellato");

    expect(await occurrences(email)).toEqual([]);
    // The order stays for the accounts, with its tax code and its payment.
    const [order] = await database.db.select().from(orders).where(eq(orders.id, opened.orderId));
    expect(order).toMatchObject({ status: "payed", customerEmail: null, billing: { ssn: "RSSMRA85T10A562S" } });
    // Nor a key derived from it: the rate-limit counters of the address are gone too.
    const keys = (await database.db.select({ key: rateLimits.key }).from(rateLimits)).map((r) => r.key);
    expect(keys.filter((key) => key.endsWith(emailKey(email)) || key.includes(user.id))).toEqual([]);
    // The pending change of address, and the mails about the account sent to the other address, are gone.
    expect(await database.db.select().from(emailChangeRequests).where(eq(emailChangeRequests.userId, user.id))).toEqual([]);
    expect(await occurrences(nextAddress)).toEqual([]);
    // The failed sign-ins stay in the audit log, without the address.
    const failures = await database.db.select().from(auditLog).where(eq(auditLog.ip, "203.0.113.9"));
    expect(failures.map((f) => [f.event, f.subject])).toEqual([
      ["sign_in_failure", null],
      ["sign_in_failure", null],
    ]);
  });

  it("erases the account, signs out everywhere and confirms to the signed-out visitor", async () => {
    const { user, cookie } = await newCustomer();
    await profiles.completeFirstAccess(user.id, { professionId: ref.other, interestIds: [ref.interestA] });
    const { cookie: otherDevice } = await (async () => {
      const rawId = await createSessionStore(database.db).create(user.id, {
        accessToken: "at2",
        accessTokenExpiresAt: new Date(Date.now() + 60_000),
        refreshToken: null,
        idToken: "it2",
      });
      return { cookie: (await sessionCookie.serialize(rawId)).split(";")[0]! };
    })();
    // A grant of the identity provider for this account, and one of somebody else.
    await database.db.insert(oidcPayloads).values([
      { id: `grant-${user.id}`, type: "Grant", payload: { accountId: user.id } },
      { id: "grant-someone-else", type: "Grant", payload: { accountId: "00000000-0000-4000-8000-000000000000" } },
    ]);

    expect(await deleteLoader(get("/profile/delete-user/", cookie))).toBeNull();
    // Signed in, the confirmation goes back to the page: nothing has been deleted.
    const notYet = await thrownResponse(deletedLoader(get("/profile/delete-user/confermata/", cookie)));
    expect(notYet.headers.get("Location")).toBe("/profile/delete-user/");

    const response = (await deleteAction(post("/profile/delete-user/", cookie, {}))) as Response;
    expect(response.status).toBe(302);
    expect(response.headers.get("Location")).toBe("/profile/delete-user/confermata/#account-cancellato");
    const cleared = response.headers.getSetCookie().find((c) => c.startsWith("portal_session="));
    expect(cleared).toMatch(/^portal_session=; .*Max-Age=0/i);

    const row = await userRow(user.id);
    expect(row).toMatchObject({
      email: null,
      firstname: null,
      lastname: null,
      passwordHash: null,
      professionId: null,
      status: "deleted",
    });
    expect(row.deletedAt).toBeInstanceOf(Date);
    expect(await database.db.select().from(userInterests).where(eq(userInterests.userId, user.id))).toEqual([]);
    expect(await database.db.select().from(sessions).where(eq(sessions.userId, user.id))).toEqual([]);
    const grants = await database.db.select({ id: oidcPayloads.id }).from(oidcPayloads);
    expect(grants.map((g) => g.id)).not.toContain(`grant-${user.id}`);
    expect(grants.map((g) => g.id)).toContain("grant-someone-else");
    const audit = await database.db.select().from(auditLog).where(eq(auditLog.userId, user.id));
    expect(audit).toMatchObject([{ event: "account_deleted", ip: "203.0.113.7" }]);

    // Both browsers are signed out; the confirmation shows to the visitor.
    expect(await services.auth.currentUser(get("/", cookie).request)).toBeNull();
    expect(await services.auth.currentUser(get("/", otherDevice).request)).toBeNull();
    expect(await deletedLoader(get("/profile/delete-user/confermata/", cookie))).toBeNull();
    expect(await deletedLoader(get("/profile/delete-user/confermata/"))).toBeNull();
    expect((await thrownResponse(profileLoader(get("/profile/", cookie)))).headers.get("Location")).toBe(login("/profile/"));

    // The address can register again.
    expect(
      (await services.accounts.register({ firstname: "Maria", lastname: "Rossi", email: user.email!, password: "Segreta1!" })).ok,
    ).toBe(true);
  });
});
