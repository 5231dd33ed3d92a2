// A second, local OpenID provider standing in for the social login's upstream (e.g. Google).
// It signs in a fixed person at once: no screens to drive.
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { exportJWK, generateKeyPair } from "jose";
import Provider from "oidc-provider";

export type UpstreamPerson = { sub: string; email: string; email_verified: boolean; given_name: string; family_name: string };

export async function startUpstreamProvider({ redirectUri, person }: { redirectUri: string; person: UpstreamPerson }) {
  const app = express();
  const server: Server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const client = { clientId: "portal-social", clientSecret: "upstream-secret-0123456789-0123456789" };
  const { privateKey } = await generateKeyPair("RS256", { extractable: true });
  const provider = new Provider(issuer, {
    jwks: { keys: [{ ...(await exportJWK(privateKey)), kid: "upstream", alg: "RS256", use: "sig" }] },
    clients: [
      {
        client_id: client.clientId,
        client_secret: client.clientSecret,
        redirect_uris: [redirectUri],
        grant_types: ["authorization_code"],
        response_types: ["code"],
      },
    ],
    cookies: { keys: ["upstream-cookie-key-0123456789"] },
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["given_name", "family_name"] },
    conformIdTokenClaims: false,
    features: { devInteractions: { enabled: false } },
    findAccount: async (_ctx, sub) => (sub === person.sub ? { accountId: sub, claims: async () => ({ ...person }) } : undefined),
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    async loadExistingGrant(ctx) {
      const grant = new ctx.oidc.provider.Grant({ accountId: ctx.oidc.session!.accountId!, clientId: ctx.oidc.client!.clientId });
      grant.addOIDCScope("openid email profile");
      await grant.save();
      return grant;
    },
  });
  app.get("/interaction/:uid", async (req, res) => {
    await provider.interactionFinished(req, res, { login: { accountId: person.sub } });
  });
  app.use(provider.callback());
  return { issuer, ...client, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
