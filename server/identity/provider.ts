// The publisher's identity provider ("aaa"): an OpenID Provider mounted at /oidc. The portal is
// its first-party client; the login screen is a page of the portal (/accedi/:uid).
import type { IncomingMessage, ServerResponse } from "node:http";
import Provider, { errors, interactionPolicy, type Configuration, type KoaContextWithOIDC } from "oidc-provider";
import type { JWK } from "jose";
import type { AccountsService } from "#server/accounts/service.ts";
import type { Config } from "#server/config.ts";
import type { Database } from "#server/db/client.ts";
import type { Logger } from "#server/logger.ts";
import { escapeMarkup } from "#server/lib/escape.ts";
import { keptUserAgent, networkPrefix } from "#server/accounts/session-devices.ts";
import { createAdapterClass } from "./adapter.ts";
import { recordAppUse } from "#server/accounts/provider-grants.ts";
import { readRequestsAsExpress } from "#server/security/client-address.ts";
import { systemClock, type Clock } from "#server/lib/clock.ts";
import { LOGIN_PATH, loginInteractionPath, OAUTH_CALLBACK_PATH } from "#shared/links.ts";

/** Lifetimes in seconds. The portal refreshes access tokens; sessions outlive them. */
const OIDC_TTL = {
  AccessToken: 10 * 60,
  AuthorizationCode: 60,
  IdToken: 10 * 60,
  Interaction: 60 * 60,
  Grant: 30 * 24 * 60 * 60,
  RefreshToken: 30 * 24 * 60 * 60,
  Session: 30 * 24 * 60 * 60,
};

export const PORTAL_SCOPES = ["openid", "email", "profile", "offline_access"];

/**
 * The JSON API's scope. A client asks for it (with or without `resource`, RFC 8707) and gets an
 * access token for the API: a JWT whose audience is the API, signed with the provider's keys.
 */
const API_SCOPE = "api";

/** Lifetime of an API access token, in seconds: a revoked grant is refused at once anyway. */
const API_ACCESS_TOKEN_TTL = 10 * 60;

export type IdentityProviderOptions = {
  config: Pick<Config, "publicOrigin" | "isHttps" | "oidc" | "secrets" | "api">;
  db: Database;
  accounts: Pick<AccountsService, "findActiveById">;
  signingKeys: JWK[];
  /** The clock of the adapter's expiry and consumption times. */
  now?: Clock;
};

/** The CSP nonce the Express host gave this response (see server/http/app.ts). */
function nonceOf(ctx: KoaContextWithOIDC) {
  return String((ctx.res as ServerResponse & { locals?: { cspNonce?: string } }).locals?.cspNonce ?? "");
}

function requestLogger(ctx: Pick<KoaContextWithOIDC, "req">): Logger | undefined {
  return (ctx.req as IncomingMessage & { log?: Logger }).log;
}

function page(ctx: KoaContextWithOIDC, title: string, body: string) {
  const nonce = escapeMarkup(nonceOf(ctx));
  return `<!doctype html>
<html lang="it"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${title} · Novalex Editore</title>
<style nonce="${nonce}">body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#1c2430}
h1{color:#0b2545}a{color:#a4243b}</style></head>
<body><main>${body}</main></body></html>`;
}

/**
 * The provider's prompts, with one change for native apps. Any app can claim a custom scheme, so
 * the provider would ask the customer to confirm a native client's sign-in (a consent screen the
 * portal does not have). Instead, a native client's sign-in always goes through the login form:
 * the customer types their password in this very authorization, never a silent sign-in from an
 * existing browser session.
 */
function appSignInPolicy() {
  const { Check, base } = interactionPolicy;
  const policy = base();
  policy.get("consent")!.checks.remove("native_client_prompt");
  policy
    .get("login")!
    .checks.add(
      new Check("native_client_login", "native clients sign in with the login form every time", "login_required", (ctx) =>
        ctx.oidc.client?.applicationType === "native" && !ctx.oidc.result?.login ? Check.REQUEST_PROMPT : Check.NO_NEED_TO_PROMPT,
      ),
    );
  return policy;
}

