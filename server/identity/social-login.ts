// Social login (spec §7 `google-loginlink`): the login screen can hand the customer to an
// upstream OpenID provider (configured by issuer, client id and secret). The upstream ID token's
// verified e-mail finds the account, or creates one, and the login interaction finishes with it.
import { createHash, randomBytes } from "node:crypto";
import { createRemoteJWKSet, jwtVerify } from "jose";
import { createCookie } from "react-router";
import type { AccountsService } from "#server/accounts/service.ts";
import type { Config } from "#server/config.ts";
import { SOCIAL_LOGIN_CALLBACK_PATH } from "#shared/links.ts";

type Upstream = { authorization_endpoint: string; token_endpoint: string; jwks_uri: string; issuer: string };
type PendingLogin = { uid: string; state: string; verifier: string; nonce: string };

class SocialLoginError extends Error {
  override name = "SocialLoginError";
}

export function createSocialLogin({
  config,
  accounts,
}: {
  config: Pick<Config, "publicOrigin" | "isHttps" | "socialLogin" | "secrets">;
  accounts: AccountsService;
}) {
  const settings = config.socialLogin;
  const cookieOptions = {
    path: "/",
    httpOnly: true,
    sameSite: "lax" as const,
    secure: config.isHttps,
    secrets: [config.secrets.session],
  };
  const prefix = config.isHttps ? "__Host-" : "";
  // The upstream returns with a top-level GET navigation: SameSite=Lax cookies travel with it.
  const pendingCookie = createCookie(`${prefix}portal_social`, { ...cookieOptions, maxAge: 10 * 60 });
  const doneCookie = createCookie(`${prefix}portal_social_done`, { ...cookieOptions, maxAge: 2 * 60 });
  // Set when a sign-in starts from a social button outside the login screen (registration).
  const intentCookie = createCookie(`${prefix}portal_social_intent`, { ...cookieOptions, maxAge: 10 * 60 });
  const redirectUri = `${config.publicOrigin}${SOCIAL_LOGIN_CALLBACK_PATH}`;

  let upstream: Promise<{ meta: Upstream; jwks: ReturnType<typeof createRemoteJWKSet> }> | null = null;
  function discover() {
    if (!settings) throw new SocialLoginError("social login is not configured");
    upstream ??= fetch(`${settings.issuer.replace(/\/+$/, "")}/.well-known/openid-configuration`)
      .then(async (response) => {
        if (!response.ok) throw new SocialLoginError(`upstream discovery failed with ${response.status}`);
        const meta = (await response.json()) as Upstream;
        return { meta, jwks: createRemoteJWKSet(new URL(meta.jwks_uri)) };
      })
      .catch((error) => {
        upstream = null;
        throw error;
      });
    return upstream;
  }

  return {
    enabled: settings !== null,

    /** Where to send the browser for the login interaction `uid`, and the cookie that remembers it. */
    async start(uid: string): Promise<{ url: string; setCookie: string }> {
      const { meta } = await discover();
      const pending: PendingLogin = {
        uid,
        state: randomBytes(16).toString("base64url"),
        verifier: randomBytes(32).toString("base64url"),
        nonce: randomBytes(16).toString("base64url"),
      };
      const url = new URL(meta.authorization_endpoint);
      url.search = new URLSearchParams({
        response_type: "code",
        client_id: settings!.clientId,
        redirect_uri: redirectUri,
        scope: "openid email profile",
        state: pending.state,
        nonce: pending.nonce,
        code_challenge: createHash("sha256").update(pending.verifier).digest("base64url"),
        code_challenge_method: "S256",
      }).toString();
      return { url: url.toString(), setCookie: await pendingCookie.serialize(pending) };
    },

    /**
     * The upstream's answer at the callback: checks state, redeems the code, validates the ID
     * token and returns the account to sign in (created on first use), with the interaction uid.
     */
    async complete(request: Request): Promise<{ uid: string; accountId: string; setCookie: string[] }> {
      const pending = (await pendingCookie.parse(request.headers.get("cookie"))) as PendingLogin | null;
      const params = new URL(request.url).searchParams;
      if (!pending?.state || params.get("state") !== pending.state) throw new SocialLoginError("state mismatch");
      const code = params.get("code");
      if (!code) throw new SocialLoginError(params.get("error") ?? "no code");

      const { meta, jwks } = await discover();
      const response = await fetch(meta.token_endpoint, {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          authorization: `Basic ${Buffer.from(`${encodeURIComponent(settings!.clientId)}:${encodeURIComponent(settings!.clientSecret)}`).toString("base64")}`,
        },
        body: new URLSearchParams({
          grant_type: "authorization_code",
          code,
          redirect_uri: redirectUri,
          code_verifier: pending.verifier,
        }),
      });
      if (!response.ok) throw new SocialLoginError(`upstream token request failed with ${response.status}`);
      const { id_token: idToken } = (await response.json()) as { id_token?: string };
      if (!idToken) throw new SocialLoginError("no ID token");
      const { payload } = await jwtVerify(idToken, jwks, { issuer: meta.issuer, audience: settings!.clientId });
      if (payload.nonce !== pending.nonce) throw new SocialLoginError("nonce mismatch");
      const email = typeof payload.email === "string" ? payload.email : null;
      if (!email || payload.email_verified !== true) throw new SocialLoginError("the upstream account has no verified e-mail");

      const existing = await accounts.findActiveByEmail(email);
      const account =
        existing ??
        (await accounts.registerWithoutPassword({
          email,
          firstname: typeof payload.given_name === "string" ? payload.given_name : "",
          lastname: typeof payload.family_name === "string" ? payload.family_name : "",
        }));
      return {
        uid: pending.uid,
        accountId: account.id,
        setCookie: [
          await pendingCookie.serialize("", { maxAge: 0 }),
          await doneCookie.serialize({ uid: pending.uid, accountId: account.id }),
        ],
      };
    },

    /** Remembers, across the redirect to the login screen, that the customer chose social login. */
    markIntent: () => intentCookie.serialize("1"),

    /** The Set-Cookie that forgets the intent, when this browser has one; null otherwise. */
    async takeIntent(request: Request): Promise<string | null> {
      if ((await intentCookie.parse(request.headers.get("cookie"))) !== "1") return null;
      return intentCookie.serialize("", { maxAge: 0 });
    },

    /** The account proven at the callback for interaction `uid` (read once, at /accedi/:uid/social). */
    async provenAccount(request: Request, uid: string): Promise<{ accountId: string; clearCookie: string } | null> {
      const done = (await doneCookie.parse(request.headers.get("cookie"))) as { uid?: string; accountId?: string } | null;
      if (!done?.accountId || done.uid !== uid) return null;
      return { accountId: done.accountId, clearCookie: await doneCookie.serialize("", { maxAge: 0 }) };
    },
  };
}
