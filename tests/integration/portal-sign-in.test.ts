// The portal's side of the redirect sign-in (server/identity/relying-party.ts), driven end to end
// against the identity provider on a real port: /login/ → provider → /oauthcb → a session.
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sessions } from "#server/db/schema/index.ts";
import { MAX_PENDING_SIGN_INS, SignInError } from "#server/identity/relying-party.ts";
import type { Services } from "#server/services.ts";
import { testConfig } from "#tests/support/config.ts";
import { createCookieJar } from "#tests/support/cookie-jar.ts";
import { createTestDatabase, type TestDatabase } from "#tests/support/database.ts";
import { startIdentityProvider } from "#tests/support/identity.ts";
import { thrownResponse } from "#tests/support/requests.ts";
import { createTestServices } from "#tests/support/services.ts";

// What `openssl rand -base64 48` gives, and worse: every character form-encoding changes.
const SECRET = "q+Z/9+w==%2B+ +x/y%25%+Ab/Cd+Ef==Gh+Ij/Kl%Mn+Op/Qr==";

let database: TestDatabase;
let op: Awaited<ReturnType<typeof startIdentityProvider>>;
let services: Services;
let userId: string;

beforeAll(async () => {
  database = await createTestDatabase();
  op = await startIdentityProvider(database.db, { OIDC_CLIENT_SECRET: SECRET });
  services = await createTestServices(database, testConfig({ PUBLIC_ORIGIN: op.origin, OIDC_CLIENT_SECRET: SECRET }));
  const r = await services.accounts.register({
    firstname: "Ugo",
    lastname: "Sala",
    email: "ugo@example.it",
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

/** A visit to /login/ by the browser of `jar`: the address of the provider it is sent to. */
async function visitLogin(jar: ReturnType<typeof createCookieJar>, returnTo = "/profile/") {
  const request = new Request(`${op.origin}/login/`, { headers: { cookie: jar.header() } });
  const response = await thrownResponse(services.auth.startSignIn(request, returnTo));
  jar.store(response);
  return response.headers.get("location")!;
}

/** The callback request the browser of `jar` makes when the provider sends it back. */
const callbackRequest = (callback: URL, jar: ReturnType<typeof createCookieJar>) =>
  new Request(callback, { headers: { cookie: jar.header(), "user-agent": BROWSER } });
const BROWSER = "Mozilla/5.0 (X11; Linux x86_64; rv:132.0) Gecko/20100101 Firefox/132.0";

describe("portal sign-in", () => {
  it("signs in and refreshes with a client secret full of + / = %", async () => {
    expect(op.config.secrets.oidcClient).toBe(SECRET);
    const jar = createCookieJar();
    const callback = await op.signInAt(await visitLogin(jar), userId);
    const { returnTo, headers } = await services.auth.finishSignIn(callbackRequest(callback, jar), "127.0.0.1");
    expect(returnTo).toBe("/profile/");

    // The refresh sends the same credentials: force it with an expired access token.
    const session = headers
      .getSetCookie()
      .find((c) => c.startsWith("portal_session="))!
      .split(";")[0]!;
    const signedIn = new Request(`${op.origin}/dashboard/`, { headers: { cookie: session } });
    expect((await services.auth.currentUser(signedIn))?.user.id).toBe(userId);
    const [before] = await database.db.select().from(sessions).where(eq(sessions.userId, userId));
    // The account console's description of the session: the browser, and the network without the address.
    expect(before).toMatchObject({ userAgent: BROWSER, ipPrefix: "127.0.0.0/24" });
    await database.db
      .update(sessions)
      .set({ accessTokenExpiresAt: new Date(0) })
      .where(eq(sessions.userId, userId));
    expect((await services.auth.currentUser(signedIn))?.user.id).toBe(userId);
    const [after] = await database.db.select().from(sessions).where(eq(sessions.userId, userId));
    expect(after!.refreshToken).not.toBe(before!.refreshToken); // refreshed (and rotated)
  });

  it("refuses a callback whose iss is not the provider's (RFC 9207), before the code is used", async () => {
    const jar = createCookieJar();
    const callback = await op.signInAt(await visitLogin(jar), userId);
    // The provider names itself in every authorization response.
    expect(callback.searchParams.get("iss")).toBe(op.config.oidc.issuer);

    for (const iss of ["https://evil.example/oidc", `${op.config.oidc.issuer}/`, null]) {
      const forged = new URL(callback);
      if (iss === null) forged.searchParams.delete("iss");
      else forged.searchParams.set("iss", iss);
      await expect(services.auth.finishSignIn(callbackRequest(forged, jar), "127.0.0.1")).rejects.toThrow(SignInError);
    }
    // The genuine response still completes: the code was not exchanged for the forged ones.
    expect((await services.auth.finishSignIn(callbackRequest(callback, jar), "127.0.0.1")).returnTo).toBe("/profile/");
  });

  it("keeps a bounded few sign-in states however often /login/ is visited, and the latest still completes", async () => {
    const jar = createCookieJar();
    const first = await visitLogin(jar);
    let latest = first;
    for (let visit = 1; visit < 100; visit++) latest = await visitLogin(jar);
    const stateCookies = jar
      .header()
      .split("; ")
      .filter((c) => c.startsWith("portal_oauth"));
    expect(stateCookies.length).toBeLessThanOrEqual(MAX_PENDING_SIGN_INS);
    expect(jar.header().length).toBeLessThan(2_000);

    expect(
      (await services.auth.finishSignIn(callbackRequest(await op.signInAt(latest, userId), jar), "127.0.0.1")).returnTo,
    ).toBe("/profile/");
    // The oldest attempt's state was dropped: its response is refused.
    await expect(services.auth.finishSignIn(callbackRequest(await op.signInAt(first, userId), jar), "127.0.0.1")).rejects.toThrow(
      /state/i,
    );
  });
});
