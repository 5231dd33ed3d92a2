// The provider's grants of an account, read and ended straight in its table (oidc_payloads): the
// portal and its provider share a database, so the account console and a password change need no
// round trip through the provider. A grant ended here is refused at once everywhere: its refresh
// tokens are gone from the table, and the API checks every access token's grant
// (server/identity/access-tokens.ts).
import { createHash } from "node:crypto";
import { and, eq, gt, isNull, ne, or, sql } from "drizzle-orm";
import type { Database, Queryable } from "#server/db/client.ts";
import { appSignIns, oidcPayloads, sessions } from "#server/db/schema/index.ts";

/** Same digest as server/accounts/sessions.ts: the table keeps only the id's SHA-256. */
const sessionIdHash = (rawId: string) => createHash("sha256").update(rawId).digest("base64url");

const ofAccount = (userId: string) => sql`${oidcPayloads.payload} ->> 'accountId' = ${userId}`;

/** The provider grant behind a portal session (through its refresh token), or null. */
export async function grantOfSession(db: Queryable, rawSessionId: string): Promise<string | null> {
  const [row] = await db
    .select({ grantId: oidcPayloads.grantId })
    .from(sessions)
    .innerJoin(oidcPayloads, and(eq(oidcPayloads.type, "RefreshToken"), eq(oidcPayloads.id, sessions.refreshToken)))
    .where(eq(sessions.idHash, sessionIdHash(rawSessionId)));
  return row?.grantId ?? null;
}

/**
 * Deletes the provider's sessions, grants, codes and tokens of the account, except the grant
 * `keepGrantId`, its tokens and the provider session that holds it. Without a grant to keep it
 * deletes everything, as `identity.revokeAccount` does. Returns the client of each grant ended.
 */
export async function endOtherProviderSessions(db: Queryable, userId: string, keepGrantId: string | null): Promise<string[]> {
  // Never null (a null would make `not kept` null, and the row would survive).
  const kept = keepGrantId
    ? sql`(
    coalesce(${oidcPayloads.grantId}, '') = ${keepGrantId}
    or (${oidcPayloads.type} = 'Grant' and ${oidcPayloads.id} = ${keepGrantId})
    or (${oidcPayloads.type} = 'Session' and exists (
      select 1 from jsonb_each(coalesce(${oidcPayloads.payload} -> 'authorizations', '{}'::jsonb)) as authorization_entry
      where authorization_entry.value ->> 'grantId' = ${keepGrantId}
    ))
  )`
    : sql`false`;
  const ended = await db
    .delete(oidcPayloads)
    .where(and(ofAccount(userId), sql`not ${kept}`))
    .returning({ type: oidcPayloads.type, clientId: sql<string>`${oidcPayloads.payload} ->> 'clientId'` });
  await forgetEndedApps(db, userId);
  return ended.filter((row) => row.type === "Grant").map((row) => row.clientId);
}

/**
 * An app's grant got tokens (its code exchange or a refresh): where from, as the console shows it.
 * The account's rows of grants that are gone (ended, expired) go at the same time.
 */
export async function recordAppUse(
  db: Queryable,
  use: { grantId: string; userId: string; userAgent: string | null; ipPrefix: string | null; at: Date },
): Promise<void> {
  const seen = { userAgent: use.userAgent, ipPrefix: use.ipPrefix, lastSeenAt: use.at };
  await db
    .insert(appSignIns)
    .values({ grantId: use.grantId, userId: use.userId, ...seen })
    .onConflictDoUpdate({ target: appSignIns.grantId, set: seen });
  await forgetEndedApps(db, use.userId);
}

/** Deletes the account's app places whose grant no longer exists. */
async function forgetEndedApps(db: Queryable, userId: string): Promise<void> {
  await db
    .delete(appSignIns)
    .where(
      and(
        eq(appSignIns.userId, userId),
        sql`not exists (select 1 from ${oidcPayloads} where ${oidcPayloads.type} = 'Grant' and ${oidcPayloads.id} = ${appSignIns.grantId})`,
      ),
    );
}

/** An app's grant as the account console lists it. */
export type AppGrant = {
  /** The grant's id: it names the grant in the console's form and proves nothing by itself. */
  id: string;
  clientId: string;
  /** When the app signed in (the grant was made). */
  signedInAt: Date;
  /** When the app last got tokens: its sign-in, or its latest refresh. */
  lastUsedAt: Date;
  /** The network it last got tokens from (IPv4 /24, IPv6 /48), or null when not known. */
  ipPrefix: string | null;
};

/** A provider timestamp (seconds) as a date. */
const fromSeconds = (seconds: number) => new Date(seconds * 1000);

/**
 * The account's live grants of clients other than `exceptClientId` (the portal's own, whose grants
 * sit behind the browsers' sessions), the most recently used first. The times are the provider's
 * own `iat` stamps.
 */
export async function listGrants(db: Queryable, userId: string, exceptClientId: string, now: Date): Promise<AppGrant[]> {
  const live = or(isNull(oidcPayloads.expiresAt), gt(oidcPayloads.expiresAt, now));
  const lastRefresh = sql<number | null>`(
    select max((token.payload ->> 'iat')::bigint) from ${oidcPayloads} as token
    where token.type = 'RefreshToken' and token.grant_id = ${oidcPayloads.id}
  )`;
  const rows = await db
    .select({
      id: oidcPayloads.id,
      clientId: sql<string>`${oidcPayloads.payload} ->> 'clientId'`,
      iat: sql<number>`(${oidcPayloads.payload} ->> 'iat')::bigint`,
      lastRefresh,
      ipPrefix: appSignIns.ipPrefix,
    })
    .from(oidcPayloads)
    .leftJoin(appSignIns, eq(appSignIns.grantId, oidcPayloads.id))
    .where(
      and(
        eq(oidcPayloads.type, "Grant"),
        ofAccount(userId),
        ne(sql`${oidcPayloads.payload} ->> 'clientId'`, exceptClientId),
        live,
      ),
    );
  return rows
    .map((row) => ({
      id: row.id,
      clientId: row.clientId,
      signedInAt: fromSeconds(Number(row.iat)),
      lastUsedAt: fromSeconds(Math.max(Number(row.iat), Number(row.lastRefresh ?? 0))),
      ipPrefix: row.ipPrefix,
    }))
    .sort((a, b) => b.lastUsedAt.getTime() - a.lastUsedAt.getTime());
}

/**
 * Ends one grant of the account, of a client other than `exceptClientId`, with every code and
 * token of it. Returns its client, or null when the account has no such grant (ended already, or
 * another account's: nothing changes). The provider session that made it stays: an app (a native
 * client) signs in with the password every time, never silently from that session.
 */
export async function endGrant(db: Database, userId: string, grantId: string, exceptClientId: string): Promise<string | null> {
  return db.transaction(async (tx) => {
    const [grant] = await tx
      .delete(oidcPayloads)
      .where(
        and(
          eq(oidcPayloads.type, "Grant"),
          eq(oidcPayloads.id, grantId),
          ofAccount(userId),
          ne(sql`${oidcPayloads.payload} ->> 'clientId'`, exceptClientId),
        ),
      )
      .returning({ clientId: sql<string>`${oidcPayloads.payload} ->> 'clientId'` });
    if (!grant) return null;
    await tx.delete(oidcPayloads).where(eq(oidcPayloads.grantId, grantId));
    await forgetEndedApps(tx, userId);
    return grant.clientId;
  });
}
