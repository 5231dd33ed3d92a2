// The portal as a client of the identity provider: the redirect sign-in (remix-auth with
// remix-auth-oauth2, PKCE S256), ID token validation with jose, the portal session cookie, token
// refresh and RP-initiated logout.
import { createHmac, timingSafeEqual } from "node:crypto";
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from "jose";
import { createCookie, redirect } from "react-router";
import { Authenticator } from "remix-auth";
import { OAuth2Strategy } from "remix-auth-oauth2";
import type { User } from "../accounts/service.ts";
import type { AccountsService } from "../accounts/service.ts";
import type { ProviderTokens, SessionStore } from "../accounts/sessions.ts";
import { SESSION_ABSOLUTE_TIMEOUT_MS } from "../accounts/sessions.ts";
import type { Config } from "../config.ts";
import { safeRedirectTarget } from "../lib/safe-redirect.ts";
import { PORTAL_SCOPES } from "./provider.ts";

type RpConfig = Pick<Config, "publicOrigin" | "isHttps" | "oidc" | "secrets">;

export class SignInError extends Error {
  override name = "SignInError";
}

type Discovery = { jwks_uri: string; end_session_endpoint: string };

export function createRelyingParty({
  config,
  sessions,
  accounts,
}: {
  config: RpConfig;
  sessions: SessionStore;
  accounts: AccountsService;
}) {
  const prefix = config.isHttps ? "__Host-" : "";
  const cookieDefaults = { path: "/", httpOnly: true as const, sameSite: "lax" as const, secure: config.isHttps };
  const sessionCookie = createCookie(`${prefix}portal_session`, {
    ...cookieDefaults,
    maxAge: SESSION_ABSOLUTE_TIMEOUT_MS / 1000,
  });
  // Where to go after the sign-in; short-lived, and re-checked as a safe path when read.
  const returnToCookie = createCookie(`${prefix}portal_return_to`, { ...cookieDefaults, maxAge: 10 * 60 });
  const stateCookieName = `${prefix}portal_oauth`;

  /** The nonce is bound to the state (itself bound to this browser by the state cookie). */
  const nonceFor = (state: string) => createHmac("sha256", config.secrets.session).update(`nonce:${state}`).digest("base64url");

  class PortalStrategy extends OAuth2Strategy<TokenSet> {
    loginHint: string | null = null;
    protected override authorizationParams(params: URLSearchParams): URLSearchParams {
      const result = new URLSearchParams(params);
      result.set("nonce", nonceFor(params.get("state") ?? ""));
      return result;
    }

    /** Without a scope the provider keeps the grant's; naming offline_access again is refused. */
    override refreshToken(refreshToken: string) {
      return this.client.refreshAccessToken(this.options.tokenEndpoint.toString(), refreshToken, []);
    }
  }

  type TokenSet = { tokens: ProviderTokens; claims: JWTPayload; user: User };

  let discovered: Promise<{ authenticator: Authenticator<TokenSet>; strategy: PortalStrategy; discovery: Discovery }> | null =
    null;

  /** Discovery runs at the first sign-in (the provider is this very server, listening by then). */
  function client() {
    discovered ??= (async () => {
      const discoveryUrl = `${config.oidc.issuer}/.well-known/openid-configuration`;
      const response = await fetch(discoveryUrl, { headers: { accept: "application/json" } });
      if (!response.ok) throw new SignInError(`discovery failed with ${response.status}`);
      const discovery = (await response.json()) as Discovery;
      const jwks = createRemoteJWKSet(new URL(discovery.jwks_uri));

      const strategy = await PortalStrategy.discover<TokenSet, PortalStrategy>(
        config.oidc.issuer,
        {
          clientId: config.oidc.clientId,
          clientSecret: config.secrets.oidcClient,
          redirectURI: `${config.publicOrigin}/oauthcb`,
          scopes: PORTAL_SCOPES,
          cookie: {
            name: stateCookieName,
            path: "/",
            httpOnly: true,
            sameSite: "Lax",
            maxAge: 10 * 60,
            ...(config.isHttps ? { secure: true as const } : {}),
          },
        },
        async ({ request, tokens }) => {
          const state = new URL(request.url).searchParams.get("state") ?? "";
          const { payload } = await jwtVerify(tokens.idToken(), jwks, {
            issuer: config.oidc.issuer,
            audience: config.oidc.clientId,
            algorithms: ["RS256"],
          });
          const expected = Buffer.from(nonceFor(state));
          const actual = Buffer.from(String(payload.nonce ?? ""));
          if (expected.length !== actual.length || !timingSafeEqual(expected, actual)) throw new SignInError("nonce mismatch");
          const user = payload.sub ? await accounts.findActiveById(payload.sub) : null;
          if (!user) throw new SignInError("unknown account");
          return {
            user,
            claims: payload,
            tokens: {
              accessToken: tokens.accessToken(),
              accessTokenExpiresAt: tokens.accessTokenExpiresAt(),
              refreshToken: tokens.hasRefreshToken() ? tokens.refreshToken() : null,
              idToken: tokens.idToken(),
            },
          };
        },
      );
      const authenticator = new Authenticator<TokenSet>();
      authenticator.use(strategy, "portal");
      return { authenticator, strategy, discovery };
    })().catch((error) => {
      discovered = null; // try again at the next sign-in
      throw error;
    });
    return discovered;
  }

  /** Clears every leftover state cookie of the sign-in (one per attempt). */
  function clearStateCookies(request: Request, headers: Headers) {
    for (const part of (request.headers.get("cookie") ?? "").split(";")) {
      const name = part.split("=")[0]?.trim();
      if (name?.startsWith(stateCookieName)) {
        headers.append("Set-Cookie", `${name}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax${config.isHttps ? "; Secure" : ""}`);
      }
    }
  }

  async function readSessionId(request: Request): Promise<string | null> {
    const value = await sessionCookie.parse(request.headers.get("cookie"));
    return typeof value === "string" && value.length > 0 ? value : null;
  }

  return {
    /** Starts the redirect sign-in: answers with a redirect to the provider (thrown Response). */
    async startSignIn(request: Request, returnTo: string | null): Promise<never> {
      const { authenticator } = await client();
      try {
        await authenticator.authenticate(
          "portal",
          new Request(new URL("/login/", config.publicOrigin), { headers: request.headers }),
        );
      } catch (response) {
        if (!(response instanceof Response)) throw response;
        response.headers.append("Set-Cookie", await returnToCookie.serialize(safeRedirectTarget(returnTo)));
        // The provider is outside the single-page app: the browser must load it as a document.
        response.headers.set("X-Remix-Reload-Document", "true");
        throw response;
      }
      throw new SignInError("the sign-in did not redirect");
    },

    /** Completes the sign-in at /oauthcb: a new session (new id) and where to go next. */
    async finishSignIn(request: Request): Promise<{ returnTo: string; headers: Headers }> {
      const { authenticator } = await client();
      const { user, tokens } = await authenticator.authenticate("portal", request);
      // A session id from before the sign-in is never reused.
      const previous = await readSessionId(request);
      if (previous) await sessions.destroy(previous);
      const rawId = await sessions.create(user.id, tokens);
      const headers = new Headers();
      headers.append("Set-Cookie", await sessionCookie.serialize(rawId));
      headers.append("Set-Cookie", await returnToCookie.serialize("", { maxAge: 0 }));
      clearStateCookies(request, headers);
      const returnTo = safeRedirectTarget((await returnToCookie.parse(request.headers.get("cookie"))) as string | null);
      return { returnTo, headers };
    },

    /**
     * The signed-in user of this request, or null. An access token past its expiry is refreshed
     * first; if the provider refuses (grant revoked), the session ends.
     */
    async currentUser(request: Request): Promise<{ user: User; sessionId: string } | null> {
      const rawId = await readSessionId(request);
      if (!rawId) return null;
      const session = await sessions.find(rawId);
      if (!session) return null;
      if (!session.accessTokenExpiresAt || session.accessTokenExpiresAt <= new Date()) {
        const { strategy } = await client();
        const renewed = await sessions.refreshTokens(session.idHash, async (refreshToken) => {
          const tokens = await strategy.refreshToken(refreshToken);
          return {
            accessToken: tokens.accessToken(),
            accessTokenExpiresAt: tokens.accessTokenExpiresAt(),
            refreshToken: tokens.hasRefreshToken() ? tokens.refreshToken() : refreshToken,
            idToken: tokens.idToken?.() ?? session.idToken ?? "",
          };
        });
        if (!renewed) return null;
      }
      const user = await accounts.findActiveById(session.userId);
      return user ? { user, sessionId: rawId } : null;
    },

    /**
     * Ends the portal session and sends the browser to the provider's end-session endpoint,
     * which ends the provider session and comes back to /logout/ with the way back in `state`.
     */
    async signOut(request: Request, returnTo: string): Promise<Response> {
      const rawId = await readSessionId(request);
      const session = rawId ? await sessions.destroy(rawId) : null;
      const headers = new Headers();
      headers.append("Set-Cookie", await sessionCookie.serialize("", { maxAge: 0 }));
      const { discovery } = await client();
      const endSession = new URL(discovery.end_session_endpoint);
      endSession.searchParams.set("client_id", config.oidc.clientId);
      if (session?.idToken) endSession.searchParams.set("id_token_hint", session.idToken);
      endSession.searchParams.set("post_logout_redirect_uri", `${config.publicOrigin}/logout/`);
      // The provider only returns to registered addresses; the way back travels in the state.
      endSession.searchParams.set("state", safeRedirectTarget(returnTo));
      return redirect(endSession.toString(), { headers });
    },

    /** The Set-Cookie header that forgets this browser's session (after the account is deleted). */
    clearSessionCookie: () => sessionCookie.serialize("", { maxAge: 0 }),

    /** After a password change or reset: every session of the user ends except `keep`. */
    endOtherSessions: (userId: string, keep?: string) => sessions.destroyAllForUser(userId, keep),
  };
}

export type RelyingParty = ReturnType<typeof createRelyingParty>;
