import { createHash, randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { createCookieJar } from "#tests/support/cookie-jar.ts";
import { createTestDatabase, type TestDatabase } from "#tests/support/database.ts";
import { startIdentityProvider } from "#tests/support/identity.ts";
import { users } from "#server/db/schema/index.ts";
import { changePassword, createPasswordChanges } from "./password-change.ts";
import { createAccountsService } from "./service.ts";
import { createSessionStore } from "./sessions.ts";

let database: TestDatabase;
let op: Awaited<ReturnType<typeof startIdentityProvider>>;
let counter = 0;

beforeAll(async () => {
  database = await createTestDatabase({ seed: false });
  op = await startIdentityProvider(database.db);
});
afterAll(async () => {
  await op.close();
  await database.destroy();
});

async function newUser(password = "Attuale1!") {
  const email = `cambio${++counter}@example.it`;
  const r = await createAccountsService(database.db).register({ firstname: "C", lastname: "P", email, password });
  if (!r.ok) throw new Error("setup");
  return { id: r.user.id, email };
}

const passwordHashOf = async (id: string) =>
  (await database.db.select({ h: users.passwordHash }).from(users).where(eq(users.id, id)))[0]?.h;

/** The password change service with its limits, audit and sign-outs recorded as they are called; `lock()` locks the sign-in. */
function recordingService() {
  const calls: string[] = [];
  let locked = false;
  const changes = createPasswordChanges(database.db, {
    rateLimits: {
      checkSignIn: async () => (locked ? { ok: false, retryAfterSeconds: 60, limit: "signInAccount" } : { ok: true }),
      recordSignInFailure: async ({ email }) => {
        calls.push(`failure ${email}`);
        return { ok: true };
      },
      recordSignInSuccess: async ({ email }) => void calls.push(`success ${email}`),
    },
    audit: { record: async (event, details) => void calls.push(`${event} ${details?.userId}`) },
    endOtherPortalSessions: async (userId, keep) => void calls.push(`end ${userId} but ${keep}`),
  });
  return { changes, calls, lock: () => (locked = true) };
}

describe("changePassword", () => {
  it("sets the new password when the current one is right", async () => {
    const user = await newUser();
    expect(await changePassword(database.db, user.id, "Attuale1!", "Nuovissima2#")).toEqual({ ok: true });
    const accounts = createAccountsService(database.db);
    expect((await accounts.verifyCredentials(user.email, "Nuovissima2#")).ok).toBe(true);
    expect((await accounts.verifyCredentials(user.email, "Attuale1!")).ok).toBe(false);
  });

  it("refuses a wrong current password, and a new one that breaks the rule, changing nothing", async () => {
    const user = await newUser();
    const before = await passwordHashOf(user.id);
    expect(await changePassword(database.db, user.id, "Sbagliata1!", "Nuovissima2#")).toEqual({
      ok: false,
      reason: "wrong_password",
    });
    expect(await changePassword(database.db, user.id, "", "Nuovissima2#")).toEqual({ ok: false, reason: "wrong_password" });
    expect(await changePassword(database.db, user.id, "Attuale1!", "debole")).toEqual({ ok: false, reason: "invalid_password" });
    expect(await passwordHashOf(user.id)).toBe(before);
  });

  it("refuses an account that no longer exists", async () => {
    const user = await newUser();
    await database.db.update(users).set({ status: "deleted" }).where(eq(users.id, user.id));
    expect(await changePassword(database.db, user.id, "Attuale1!", "Nuovissima2#")).toEqual({
      ok: false,
      reason: "unknown_user",
    });
    expect(await changePassword(database.db, crypto.randomUUID(), "Attuale1!", "Nuovissima2#")).toEqual({
      ok: false,
      reason: "unknown_user",
    });
  });

  it("lets exactly one of several simultaneous changes with the same current password through", async () => {
    const user = await newUser();
    const results = await Promise.all(
      Array.from({ length: 5 }, (_, i) => changePassword(database.db, user.id, "Attuale1!", `Gara${i}abcd!`)),
    );
    const winners = results.map((r, i) => (r.ok ? i : -1)).filter((i) => i >= 0);
    expect(winners).toHaveLength(1);
    for (const r of results) if (!r.ok) expect(r.reason).toBe("wrong_password");
    expect((await createAccountsService(database.db).verifyCredentials(user.email, `Gara${winners[0]}abcd!`)).ok).toBe(true);
  });

  it("is what the service's change() does, under the sign-in's limits, with the audit entry", async () => {
    const user = await newUser();
    const { changes, calls, lock } = recordingService();
    const request = { user, keep: { sessionId: "this-browser" }, ip: "192.0.2.1" };

    expect(await changes.change({ ...request, currentPassword: "Sbagliata1!", newPassword: "Nuovissima2#" })).toEqual({
      ok: false,
      reason: "wrong_password",
    });
    expect(calls).toEqual([`failure ${user.email}`]);

    calls.length = 0;
    expect(await changes.change({ ...request, currentPassword: "Attuale1!", newPassword: "Nuovissima2#" })).toEqual({ ok: true });
    expect(calls).toEqual([`success ${user.email}`, `end ${user.id} but this-browser`, `password_changed ${user.id}`]);

    calls.length = 0;
    lock();
    expect(await changes.change({ ...request, currentPassword: "Nuovissima2#", newPassword: "Altra1234!" })).toEqual({
      ok: false,
      reason: "locked",
      retryAfterSeconds: 60,
    });
    expect(calls).toEqual([]);
    expect((await createAccountsService(database.db).verifyCredentials(user.email, "Nuovissima2#")).ok).toBe(true);
  });
});

describe("the service's verify()", () => {
  it("tells whether the password is the account's, counting a wrong one as a failed sign-in, and checks none while locked", async () => {
    const user = await newUser();
    const { changes, calls, lock } = recordingService();
    const request = { user, ip: "192.0.2.1" };
    expect(await changes.verify({ ...request, password: "Sbagliata1!" })).toEqual({ ok: true, matches: false });
    expect(await changes.verify({ ...request, password: "Attuale1!" })).toEqual({ ok: true, matches: true });
    expect(calls).toEqual([`failure ${user.email}`, `success ${user.email}`]);
    lock();
    expect(await changes.verify({ ...request, password: "Attuale1!" })).toEqual({
      ok: false,
      reason: "locked",
      retryAfterSeconds: 60,
    });
    expect(calls).toHaveLength(2);
  });
});

describe("changePassword and the identity provider", () => {
  /** One browser signed in through the provider: its cookies, tokens and portal session. */
  async function signedInBrowser(userId: string) {
    const { code, verifier, jar } = await op.authorize(userId);
    const tokens = await op.exchangeCode(code!, verifier);
    expect(tokens.status).toBe(200);
    const refreshToken = tokens.body.refresh_token!;
    const sessionId = await createSessionStore(database.db).create(userId, {
      accessToken: tokens.body.access_token!,
      accessTokenExpiresAt: new Date(Date.now() + 600_000),
      refreshToken,
      idToken: tokens.body.id_token!,
    });
    return { jar, refreshToken, sessionId };
  }

  /** A new authorization request from this browser: "code" when its provider session still signs it in. */
  async function silentSignIn(jar: ReturnType<typeof createCookieJar>): Promise<"code" | "login"> {
    const verifier = randomBytes(32).toString("base64url");
    const params = new URLSearchParams({
      client_id: op.config.oidc.clientId,
      response_type: "code",
      scope: "openid email profile offline_access",
      redirect_uri: `${op.origin}/oauthcb`,
      state: randomBytes(8).toString("hex"),
      code_challenge: createHash("sha256").update(verifier).digest("base64url"),
      code_challenge_method: "S256",
    });
    let location = `${op.config.oidc.issuer}/auth?${params}`;
    for (let hops = 0; hops < 6; hops++) {
      const response = await fetch(new URL(location, op.origin), { redirect: "manual", headers: { cookie: jar.header() } });
      jar.store(response);
      location = response.headers.get("location") ?? "";
      if (location.startsWith(`${op.origin}/oauthcb`)) return new URL(location).searchParams.get("code") ? "code" : "login";
      if (/\/accedi\//.test(location)) return "login";
    }
    throw new Error(`unexpected authorization answer: ${location}`);
  }

  it("ends every other browser's provider session and grant, and keeps the current one's", async () => {
    const user = await newUser();
    const current = await signedInBrowser(user.id);
    const other = await signedInBrowser(user.id);
    expect(await silentSignIn(other.jar)).toBe("code");

    expect(await changePassword(database.db, user.id, "Attuale1!", "Nuovissima2#", { keepSessionId: current.sessionId })).toEqual(
      { ok: true },
    );

    // The other browser can neither renew its tokens nor be signed back in without a password.
    expect((await op.refresh(other.refreshToken)).status).toBe(400);
    expect(await silentSignIn(other.jar)).toBe("login");
    // The browser that changed the password keeps both.
    expect((await op.refresh(current.refreshToken)).status).toBe(200);
    expect(await silentSignIn(current.jar)).toBe("code");
  });

  it("without a session to keep, ends all of them", async () => {
    const user = await newUser();
    const browser = await signedInBrowser(user.id);
    expect(await changePassword(database.db, user.id, "Attuale1!", "Nuovissima2#")).toEqual({ ok: true });
    expect((await op.refresh(browser.refreshToken)).status).toBe(400);
    expect(await silentSignIn(browser.jar)).toBe("login");
  });

  it("a failed change ends nothing", async () => {
    const user = await newUser();
    const browser = await signedInBrowser(user.id);
    expect(await changePassword(database.db, user.id, "Sbagliata1!", "Nuovissima2#")).toMatchObject({ ok: false });
    expect((await op.refresh(browser.refreshToken)).status).toBe(200);
  });
});
