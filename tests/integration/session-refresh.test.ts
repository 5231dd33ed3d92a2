// The portal keeps its session alive by refreshing the provider's access token, and ends it when
// the provider refuses (the grant was revoked, e.g. by a password reset elsewhere).
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSessionStore } from "#server/accounts/sessions.ts";
import { oidcPayloads, sessions } from "#server/db/schema/index.ts";
import type { Services } from "#server/services.ts";
import { createTestDatabase, type TestDatabase } from "#tests/support/database.ts";
import { startIdentityProvider } from "#tests/support/identity.ts";
import { sessionCookieHeader } from "#tests/support/requests.ts";
import { createTestServices } from "#tests/support/services.ts";
import { testConfig } from "#tests/support/config.ts";

let database: TestDatabase;
let op: Awaited<ReturnType<typeof startIdentityProvider>>;
let services: Services;
let userId: string;

beforeAll(async () => {
  database = await createTestDatabase();
  op = await startIdentityProvider(database.db);
  services = await createTestServices(database, testConfig({ PUBLIC_ORIGIN: op.origin }));
  const r = await services.accounts.register({
    firstname: "Rita",
    lastname: "Neri",
    email: "rita@example.it",
    password: "Segreta1!",
  });
  if (!r.ok) throw new Error("setup");
  userId = r.user.id;
});
afterAll(async () => {
  await services.close();
  await op.close();
  await database.destroy();
});

/** A portal session holding real provider tokens whose access token has just expired. */
async function expiredSession() {
  const { code, verifier } = await op.authorize(userId);
  const { body } = await op.exchangeCode(code!, verifier);
  const rawId = await createSessionStore(database.db).create(userId, {
    accessToken: body.access_token!,
    accessTokenExpiresAt: new Date(Date.now() - 1000),
    refreshToken: body.refresh_token!,
    idToken: body.id_token!,
  });
  const request = new Request(`${op.origin}/dashboard/`, { headers: { cookie: await sessionCookieHeader(rawId) } });
  return { rawId, request, refreshToken: body.refresh_token! };
}

describe("portal session and provider tokens", () => {
  it("refreshes an expired access token once, even for parallel requests, and stays signed in", async () => {
    const { request, refreshToken } = await expiredSession();
    const results = await Promise.all(Array.from({ length: 5 }, () => services.auth.currentUser(request.clone())));
    expect(results.every((r) => r?.user.id === userId)).toBe(true);
    const [row] = await database.db.select().from(sessions).where(eq(sessions.refreshToken, refreshToken));
    expect(row).toBeUndefined(); // rotated: the session holds the new refresh token
    const stored = await database.db.select().from(sessions).where(eq(sessions.userId, userId));
    expect(stored.some((s) => s.accessTokenExpiresAt! > new Date())).toBe(true);
  });

  it("ends the session when the provider has revoked the grant", async () => {
    const { request } = await expiredSession();
    await services.identity.revokeAccount(userId);
    expect(await services.auth.currentUser(request)).toBeNull();
  });

  it("sign-out ends this browser's portal session and the provider's session and grant behind it, in one step", async () => {
    const browser = await expiredSession();
    const other = await expiredSession();
    const [grant] = await database.db
      .select({ id: oidcPayloads.grantId })
      .from(oidcPayloads)
      .where(eq(oidcPayloads.id, browser.refreshToken));

    const response = await services.auth.signOut(browser.request, "/edu/");
    expect(response.status).toBe(302);
    // Straight to the login screen: no provider logout page, no ID token in the address.
    expect(response.headers.get("location")).toBe("/login/?redirect=%2Fedu%2F");

    const left = await database.db.select().from(oidcPayloads);
    expect(left.filter((row) => row.grantId === grant!.id || row.id === grant!.id)).toEqual([]);
    expect(left.filter((row) => row.type === "Session" && JSON.stringify(row.payload).includes(grant!.id!))).toEqual([]);
    expect((await op.refresh(browser.refreshToken)).status).toBe(400);
    expect(await services.auth.currentUser(browser.request)).toBeNull();
    // The customer's other browser stays signed in.
    expect((await op.refresh(other.refreshToken)).status).toBe(200);
  });
});
