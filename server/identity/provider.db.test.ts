import { createRemoteJWKSet, jwtVerify } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "#tests/support/database.ts";
import { startIdentityProvider } from "#tests/support/identity.ts";

let database: TestDatabase;
let op: Awaited<ReturnType<typeof startIdentityProvider>>;
let userId: string;

beforeAll(async () => {
  database = await createTestDatabase();
  op = await startIdentityProvider(database.db);
  const registered = await op.accounts.register({
    firstname: "Giulia",
    lastname: "Bianchi",
    email: "giulia@example.it",
    password: "Segreta1!",
  });
  if (!registered.ok) throw new Error("registration failed");
  userId = registered.user.id;
});
afterAll(async () => {
  await op.close();
  await database.destroy();
});

describe("identity provider", () => {
  it("publishes its configuration with PKCE S256", async () => {
    const discovery = await (await fetch(`${op.config.oidc.issuer}/.well-known/openid-configuration`)).json();
    expect(discovery.issuer).toBe(op.config.oidc.issuer);
    expect(discovery.code_challenge_methods_supported).toContain("S256");
    // Sign-out ends the provider's session directly: no logout page to reach.
    expect(discovery.end_session_endpoint).toBeUndefined();
  });

  it("signs the customer in with the authorization-code flow and a verifiable ID token", async () => {
    const { code, verifier } = await op.authorize(userId);
    expect(code).toBeTruthy();
    const tokens = await op.exchangeCode(code!, verifier);
    expect(tokens.status).toBe(200);
    expect(tokens.body.refresh_token).toBeTruthy();
    const jwks = createRemoteJWKSet(new URL(`${op.config.oidc.issuer}/jwks`));
    const { payload } = await jwtVerify(tokens.body.id_token!, jwks, {
      issuer: op.config.oidc.issuer,
      audience: op.config.oidc.clientId,
    });
    expect(payload).toMatchObject({ sub: userId, email: "giulia@example.it", given_name: "Giulia", family_name: "Bianchi" });
  });

  it("refuses an authorization request without PKCE", async () => {
    const { error, code } = await op.authorize(userId, { pkce: false });
    expect(code).toBeNull();
    expect(error).toBe("invalid_request");
  });

  it("redeems an authorization code once, even for 10 requests at the same moment", async () => {
    const { code, verifier } = await op.authorize(userId);
    const results = await Promise.all(Array.from({ length: 10 }, () => op.exchangeCode(code!, verifier)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    for (const r of results.filter((r) => r.status !== 200)) expect(r.body.error).toBe("invalid_grant");
  });

  it("rotates refresh tokens, and a reused one revokes the grant", async () => {
    const { code, verifier } = await op.authorize(userId);
    const first = (await op.exchangeCode(code!, verifier)).body.refresh_token!;
    const rotated = await op.refresh(first);
    expect(rotated.status).toBe(200);
    const second = rotated.body.refresh_token!;
    expect(second).not.toBe(first);

    const reuse = await op.refresh(first);
    expect(reuse.body.error).toBe("invalid_grant");
    // The reuse revoked the grant: the newest refresh token is dead too.
    expect((await op.refresh(second)).body.error).toBe("invalid_grant");
  });

  it("finishes a login interaction only for the browser that started it", async () => {
    const response = await fetch(
      `${op.config.oidc.issuer}/auth?${new URLSearchParams({
        client_id: op.config.oidc.clientId,
        response_type: "code",
        scope: "openid",
        redirect_uri: `${op.origin}/oauthcb`,
        code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
        code_challenge_method: "S256",
      })}`,
      { redirect: "manual" },
    );
    const uid = /\/accedi\/([^/?]+)/.exec(response.headers.get("location") ?? "")![1]!;
    expect(await op.identity.getLoginInteraction(uid, null)).toBeNull();
    expect(await op.identity.finishLogin(uid, "_interaction=forged", userId)).toBeNull();
  });
});
