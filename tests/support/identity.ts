// The identity provider on a real HTTP port, with a driver for the authorization-code flow.
import { createHash, randomBytes } from "node:crypto";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { createAccountsService } from "#server/accounts/service.ts";
import type { Database } from "#server/db/client.ts";
import { basicAuthorization } from "#server/identity/client-credentials.ts";
import { ensureSigningKey, loadSigningKeys } from "#server/identity/keys.ts";
import { createIdentityProvider } from "#server/identity/provider.ts";
import { createIdentityService } from "#server/identity/service.ts";
import { systemClock } from "#server/lib/clock.ts";
import { testConfig, testPasswords } from "./config.ts";
import { createCookieJar } from "./cookie-jar.ts";

/** `env` overrides the configuration (e.g. OIDC_CLIENT_SECRET); the origin is the server's own. */
export async function startIdentityProvider(db: Database, env: Record<string, string> = {}) {
  const app = express();
  const server: Server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const config = testConfig({ ...env, PUBLIC_ORIGIN: origin });
  await ensureSigningKey(db);
  const accounts = createAccountsService(db, systemClock, testPasswords);
  const provider = createIdentityProvider({ config, db, accounts, signingKeys: await loadSigningKeys(db) });
  const identity = createIdentityService(provider, db);
  app.use("/oidc", provider.callback());

  const clientAuth = basicAuthorization(config.oidc.clientId, config.secrets.oidcClient);
  const redirectUri = `${origin}/oauthcb`;

  /** Starts an authorization request; the provider answers with its login interaction. */
  async function startAuthorization({ pkce = true } = {}) {
    const verifier = randomBytes(32).toString("base64url");
    const params = new URLSearchParams({
      client_id: config.oidc.clientId,
      response_type: "code",
      scope: "openid email profile offline_access",
      redirect_uri: redirectUri,
      state: randomBytes(8).toString("hex"),
    });
    if (pkce) {
      params.set("code_challenge", createHash("sha256").update(verifier).digest("base64url"));
      params.set("code_challenge_method", "S256");
    }
    const response = await fetch(`${config.oidc.issuer}/auth?${params}`, { redirect: "manual" });
    const location = response.headers.get("location") ?? "";
    const uid = /\/accedi\/([^/?]+)/.exec(location)?.[1] ?? null;
    return { response, uid, verifier, error: uid ? null : new URL(location, origin).searchParams.get("error") };
  }

  /** Follows the provider's redirects from `location` to the client's callback: the code. */
  async function continueAuthorization(location: string, jar: ReturnType<typeof createCookieJar>, verifier: string) {
    for (let hops = 0; hops < 6 && !location.startsWith(redirectUri); hops++) {
      const response = await fetch(new URL(location, origin), { redirect: "manual", headers: { cookie: jar.header() } });
      jar.store(response);
      location = response.headers.get("location") ?? "";
    }
    const callback = new URL(location, origin);
    return { error: callback.searchParams.get("error"), code: callback.searchParams.get("code"), verifier, callback };
  }

  /** Runs authorization up to the code, signing `accountId` in at the login interaction. */
  async function authorize(accountId: string, { pkce = true } = {}) {
    const jar = createCookieJar();
    const start = await startAuthorization({ pkce });
    jar.store(start.response);
    if (!start.uid) return { error: start.error, code: null, verifier: start.verifier, jar };
    const returnTo = await identity.finishLogin(start.uid, jar.header(), accountId);
    if (!returnTo) throw new Error("the login interaction was not found");
    return { ...(await continueAuthorization(returnTo, jar, start.verifier)), jar };
  }

  /**
   * Follows an authorization request the portal started (`authorizeUrl`, from /login/), signs
   * `accountId` in at the login interaction, and returns the callback address (/oauthcb?…).
   */
  async function signInAt(authorizeUrl: string, accountId: string): Promise<URL> {
    const jar = createCookieJar();
    const response = await fetch(authorizeUrl, { redirect: "manual" });
    jar.store(response);
    const uid = /\/accedi\/([^/?]+)/.exec(response.headers.get("location") ?? "")?.[1];
    if (!uid) throw new Error(`no login interaction: ${response.status} ${response.headers.get("location")}`);
    const returnTo = await identity.finishLogin(uid, jar.header(), accountId);
    if (!returnTo) throw new Error("the login interaction was not found");
    return (await continueAuthorization(returnTo, jar, "")).callback;
  }

  async function token(body: Record<string, string>) {
    const response = await fetch(`${config.oidc.issuer}/token`, {
      method: "POST",
      headers: { authorization: clientAuth, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, string> };
  }

  return {
    origin,
    config,
    identity,
    accounts,
    authorize,
    startAuthorization,
    continueAuthorization,
    signInAt,
    exchangeCode: (code: string, verifier: string) =>
      token({ grant_type: "authorization_code", code, code_verifier: verifier, redirect_uri: redirectUri }),
    refresh: (refreshToken: string) => token({ grant_type: "refresh_token", refresh_token: refreshToken }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
