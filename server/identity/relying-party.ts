// The portal as a client of the identity provider: the redirect sign-in (remix-auth with
// remix-auth-oauth2, PKCE S256), ID token validation with jose, the portal session cookie, token
// refresh and RP-initiated logout.
import { createHmac, timingSafeEqual } from "node:crypto";
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from "jose";
import { createCookie, redirect } from "react-router";
import { Authenticator } from "remix-auth";
import { OAuth2Strategy } from "remix-auth-oauth2";
import type { SessionUser, User } from "#server/accounts/service.ts";
import type { AccountsService } from "#server/accounts/service.ts";
import type { ProviderTokens, SessionStore } from "#server/accounts/sessions.ts";
import { SESSION_ABSOLUTE_TIMEOUT_MS } from "#server/accounts/sessions.ts";
import { keptUserAgent, networkPrefix } from "#server/accounts/session-devices.ts";
import type { Config } from "#server/config.ts";
import { systemClock, type Clock } from "#server/lib/clock.ts";
import { safeRedirectTarget } from "#shared/safe-redirect.ts";
import { formEncoded } from "./client-credentials.ts";
import { PORTAL_SCOPES } from "./provider.ts";
import { LOGIN_PATH, OAUTH_CALLBACK_PATH } from "#shared/links.ts";

type RpConfig = Pick<Config, "publicOrigin" | "isHttps" | "oidc" | "secrets">;

export class SignInError extends Error {
  override name = "SignInError";
}

/** Sign-ins a browser may have under way at once (one state cookie each); older ones are dropped. */
export const MAX_PENDING_SIGN_INS = 3;

type Discovery = { jwks_uri: string; authorization_response_iss_parameter_supported?: boolean };

export function createRelyingParty({
  config,
  sessions,
  accounts,
  endProviderSession,
  now = systemClock,
}: {
  config: RpConfig;
  sessions: SessionStore;
  accounts: AccountsService;
  /** Ends the identity provider's session and grant behind a portal session's refresh token. */
  endProviderSession: (refreshToken: string) => Promise<void>;
  now?: Clock;
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
      // The strategy's client holds the form-encoded id (see below); the URL names the id itself.
      result.set("client_id", config.oidc.clientId);
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
          // The library builds the HTTP Basic header of the token requests (code and refresh) from
          // these as they are: they go in form-encoded (see client-credentials.ts).
          clientId: formEncoded(config.oidc.clientId),
          clientSecret: formEncoded(config.secrets.oidcClient),
          redirectURI: `${config.publicOrigin}${OAUTH_CALLBACK_PATH}`,
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

  /**
   * Expires the state cookies of earlier sign-ins (the library sets one per attempt), all but the
   * `keep` newest. Browsers send cookies of the same path oldest first (RFC 6265 §5.4).
   */
  function clearStateCookies(request: Request, headers: Headers, keep = 0) {
    const names = (request.headers.get("cookie") ?? "")
      .split(";")
      .map((part) => part.split("=")[0]!.trim())
      .filter((name) => name.startsWith(stateCookieName));
    for (const name of names.slice(0, Math.max(0, names.length - keep))) {
      headers.append("Set-Cookie", `${name}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax${config.isHttps ? "; Secure" : ""}`);
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
          new Request(new URL(LOGIN_PATH, config.publicOrigin), { headers: request.headers }),
        );
      } catch (response) {
        if (!(response instanceof Response)) throw response;
        response.headers.append("Set-Cookie", await returnToCookie.serialize(safeRedirectTarget(returnTo)));
        // A sign-in started in a few tabs can finish in each, but every visit to /login/ adds a
        // cookie: unbounded, they would outgrow the request headers the server accepts.
        clearStateCookies(request, response.headers, MAX_PENDING_SIGN_INS - 1);
        // The provider is outside the single-page app: the browser must load it as a document.
        response.headers.set("X-Remix-Reload-Document", "true");
        throw response;
      }
      throw new SignInError("the sign-in did not redirect");
    },

    /**
     * Where the sign-in under way in this browser will lead (the `redirect` of /login/), or
     * null when none is: the login screen hands it on to registration.
     */
    async pendingReturnTo(request: Request): Promise<string | null> {
      const value: unknown = await returnToCookie.parse(request.headers.get("cookie"));
      return typeof value === "string" && value !== "" ? safeRedirectTarget(value) : null;
    },

    /** Completes the sign-in at /oauthcb: a new session (new id) and where to go next. */
    async finishSignIn(request: Request, ip: string): Promise<{ returnTo: string; headers: Headers }> {
      const { authenticator, discovery } = await client();
      // RFC 9207: the response names its issuer, so one from another provider (a mix-up attack)
      // is refused, like a bad state, before its code is exchanged anywhere.
      const iss = new URL(request.url).searchParams.get("iss");
      if (iss === null ? discovery.authorization_response_iss_parameter_supported === true : iss !== config.oidc.issuer)
        throw new SignInError("the authorization response is not from our issuer");
      const { user, tokens } = await authenticator.authenticate("portal", request);
      // A session id from before the sign-in is never reused.
      const previous = await readSessionId(request);
      if (previous) await sessions.destroy(previous);
      const rawId = await sessions.create(user.id, tokens, {
        userAgent: keptUserAgent(request.headers.get("user-agent")),
        ipPrefix: networkPrefix(ip),
      });
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
    async currentUser(request: Request): Promise<{ user: SessionUser; sessionId: string } | null> {
      const rawId = await readSessionId(request);
      if (!rawId) return null;
      const found = await sessions.find(rawId);
      if (!found) return null;
      const { session, user } = found;
      if (!session.accessTokenExpiresAt || session.accessTokenExpiresAt <= now()) {
        const { strategy } = await client();
        const renewed = await sessions.refreshTokens(session.idHash, async (refreshToken) => {
          const tokens = await strategy.refreshToken(refreshToken);
          return {
            accessToken: tokens.accessToken(),
            accessTokenExpiresAt: tokens.accessTokenExpiresAt(),
            refreshToken: tokens.hasRefreshToken() ? tokens.refreshToken() : refreshToken,
            idToken: tokens.idToken?.() ?? "",
          };
        });
        if (!renewed) return null;
      }
      return { user, sessionId: rawId };
    },

    /**
     * Signs out in one step: the portal session and the provider's session behind it end here,
     * so the next visit to a private page asks for the password again (a shared computer stays
     * signed out). The browser goes on to the login screen, which returns to `returnTo`.
     */
    async signOut(request: Request, returnTo: string): Promise<Response> {
      const rawId = await readSessionId(request);
      const session = rawId ? await sessions.destroy(rawId) : null;
      if (session?.refreshToken) await endProviderSession(session.refreshToken);
      const headers = new Headers();
      headers.append("Set-Cookie", await sessionCookie.serialize("", { maxAge: 0 }));
      return redirect(`${LOGIN_PATH}?${new URLSearchParams({ redirect: safeRedirectTarget(returnTo) })}`, { headers });
    },

    /** The name of the session cookie: a browser that sends it is (or was) signed in. */
    sessionCookieName: sessionCookie.name,

    /** The Set-Cookie header that forgets this browser's session (after the account is deleted). */
    clearSessionCookie: () => sessionCookie.serialize("", { maxAge: 0 }),

    /** After a password change or reset: every session of the user ends except `keep`. */
    endOtherSessions: async (userId: string, keep?: string) => {
      await sessions.destroyAllForUser(userId, keep);
    },
  };
}
