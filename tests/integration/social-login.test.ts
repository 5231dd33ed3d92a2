// Social login against a second local OpenID provider: the login screen hands over to it, and
// the verified e-mail it returns signs the customer in to the portal's identity provider.
import { jwtVerify, createRemoteJWKSet } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loader as callbackLoader } from "#app/routes/accedi.social-callback.tsx";
import { loader as socialLoader } from "#app/routes/accedi.social.tsx";
import { loader as loginScreenLoader } from "#app/routes/accedi.tsx";
import { loader as loginLoader } from "#app/routes/login.tsx";
import type { Services } from "#server/services.ts";
import { createCookieJar } from "#tests/support/cookie-jar.ts";
import { thrownResponse } from "#tests/support/requests.ts";
import { createTestDatabase, type TestDatabase } from "#tests/support/database.ts";
import { startIdentityProvider } from "#tests/support/identity.ts";
import { createRouterContext } from "#tests/support/router-context.ts";
import { createTestServices } from "#tests/support/services.ts";
import { startUpstreamProvider, type UpstreamPerson } from "#tests/support/upstream-provider.ts";
import { testConfig } from "#tests/support/config.ts";

let database: TestDatabase;
let op: Awaited<ReturnType<typeof startIdentityProvider>>;
let upstream: Awaited<ReturnType<typeof startUpstreamProvider>>;
let services: Services;
const person: UpstreamPerson = {
  sub: "g-123",
  email: "Social.User@Example.it",
  email_verified: true,
  given_name: "Sofia",
  family_name: "Gallo",
};

beforeAll(async () => {
  database = await createTestDatabase();
  op = await startIdentityProvider(database.db);
  upstream = await startUpstreamProvider({ redirectUri: `${op.origin}/accedi/social/callback`, person });
  const config = testConfig({
    PUBLIC_ORIGIN: op.origin,
    SOCIAL_OIDC_ISSUER: upstream.issuer,
    SOCIAL_OIDC_CLIENT_ID: upstream.clientId,
    SOCIAL_OIDC_CLIENT_SECRET: upstream.clientSecret,
  });
  services = await createTestServices(database, config);
});
afterAll(async () => {
  await services.close();
  await Promise.all([op.close(), upstream.close()]);
  await database.destroy();
});

const args = <P extends Record<string, string>>(url: string, cookie: string, params: P = {} as P) => ({
  request: new Request(new URL(url, op.origin), { headers: { cookie } }),
  url: new URL(url, op.origin),
  params,
  context: createRouterContext(services, testConfig({ PUBLIC_ORIGIN: op.origin })),
  pattern: "",
});

async function redirectOf(promise: Promise<unknown>) {
  const response = (await promise) as Response;
  expect(response.status).toBe(302);
  return response;
}

describe("social login", () => {
  it("signs in (and creates) the account of the upstream's verified e-mail", async () => {
    // The portal's identity provider starts a login interaction for this browser.
    const jar = createCookieJar();
    const start = await op.startAuthorization();
    jar.store(start.response);
    const uid = start.uid!;

    // The login screen's social link sends the browser upstream.
    const toUpstream = await redirectOf(socialLoader(args(`/accedi/${uid}/social`, jar.header(), { uid })));
    jar.store(toUpstream);
    let location = toUpstream.headers.get("location")!;
    expect(location.startsWith(upstream.issuer)).toBe(true);

    // The upstream signs the person in and returns to the portal's callback. (Its cookies live on
    // its own site: a jar of their own, or they would overwrite the portal's of the same name.)
    const upstreamJar = createCookieJar();
    for (let hops = 0; hops < 6 && !location.includes("/accedi/social/callback"); hops++) {
      const r = await fetch(new URL(location, upstream.issuer), {
        redirect: "manual",
        headers: { cookie: upstreamJar.header() },
      });
      upstreamJar.store(r);
      location = r.headers.get("location")!;
    }
    const toSocial = await redirectOf(callbackLoader(args(location, jar.header())));
    jar.store(toSocial);
    expect(toSocial.headers.get("location")).toBe(`/accedi/${uid}/social`);

    // Back on the login interaction: it finishes with the proven account.
    const resume = await redirectOf(socialLoader(args(`/accedi/${uid}/social`, jar.header(), { uid })));
    jar.store(resume);
    const { code, verifier } = await op.continueAuthorization(resume.headers.get("location")!, jar, start.verifier);
    const tokens = await op.exchangeCode(code!, verifier);
    const jwks = createRemoteJWKSet(new URL(`${op.config.oidc.issuer}/jwks`));
    const { payload } = await jwtVerify(tokens.body.id_token!, jwks, { issuer: op.config.oidc.issuer });
    expect(payload).toMatchObject({ email: "social.user@example.it", given_name: "Sofia", family_name: "Gallo" });
    const account = await services.accounts.findActiveByEmail("social.user@example.it");
    expect(payload.sub).toBe(account!.id);
  });

  it("the registration page's social button passes the login screen straight to social login", async () => {
    const jar = createCookieJar();
    const toProvider = await thrownResponse(loginLoader(args("/login/?via=social&redirect=%2Fedu%2F", "")));
    jar.store(toProvider);
    const atProvider = await fetch(toProvider.headers.get("location")!, {
      redirect: "manual",
      headers: { cookie: jar.header() },
    });
    jar.store(atProvider);
    const uid = /\/accedi\/([^/?]+)/.exec(atProvider.headers.get("location")!)![1]!;
    const forwarded = await thrownResponse(loginScreenLoader(args(`/accedi/${uid}`, jar.header(), { uid })));
    expect(forwarded.headers.get("location")).toBe(`/accedi/${uid}/social`);
    jar.store(forwarded);
    // The intent is used up: the login screen shows normally next time.
    const screen = (await loginScreenLoader(args(`/accedi/${uid}`, jar.header(), { uid }))) as { interaction: { uid: string } };
    expect(screen.interaction.uid).toBe(uid);
  });

  it("refuses a callback whose state this browser did not start", async () => {
    const response = (await callbackLoader(args("/accedi/social/callback?code=x&state=forged", ""))) as unknown as {
      init: ResponseInit;
    };
    expect(response.init.status).toBe(400);
  });
});
