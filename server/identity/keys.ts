// The identity provider's signing keys, kept in the database so every instance signs and
// publishes the same ones. Generated at first start; `rotateSigningKey` adds a newer one.
import { randomUUID } from "node:crypto";
import { desc, isNull } from "drizzle-orm";
import { exportJWK, generateKeyPair } from "jose";
import type { JWK } from "jose";
import type { Database } from "#server/db/client.ts";
import { oidcSigningKeys } from "#server/db/schema/index.ts";

const ALGORITHM = "RS256";

async function newKey(): Promise<JWK> {
  const { privateKey } = await generateKeyPair(ALGORITHM, { extractable: true, modulusLength: 2048 });
  return { ...(await exportJWK(privateKey)), kid: randomUUID(), alg: ALGORITHM, use: "sig" };
}

/** Creates the first signing key if there is none. Run it under the start-up lock. */
export async function ensureSigningKey(db: Database): Promise<void> {
  const [existing] = await db
    .select({ kid: oidcSigningKeys.kid })
    .from(oidcSigningKeys)
    .where(isNull(oidcSigningKeys.retiredAt))
    .limit(1);
  if (!existing) await rotateSigningKey(db);
}

/** Adds a new key, which signs from the next start on; older keys keep verifying. */
export async function rotateSigningKey(db: Database): Promise<string> {
  const jwk = await newKey();
  await db.insert(oidcSigningKeys).values({ kid: jwk.kid!, privateJwk: jwk });
  return jwk.kid!;
}

/** Active private keys, newest first: oidc-provider signs with the first. */
export async function loadSigningKeys(db: Database): Promise<JWK[]> {
  const rows = await db
    .select({ jwk: oidcSigningKeys.privateJwk })
    .from(oidcSigningKeys)
    .where(isNull(oidcSigningKeys.retiredAt))
    .orderBy(desc(oidcSigningKeys.createdAt));
  return rows.map((r) => r.jwk as JWK);
}
