// Signed-in customers for route tests: an account with a profession and a portal session.
import { randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import { createSessionStore } from "#server/accounts/sessions.ts";
import type { Database } from "#server/db/client.ts";
import { professions, users } from "#server/db/schema/index.ts";
import type { Services } from "#server/services.ts";
import { sessionCookieHeader } from "./requests.ts";

export type ProfessionCode = "student" | "professor" | "other";

/** A customer whose first access is complete (profession set), with the Cookie header of a session. */
export async function signedInCustomer(services: Services, db: Database, profession: ProfessionCode = "student") {
  const email = `cliente.${randomBytes(5).toString("hex")}@example.it`;
  const result = await services.accounts.register({ firstname: "Maria", lastname: "Rossi", email, password: "Segreta1!" });
  if (!result.ok) throw new Error("setup: registration failed");
  const [row] = await db.select({ id: professions.id }).from(professions).where(eq(professions.code, profession));
  await db.update(users).set({ professionId: row!.id }).where(eq(users.id, result.user.id));
  return { user: { ...result.user, professionId: row!.id }, cookie: await sessionCookie(services, db, result.user.id) };
}

/**
 * The Cookie header of a new portal session of the customer, made at the services' time: a test
 * that moves their clock further than a session lives signs in again with it.
 */
export async function sessionCookie(services: Services, db: Database, userId: string) {
  const rawId = await createSessionStore(db, services.clock).create(userId, {
    accessToken: "at",
    accessTokenExpiresAt: new Date(services.clock().getTime() + 10 * 60_000),
    refreshToken: "rt",
    idToken: "it",
  });
  return sessionCookieHeader(rawId);
}
