// The API's bearer tokens: access tokens the portal's identity provider issued for the API
// (a JWT, RFC 9068), checked by signature, issuer, audience and expiry, then against the grant
// they belong to, so a token of a signed-out session or a revoked grant is refused at once, and
// against the account, which must still be active.
import { createLocalJWKSet, jwtVerify, type JWK } from "jose";
import type Provider from "oidc-provider";
import type { AccountsService } from "#server/accounts/service.ts";

/** The caller proved by a bearer token: the customer, and the grant the token belongs to. */
export type ApiCaller = { userId: string; grantId: string; clientId: string };

export type AccessTokenOptions = {
  provider: Provider;
  signingKeys: JWK[];
  issuer: string;
  audience: string;
  accounts: Pick<AccountsService, "findActiveById">;
};

/** A private JWK's public half. */
function publicPart({ d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, oth: _oth, ...rest }: JWK): JWK {
  return rest;
}

export function createAccessTokens({ provider, signingKeys, issuer, audience, accounts }: AccessTokenOptions) {
  const keys = createLocalJWKSet({ keys: signingKeys.map(publicPart) });

  return {
    /** The caller a bearer token proves, or null: malformed, forged, expired, for another audience, revoked. */
    async verify(token: string): Promise<ApiCaller | null> {
      try {
        // The provider stamps its tokens with the real time, so they are checked against it too.
        const { payload } = await jwtVerify(token, keys, { issuer, audience, typ: "at+jwt", algorithms: ["RS256"] });
        const { sub, gid, client_id: clientId } = payload;
        if (typeof sub !== "string" || typeof gid !== "string" || typeof clientId !== "string") return null;
        const grant = await provider.Grant.find(gid);
        if (!grant || grant.accountId !== sub || grant.clientId !== clientId) return null;
        if (!(await accounts.findActiveById(sub))) return null;
        return { userId: sub, grantId: gid, clientId };
      } catch {
        return null;
      }
    },
  };
}

export type AccessTokens = ReturnType<typeof createAccessTokens>;
