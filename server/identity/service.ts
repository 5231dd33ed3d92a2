// What the portal's pages need from the identity provider: the pending login interaction of this
// browser, and finishing it once the customer has proved who they are.
import { IncomingMessage, ServerResponse } from "node:http";
import { Socket } from "node:net";
import { sql } from "drizzle-orm";
import type Provider from "oidc-provider";
import type { Database } from "#server/db/client.ts";
import { oidcPayloads } from "#server/db/schema/index.ts";

/**
 * oidc-provider reads its interaction cookie from a Node request. Route actions have a Fetch
 * Request, so the cookie header is carried over to a stand-in Node request; nothing is written
 * to the stand-in response.
 */
function nodeRequestWithCookies(cookieHeader: string | null) {
  const req = new IncomingMessage(new Socket());
  req.headers = cookieHeader ? { cookie: cookieHeader } : {};
  req.url = "/";
  req.method = "GET";
  return { req, res: new ServerResponse(req) };
}

export type LoginInteraction = { uid: string; loginHint: string | null };

export function createIdentityService(provider: Provider, db: Database) {
  async function interactionFor(uid: string, cookieHeader: string | null) {
    const { req, res } = nodeRequestWithCookies(cookieHeader);
    try {
      const interaction = await provider.interactionDetails(req, res);
      // The address and this browser's interaction cookie must name the same interaction.
      return interaction.uid === uid ? interaction : null;
    } catch {
      return null; // no cookie, expired or unknown interaction
    }
  }

  return {
    provider,

    async getLoginInteraction(uid: string, cookieHeader: string | null): Promise<LoginInteraction | null> {
      const interaction = await interactionFor(uid, cookieHeader);
      if (!interaction || interaction.prompt.name !== "login") return null;
      const hint = interaction.params.login_hint;
      return { uid, loginHint: typeof hint === "string" ? hint : null };
    },

    /** Records who signed in and returns where the browser continues the authorization. */
    async finishLogin(uid: string, cookieHeader: string | null, accountId: string): Promise<string | null> {
      const interaction = await interactionFor(uid, cookieHeader);
      if (!interaction) return null;
      const { req, res } = nodeRequestWithCookies(cookieHeader);
      return provider.interactionResult(req, res, { login: { accountId, remember: true } }, { mergeWithLastSubmission: false });
    },

    /**
     * Sign-out: ends the provider's side of one portal session at once — the grant behind its
     * refresh token, every code and token of that grant, and the provider session (this
     * browser's) that holds it. The portal and its provider share a process and a database, so
     * no round trip through the provider's logout page is needed, and no token travels in a URL.
     */
    async endSessionOfRefreshToken(refreshToken: string): Promise<void> {
      const grant = sql`(select ${oidcPayloads.grantId} from ${oidcPayloads} where ${oidcPayloads.type} = 'RefreshToken' and ${oidcPayloads.id} = ${refreshToken})`;
      await db.delete(oidcPayloads).where(sql`
        ${oidcPayloads.grantId} = ${grant}
        or (${oidcPayloads.type} = 'Grant' and ${oidcPayloads.id} = ${grant})
        or (${oidcPayloads.type} = 'Session' and exists (
          select 1 from jsonb_each(coalesce(${oidcPayloads.payload} -> 'authorizations', '{}'::jsonb)) as authorization_entry
          where authorization_entry.value ->> 'grantId' = ${grant}
        ))`);
    },

    /** The name a client is shown by ('App Novalex'); its id when the provider does not know it. */
    async clientName(clientId: string): Promise<string> {
      return (await provider.Client.find(clientId))?.clientName ?? clientId;
    },

    /** Ends every provider session, grant and token of an account (password reset, deletion). */
    async revokeAccount(accountId: string): Promise<void> {
      await db.delete(oidcPayloads).where(sql`${oidcPayloads.payload} ->> 'accountId' = ${accountId}`);
    },
  };
}