export function createIdentityProvider({
  config,
  db,
  accounts,
  signingKeys,
  now = systemClock,
}: IdentityProviderOptions): Provider {
  const clientId = config.oidc.clientId;
  const apiResource = config.api.resource;
  // The publisher's own clients: no consent screen, their grants cover every scope they may ask.
  const firstParty = new Set([clientId, config.oidc.appClient.clientId]);
  const configuration: Configuration = {
    adapter: createAdapterClass(db, now),
    clients: [
      {
        client_id: clientId,
        client_secret: config.secrets.oidcClient,
        client_name: "Portale clienti",
        redirect_uris: [`${config.publicOrigin}${OAUTH_CALLBACK_PATH}`],
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        token_endpoint_auth_method: "client_secret_basic",
      },
      {
        // A native app (RFC 8252): public, so PKCE is its proof; it signs out by revoking its refresh token.
        client_id: config.oidc.appClient.clientId,
        client_name: "App Novalex",
        application_type: "native",
        redirect_uris: config.oidc.appClient.redirectUris,
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        token_endpoint_auth_method: "none",
      },
    ],
    // The code flow only: discovery advertises no implicit or hybrid response type.
    responseTypes: ["code"],
    // PKCE S256 for every client, confidential ones included.
    pkce: { required: () => true },
    scopes: PORTAL_SCOPES,
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["given_name", "family_name"] },
    // The portal reads the names from the ID token, not from a second call to userinfo.
    conformIdTokenClaims: false,
    async findAccount(_ctx, sub) {
      const user = await accounts.findActiveById(sub);
      if (!user) return undefined;
      return {
        accountId: user.id,
        async claims() {
          return {
            sub: user.id,
            email: user.email ?? undefined,
            email_verified: false,
            given_name: user.firstname ?? undefined,
            family_name: user.lastname ?? undefined,
          };
        },
      };
    },
    interactions: { url: (_ctx, interaction) => loginInteractionPath(interaction.uid), policy: appSignInPolicy() },
    // The publisher's own clients: no consent screen. Their grant covers their scopes and the API's.
    async loadExistingGrant(ctx) {
      const client = ctx.oidc.client!.clientId;
      const existingId = ctx.oidc.result?.consent?.grantId ?? ctx.oidc.session?.grantIdFor(client);
      const existing = existingId ? await ctx.oidc.provider.Grant.find(existingId) : undefined;
      if (!firstParty.has(client) || !ctx.oidc.session?.accountId) return existing;
      const grant = existing ?? new ctx.oidc.provider.Grant({ accountId: ctx.oidc.session.accountId, clientId: client });
      if (existing && existing.getResourceScope(apiResource).split(" ").includes(API_SCOPE)) return existing;
      grant.addOIDCScope(PORTAL_SCOPES.join(" "));
      grant.addResourceScope(apiResource, API_SCOPE);
      await grant.save();
      return grant;
    },
    // The grant's id travels in an API access token so that the API refuses it once the grant
    // is gone (signed out, password reset, account deleted).
    async extraTokenClaims(_ctx, token) {
      return token.kind === "AccessToken" ? { gid: token.grantId } : undefined;
    },
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed("refresh_token"),
    // Every refresh returns a new refresh token; presenting a used one revokes the whole grant.
    rotateRefreshToken: true,
    features: {
      devInteractions: { enabled: false },
      revocation: { enabled: true },
      userinfo: { enabled: true },
      resourceIndicators: {
        enabled: true,
        // Asking for the API's scope is asking for the API.
        async defaultResource(ctx, _client, oneOf) {
          if (oneOf) return oneOf[0];
          const scope = String(ctx.oidc.params?.scope ?? "").split(" ");
          return scope.includes(API_SCOPE) ? apiResource : undefined;
        },
        // The code and refresh grants issue tokens for the resource the authorization named.
        useGrantedResource: async () => true,
        async getResourceServerInfo(_ctx, indicator) {
          if (indicator !== apiResource) throw new errors.InvalidTarget();
          return {
            scope: API_SCOPE,
            audience: apiResource,
            accessTokenTTL: API_ACCESS_TOKEN_TTL,
            accessTokenFormat: "jwt",
            jwt: { sign: { alg: "RS256" } },
          };
        },
      },
      // The portal signs out by ending the provider's session directly (identity service,
      // endSessionOfRefreshToken): no logout page, and no ID token in a URL.
      rpInitiatedLogout: { enabled: false },
    },
    async renderError(ctx, _out, error) {
      ctx.type = "html";
      ctx.body = page(
        ctx,
        "Oops...",
        `<h1>Oops...</h1><p>Sign-in failed</p><p>Il collegamento di accesso non è più valido o è già stato usato.</p><p><a href="${LOGIN_PATH}">Accedi di nuovo</a></p>`,
      );
      // The cause goes to the log with the request id (pino-http's logger), never to the page.
      requestLogger(ctx)?.warn({ err: error }, "identity provider error page");
    },
    cookies: {
      keys: config.secrets.oidcCookieKeys,
      long: { signed: true, httpOnly: true, sameSite: "lax", secure: config.isHttps },
      short: { signed: true, httpOnly: true, sameSite: "lax", secure: config.isHttps },
    },
    jwks: { keys: signingKeys },
    ttl: { ...OIDC_TTL },
    clientBasedCORS: () => false,
  };

  const provider = new Provider(config.oidc.issuer, configuration);
  // The client's address, scheme and host are Express's (TRUST_PROXY), not Koa's own `proxy`.
  readRequestsAsExpress(provider);
  provider.on("server_error", (ctx: KoaContextWithOIDC, error: Error) => {
    requestLogger(ctx)?.error({ err: error }, "identity provider server error");
  });
  // Discovery's scopes_supported lists the provider's OpenID scopes only; the API's is a resource
  // scope (declaring it among `scopes` would make it an OpenID one and break the API's grants), so
  // it is added to the answer: a client learns there that it may ask for it.
  provider.use(async (ctx, next) => {
    await next();
    if (ctx.oidc?.route !== "discovery") return;
    const body = ctx.body as { scopes_supported?: string[] };
    body.scopes_supported = [...new Set([...(body.scopes_supported ?? []), API_SCOPE])];
  });
  // The provider keeps no address: each time an app (any client but the portal, whose browsers
  // have sessions of their own) gets tokens, the network it came from is kept beside its grant for
  // the account console. Tokens already issued are not taken back if that write fails.
  provider.use(async (ctx, next) => {
    await next();
    const grant = ctx.oidc?.route === "token" && ctx.status === 200 ? ctx.oidc.entities.Grant : undefined;
    if (!grant?.jti || !grant.accountId || grant.clientId === clientId) return;
    try {
      await recordAppUse(db, {
        grantId: grant.jti,
        userId: grant.accountId,
        userAgent: keptUserAgent(ctx.get("user-agent") || null),
        ipPrefix: networkPrefix(ctx.ip),
        at: now(),
      });
    } catch (error) {
      requestLogger(ctx)?.warn({ err: error }, "app sign-in place not recorded");
    }
  });
  return provider;
}
