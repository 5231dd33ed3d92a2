// The login screen's action: generic answers, brute-force locks with growing waits, audit.
import { eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { createCookie } from "react-router";
import { action as loginAction, loader as loginScreenLoader } from "#app/routes/accedi.tsx";
import type { FormReply } from "#app/lib/form-reply.ts";
import { MESSAGES } from "#shared/messages.ts";
import { auditLog, mailOutbox, users } from "#server/db/schema/index.ts";
import type { Services } from "#server/services.ts";
import { createTestDatabase, type TestDatabase } from "#tests/support/database.ts";
import { formPost } from "#tests/support/requests.ts";
import { createRouterContext } from "#tests/support/router-context.ts";
import { createTestServices } from "#tests/support/services.ts";

let database: TestDatabase;
let services: Services;
const email = "brute@example.it";
const password = "Giusta123!";

beforeAll(async () => {
  database = await createTestDatabase();
  services = await createTestServices(database);
  const r = await services.accounts.register({ firstname: "B", lastname: "F", email, password });
  if (!r.ok) throw new Error("setup");
});
afterAll(async () => {
  await services.close();
  await database.destroy();
});
afterEach(() => vi.useRealTimers());

type Result = { data: FormReply<"email" | "password">; init: ResponseInit | null };

async function signIn(fields: Record<string, string>) {
  return (await signInAnswer(fields)).data;
}

/** What the action answered: the data and the response's status. */
async function signInAnswer(fields: Record<string, string>) {
  return (await loginAction({
    request: formPost("/accedi/some-uid", fields),
    params: { uid: "some-uid" },
    context: createRouterContext(services),
    url: new URL("http://localhost:3000/accedi/some-uid"),
    pattern: "",
  })) as unknown as Result;
}

describe("login screen", () => {
  it("keeps the sign-in's `redirect` on its 'Registrati' link", async () => {
    vi.spyOn(services.identity, "getLoginInteraction").mockResolvedValue({ uid: "some-uid", loginHint: null });
    const screen = async (cookie: string) => {
      const result = await loginScreenLoader({
        request: new Request("http://localhost:3000/accedi/some-uid", { headers: { cookie } }),
        params: { uid: "some-uid" },
        context: createRouterContext(services),
        url: new URL("http://localhost:3000/accedi/some-uid"),
        pattern: "",
      });
      return result as { registerHref: string };
    };
    // The cookie /login/?redirect=… leaves for the way back (test config: plain HTTP).
    const returnTo = await createCookie("portal_return_to").serialize("/edu/?piano=1");
    expect((await screen(returnTo)).registerHref).toBe(`/register/?redirect=${encodeURIComponent("/edu/?piano=1")}`);
    expect((await screen("")).registerHref).toBe("/register/");
    vi.restoreAllMocks();
  });

  it("gives the spec's messages for missing fields", async () => {
    expect(await signIn({ email: "", password: "" })).toEqual({
      fieldErrors: { email: MESSAGES.emailRequired, password: MESSAGES.passwordRequired },
      // What was typed comes back, never the password.
      values: { email: "" },
    });
  });

  it("answers an unknown e-mail exactly like a wrong password", async () => {
    expect(await signIn({ email: "nobody@example.it", password })).toEqual({
      alert: { title: MESSAGES.invalidCredentials },
      values: { email: "nobody@example.it" },
    });
    expect(await signIn({ email: "other@example.it", password: "Sbagliata1!" })).toEqual({
      alert: { title: MESSAGES.invalidCredentials },
      values: { email: "other@example.it" },
    });
  });

  it("locks the account after 5 wrong passwords, refuses even the right one with the same message, then waits longer each time", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const start = new Date("2026-11-22T09:00:00Z");
    vi.setSystemTime(start);
    for (let i = 0; i < 5; i++)
      expect((await signIn({ email, password: "Sbagliata1!" })).alert?.title).toBe(MESSAGES.invalidCredentials);
    // Locked: the right password gets the same answer.
    expect((await signIn({ email, password })).alert?.title).toBe(MESSAGES.invalidCredentials);

    vi.setSystemTime(new Date(start.getTime() + 61_000));
    // Unlocked: the password is checked again (the interaction of this test does not exist, so
    // a correct password ends in "Sign-in failed", not in the wrong-credentials message).
    expect((await signIn({ email, password })).alert?.title).toBe(MESSAGES.signInFailed);

    // Five more failures: the second lock lasts two minutes.
    for (let i = 0; i < 5; i++) await signIn({ email, password: "Sbagliata1!" });
    vi.setSystemTime(new Date(start.getTime() + 61_000 + 61_000));
    expect((await signIn({ email, password })).alert?.title).toBe(MESSAGES.invalidCredentials);
    vi.setSystemTime(new Date(start.getTime() + 61_000 + 121_000));
    expect((await signIn({ email, password })).alert?.title).toBe(MESSAGES.signInFailed);
  });

  it("records sign-in failures and successes in the audit log, without passwords", async () => {
    const [user] = await database.db.select().from(users).where(eq(users.email, email));
    const rows = await database.db.select().from(auditLog);
    expect(rows.some((r) => r.event === "sign_in_failure" && r.subject === email && r.ip === "203.0.113.7")).toBe(true);
    expect(rows.some((r) => r.event === "sign_in_success" && r.userId === user!.id)).toBe(true);
    expect(JSON.stringify(rows)).not.toContain("Sbagliata1!");
  });

  it("answers an account migrated from the old shop exactly like a wrong password, and mails it a password link", async () => {
    await database.db.insert(users).values({ email: "storico@example.it", firstname: "Ada", migratedFromShop: true });
    const migrated = await signInAnswer({ email: "storico@example.it", password: "Qualunque1!" });
    const wrong = await signInAnswer({ email: "sbagliato@example.it", password: "Qualunque1!" });
    expect(migrated.init?.status).toBe(401);
    expect(migrated).toEqual({ ...wrong, data: { ...wrong.data, values: { email: "storico@example.it" } } });
    const mails = await mailsTo("storico@example.it");
    expect(mails).toHaveLength(1);
    expect(mails[0]!.text).toMatch(/http:\/\/localhost:3000\/mandatory-password\/reset\/[A-Za-z0-9_-]{43}/);
    const [account] = await database.db.select().from(users).where(eq(users.email, "storico@example.it"));
    const audit = await services.audit.listForUser(account!.id);
    expect(audit.map((entry) => entry.event).sort()).toEqual(["password_reset_requested", "sign_in_failure"]);
  });

  it("sends one link per window however many sign-ins race for it, and another once the window is over", async () => {
    await database.db.insert(users).values({ email: "ressa@example.it", firstname: "Ada", migratedFromShop: true });
    const answers = await Promise.all(
      Array.from({ length: 25 }, () => signInAnswer({ email: "ressa@example.it", password: "Qualunque1!" })),
    );
    expect(new Set(answers.map((a) => a.data.alert?.title))).toEqual(new Set([MESSAGES.invalidCredentials]));
    expect(await mailsTo("ressa@example.it")).toHaveLength(1);

    // Past the window (and past the sign-in lock the 25 failures caused): one more link.
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date(Date.now() + 61 * 60_000));
    await signInAnswer({ email: "ressa@example.it", password: "Qualunque1!" });
    await signInAnswer({ email: "ressa@example.it", password: "Qualunque1!" });
    expect(await mailsTo("ressa@example.it")).toHaveLength(2);
  });

  it("lifts the lock its sign-ins caused once the migrated account's link sets a password", async () => {
    const locked = "bloccato@example.it";
    await database.db.insert(users).values({ email: locked, firstname: "Ada", migratedFromShop: true });
    for (let i = 0; i < 5; i++) await services.signIn.attempt({ email: locked, password: "Qualunque1!", ip: "198.51.100.30" });
    const token = /\/mandatory-password\/reset\/([A-Za-z0-9_-]{43})/.exec((await mailsTo(locked))[0]!.text)![1]!;

    const newPassword = "Nuova12345!";
    expect(
      await services.passwordLinks.reset({ token, purpose: "migrated", password: newPassword, ip: "198.51.100.30" }),
    ).toEqual({
      ok: true,
    });
    expect(await services.signIn.attempt({ email: locked, password: newPassword, ip: "198.51.100.30" })).toMatchObject({
      ok: true,
    });
  });

  it("keeps the lock of an ordinary account whose password is reset (its failures were guesses)", async () => {
    const guarded = "custodito@example.it";
    const registered = await services.accounts.register({ firstname: "B", lastname: "F", email: guarded, password });
    if (!registered.ok) throw new Error("setup");
    for (let i = 0; i < 5; i++) await services.signIn.attempt({ email: guarded, password: "Sbagliata1!", ip: "198.51.100.31" });
    const token = await services.passwordResets.issue(registered.user.id, "reset");
    const newPassword = "Nuova12345!";
    expect(await services.passwordLinks.reset({ token, purpose: "reset", password: newPassword, ip: "198.51.100.31" })).toEqual({
      ok: true,
    });
    expect(await services.signIn.attempt({ email: guarded, password: newPassword, ip: "198.51.100.31" })).toEqual({ ok: false });
  });

  it("sends at most 10 links an hour on behalf of one client address, across accounts", async () => {
    const emails = Array.from({ length: 12 }, (_, i) => `storico${i}@example.it`);
    await database.db.insert(users).values(emails.map((email) => ({ email, firstname: "Ada", migratedFromShop: true })));
    for (const email of emails) {
      expect(await services.signIn.attempt({ email, password: "Qualunque1!", ip: "198.51.100.20" })).toEqual({ ok: false });
    }
    const sent = await Promise.all(emails.map(async (email) => (await mailsTo(email)).length));
    expect(sent.reduce((a, b) => a + b)).toBe(10);
  });
});

async function mailsTo(address: string) {
  return database.db.select().from(mailOutbox).where(eq(mailOutbox.to, address));
}
