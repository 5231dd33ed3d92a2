import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "#tests/support/database.ts";
import { passwordResetTokens, users } from "#server/db/schema/index.ts";
import { createPasswordResets, RESET_TOKEN_TTL_MS } from "./password-resets.ts";
import { createAccountsService } from "./service.ts";

let database: TestDatabase;
let userId: string;
let clock = new Date("2026-11-22T10:00:00Z");

beforeAll(async () => {
  database = await createTestDatabase({ seed: false });
  const r = await createAccountsService(database.db).register({
    firstname: "R",
    lastname: "S",
    email: "r@example.it",
    password: "Vecchia1!",
  });
  if (!r.ok) throw new Error("setup");
  userId = r.user.id;
});
afterAll(() => database.destroy());

describe("password reset tokens", () => {
  it("are 256-bit, stored hashed, and set the password once", async () => {
    const resets = createPasswordResets(database.db, () => clock);
    const token = await resets.issue(userId, "reset");
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const stored = await database.db.select().from(passwordResetTokens).where(eq(passwordResetTokens.userId, userId));
    expect(stored.map((t) => t.tokenHash)).not.toContain(token);

    expect(await resets.isUsable(token, "reset")).toBe(true);
    expect(await resets.isUsable(token, "migrated")).toBe(false);
    expect(await resets.resetPassword(token, "reset", "Nuova1234!")).toEqual({ userId, email: "r@example.it" });
    expect(await resets.isUsable(token, "reset")).toBe(false);
    expect(await resets.resetPassword(token, "reset", "Altra1234!")).toBeNull();
    const accounts = createAccountsService(database.db);
    expect((await accounts.verifyCredentials("r@example.it", "Nuova1234!")).ok).toBe(true);
  });

  it("expire after one hour", async () => {
    const resets = createPasswordResets(database.db, () => clock);
    const token = await resets.issue(userId, "reset");
    clock = new Date(clock.getTime() + RESET_TOKEN_TTL_MS + 1);
    expect(await resets.isUsable(token, "reset")).toBe(false);
    expect(await resets.resetPassword(token, "reset", "Nuova1234!")).toBeNull();
  });

  it("change the password exactly once when 20 submissions race with one token", async () => {
    const resets = createPasswordResets(database.db, () => clock);
    const token = await resets.issue(userId, "reset");
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => resets.resetPassword(token, "reset", `Gara${i}abcd!`)),
    );
    const winners = results.map((r, i) => (r ? i : -1)).filter((i) => i >= 0);
    expect(winners).toHaveLength(1);
    const accounts = createAccountsService(database.db);
    expect((await accounts.verifyCredentials("r@example.it", `Gara${winners[0]}abcd!`)).ok).toBe(true);
  });

  it("let a migrated account set its first password", async () => {
    await database.db.update(users).set({ migratedFromShop: true, passwordHash: null }).where(eq(users.id, userId));
    const accounts = createAccountsService(database.db);
    expect(await accounts.verifyCredentials("r@example.it", "Qualsiasi1!")).toMatchObject({ ok: false, reason: "migrated" });
    const resets = createPasswordResets(database.db, () => clock);
    const token = await resets.issue(userId, "migrated");
    expect(await resets.resetPassword(token, "migrated", "Prima1234!")).toEqual({ userId, email: "r@example.it" });
    expect((await accounts.verifyCredentials("r@example.it", "Prima1234!")).ok).toBe(true);
  });
});
