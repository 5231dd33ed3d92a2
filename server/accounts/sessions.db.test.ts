import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "#tests/support/database.ts";
import { createAccountsService } from "./service.ts";
import { createSessionStore, SESSION_ABSOLUTE_TIMEOUT_MS, SESSION_IDLE_TIMEOUT_MS, type ProviderTokens } from "./sessions.ts";
import { createHash } from "node:crypto";
import { eq } from "drizzle-orm";
import { sessions } from "#server/db/schema/index.ts";

let database: TestDatabase;
let userId: string;
let clock = new Date("2026-11-22T10:00:00Z");
const now = () => clock;
const tokens = (expiresAt: Date): ProviderTokens => ({
  accessToken: "at",
  accessTokenExpiresAt: expiresAt,
  refreshToken: "rt",
  idToken: "it",
});
const hashOf = (rawId: string) => createHash("sha256").update(rawId).digest("base64url");

beforeAll(async () => {
  database = await createTestDatabase({ seed: false });
  const r = await createAccountsService(database.db).register({
    firstname: "A",
    lastname: "B",
    email: "s@example.it",
    password: "Segreta1!",
  });
  if (!r.ok) throw new Error("setup");
  userId = r.user.id;
});
afterAll(() => database.destroy());

describe("sessions", () => {
  it("finds a session by its raw id only, and stores only a hash", async () => {
    const store = createSessionStore(database.db, now);
    const rawId = await store.create(userId, tokens(new Date(clock.getTime() + 60_000)));
    expect(rawId).toMatch(/^[A-Za-z0-9_-]{43}$/); // 256 bits
    expect((await store.find(rawId))?.session.userId).toBe(userId);
    expect((await store.find(rawId))?.user.id).toBe(userId);
    expect(await store.find(hashOf(rawId))).toBeNull();
  });

  it("ends after the idle timeout and after the absolute timeout", async () => {
    const start = new Date("2026-11-22T10:00:00Z");
    clock = start;
    const store = createSessionStore(database.db, now);
    const idle = await store.create(userId, tokens(start));
    clock = new Date(start.getTime() + SESSION_IDLE_TIMEOUT_MS + 1000);
    expect(await store.find(idle)).toBeNull();

    clock = start;
    const active = await store.create(userId, tokens(start));
    // Visited every few days: alive until the absolute limit.
    for (let t = 0; t < SESSION_ABSOLUTE_TIMEOUT_MS - SESSION_IDLE_TIMEOUT_MS; t += SESSION_IDLE_TIMEOUT_MS / 2) {
      clock = new Date(start.getTime() + t);
      expect(await store.find(active)).not.toBeNull();
    }
    clock = new Date(start.getTime() + SESSION_ABSOLUTE_TIMEOUT_MS + 1000);
    expect(await store.find(active)).toBeNull();
  });

  it("ends the other sessions of a user and keeps the current one", async () => {
    clock = new Date("2026-11-22T12:00:00Z");
    const store = createSessionStore(database.db, now);
    const current = await store.create(userId, tokens(clock));
    const other = await store.create(userId, tokens(clock));
    await store.destroyAllForUser(userId, current);
    expect(await store.find(current)).not.toBeNull();
    expect(await store.find(other)).toBeNull();
  });

  it("refreshes expired tokens once for 10 parallel requests", async () => {
    clock = new Date("2026-11-22T13:00:00Z");
    const store = createSessionStore(database.db, now);
    const rawId = await store.create(userId, tokens(new Date(clock.getTime() - 1000)));
    let calls = 0;
    const refresh = async () => {
      calls++;
      await new Promise((resolve) => setTimeout(resolve, 100));
      return tokens(new Date(clock.getTime() + 600_000));
    };
    const results = await Promise.all(Array.from({ length: 10 }, () => store.refreshTokens(hashOf(rawId), refresh)));
    expect(results.every(Boolean)).toBe(true);
    expect(calls).toBe(1);
  });

  it("keeps the ID token when a refresh brings none, and finds the session renewed", async () => {
    const store = createSessionStore(database.db, now);
    const rawId = await store.create(userId, tokens(new Date(clock.getTime() - 1000)));
    const renewedUntil = new Date(clock.getTime() + 600_000);
    const renewed = await store.refreshTokens(hashOf(rawId), async (refreshToken) => {
      expect(refreshToken).toBe("rt");
      return { accessToken: "at2", accessTokenExpiresAt: renewedUntil, refreshToken: "rt2", idToken: "" };
    });
    expect(renewed).toBe(true);
    expect((await store.find(rawId))?.session.accessTokenExpiresAt).toEqual(renewedUntil);
    const [row] = await database.db
      .select()
      .from(sessions)
      .where(eq(sessions.idHash, hashOf(rawId)));
    expect(row).toMatchObject({ accessToken: "at2", refreshToken: "rt2", idToken: "it" });
  });

  it("deletes the session when the provider refuses the refresh", async () => {
    const store = createSessionStore(database.db, now);
    const rawId = await store.create(userId, tokens(new Date(clock.getTime() - 1000)));
    expect(await store.refreshTokens(hashOf(rawId), async () => null)).toBe(false);
    expect(await store.find(rawId)).toBeNull();
  });
});
