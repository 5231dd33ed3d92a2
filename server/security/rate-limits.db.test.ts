import { eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { createTestDatabase, type TestDatabase } from "#tests/support/database.ts";
import { openDatabase, type DatabaseHandle } from "#server/db/client.ts";
import { rateLimits } from "#server/db/schema/index.ts";
import { createRateLimits, emailKey, RATE_LIMIT_POLICIES, type RateLimits } from "./rate-limits.ts";

let database: TestDatabase;
/** On PostgreSQL, a second pool to the same database: what another server instance would hold. */
let otherInstance: DatabaseHandle | undefined;
let limits: RateLimits;

const T0 = new Date("2026-03-12T09:00:00Z");
const IP = "203.0.113.7";
const OTHER_IP = "198.51.100.20";
const EMAIL = "mario.rossi@example.it";

beforeAll(async () => {
  database = await createTestDatabase({ seed: false });
  if (database.connection) otherInstance = await openDatabase({ ...database.connection, poolMax: 5 });
});
afterAll(async () => {
  await otherInstance?.close();
  await database.destroy();
});

beforeEach(async () => {
  // The library reads the clock through Date; timers stay real because the drivers need them.
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(T0);
  await database.db.delete(rateLimits);
  limits = createRateLimits(database.db, { clearExpiredByTimeout: false });
});
afterEach(() => {
  limits.close();
  vi.useRealTimers();
});

function advance(seconds: number) {
  vi.setSystemTime(new Date(Date.now() + seconds * 1000));
}

async function fail(times: number, email = EMAIL, ip = IP, on = limits) {
  let last;
  for (let i = 0; i < times; i++) last = await on.recordSignInFailure({ email, ip });
  return last;
}

async function points(key: string) {
  const [row] = await database.db.select().from(rateLimits).where(eq(rateLimits.key, key));
  return row?.points;
}

describe("sign-in protection", () => {
  it("locks an account after 5 wrong passwords, refusing even the right one until the wait is over", async () => {
    await fail(4);
    expect(await limits.checkSignIn({ email: EMAIL, ip: IP })).toEqual({ ok: true });

    expect(await fail(1)).toEqual({ ok: false, limit: "signInAccount", retryAfterSeconds: 60 });
    // The 6th attempt is refused before any password is verified, so whether it is right is moot.
    expect(await limits.checkSignIn({ email: EMAIL, ip: IP })).toEqual({
      ok: false,
      limit: "signInAccount",
      retryAfterSeconds: 60,
    });
    // The account is the typed e-mail, however it is capitalised.
    expect((await limits.checkSignIn({ email: " Mario.Rossi@EXAMPLE.it", ip: OTHER_IP })).ok).toBe(false);

    advance(30);
    expect(await limits.checkSignIn({ email: EMAIL, ip: IP })).toMatchObject({ ok: false, retryAfterSeconds: 30 });
    advance(31);
    expect(await limits.checkSignIn({ email: EMAIL, ip: IP })).toEqual({ ok: true });
  });

  it("doubles the wait of each further lock: the second lasts 2 minutes", async () => {
    await fail(5);
    advance(61);
    await fail(4);
    expect(await limits.checkSignIn({ email: EMAIL, ip: IP })).toEqual({ ok: true });
    expect(await fail(1)).toMatchObject({ ok: false, retryAfterSeconds: 120 });

    advance(61);
    expect(await limits.checkSignIn({ email: EMAIL, ip: IP })).toMatchObject({ ok: false, retryAfterSeconds: 59 });
    advance(60);
    expect(await limits.checkSignIn({ email: EMAIL, ip: IP })).toEqual({ ok: true });
  });

  it("grows the waits 1, 2, 4, 8, 16, 32 minutes, then stays at 60, and starts again after a quiet day", async () => {
    // 8 locks × 5 failures = 40 failures from one address: below the address limit of 50.
    for (const minutes of [1, 2, 4, 8, 16, 32, 60, 60]) {
      expect(await fail(5)).toMatchObject({ ok: false, retryAfterSeconds: minutes * 60 });
      advance(minutes * 60 + 1);
    }
    advance(24 * 60 * 60);
    expect(await fail(5, EMAIL, OTHER_IP)).toMatchObject({ ok: false, retryAfterSeconds: 60 });
  });

  it("does not extend a lock with failures recorded while it holds", async () => {
    await fail(5);
    advance(30);
    // Requests that passed the check just before the lock and then failed.
    expect(await fail(10)).toMatchObject({ ok: false, limit: "signInAccount", retryAfterSeconds: 30 });
    advance(31);
    expect(await limits.checkSignIn({ email: EMAIL, ip: IP })).toEqual({ ok: true });
    // They did not count as locks either: the next lock is the second one, 2 minutes.
    expect(await fail(5)).toMatchObject({ ok: false, retryAfterSeconds: 120 });
  });

  it("clears the consecutive failures on a successful sign-in, but not a lock", async () => {
    await fail(4);
    await limits.recordSignInSuccess({ email: "MARIO.ROSSI@example.it", ip: IP });
    expect(await points(`signInAccount:${emailKey(EMAIL)}`)).toBeUndefined();
    expect(await fail(4)).toEqual({ ok: true });
    expect(await limits.checkSignIn({ email: EMAIL, ip: IP })).toEqual({ ok: true });
    expect(await fail(1)).toMatchObject({ ok: false });

    await limits.recordSignInSuccess({ email: EMAIL, ip: IP });
    expect(await limits.checkSignIn({ email: EMAIL, ip: IP })).toMatchObject({ ok: false, retryAfterSeconds: 60 });
  });

  it("leaves other accounts alone, from another address or the same one", async () => {
    await fail(5);
    expect(await limits.checkSignIn({ email: "giulia.bianchi@example.it", ip: OTHER_IP })).toEqual({ ok: true });
    expect(await limits.checkSignIn({ email: "giulia.bianchi@example.it", ip: IP })).toEqual({ ok: true });
    expect(await limits.recordSignInFailure({ email: "giulia.bianchi@example.it", ip: OTHER_IP })).toEqual({ ok: true });
  });

  it("locks an address for an hour after 50 failures across different accounts", async () => {
    const { points: perIp } = RATE_LIMIT_POLICIES.signInIp;
    expect(perIp).toBe(50);
    for (let i = 1; i < perIp; i++) {
      expect(await limits.recordSignInFailure({ email: `user${i}@example.it`, ip: IP })).toEqual({ ok: true });
    }
    expect(await limits.checkSignIn({ email: "new@example.it", ip: IP })).toEqual({ ok: true });

    expect(await limits.recordSignInFailure({ email: "user50@example.it", ip: IP })).toEqual({
      ok: false,
      limit: "signInIp",
      retryAfterSeconds: 3600,
    });
    expect(await limits.checkSignIn({ email: "new@example.it", ip: IP })).toEqual({
      ok: false,
      limit: "signInIp",
      retryAfterSeconds: 3600,
    });
    expect(await limits.checkSignIn({ email: "new@example.it", ip: OTHER_IP })).toEqual({ ok: true });

    advance(59 * 60);
    expect(await limits.checkSignIn({ email: "new@example.it", ip: IP })).toMatchObject({ ok: false, retryAfterSeconds: 60 });
    advance(61);
    expect(await limits.checkSignIn({ email: "new@example.it", ip: IP })).toEqual({ ok: true });
  });

  it("counts IPv6 clients per /64", async () => {
    for (let i = 0; i < 50; i++) {
      await limits.recordSignInFailure({ email: `user${i}@example.it`, ip: `2001:db8:aa:bb::${i.toString(16)}` });
    }
    expect((await limits.checkSignIn({ email: "new@example.it", ip: "2001:db8:aa:bb:1:2:3:4" })).ok).toBe(false);
    expect((await limits.checkSignIn({ email: "new@example.it", ip: "2001:db8:aa:cc::1" })).ok).toBe(true);
  });

  it("counts 20 concurrent failures of one account exactly, and locks it once", async () => {
    const pools = [limits, otherInstance ? createRateLimits(otherInstance.db, { clearExpiredByTimeout: false }) : limits];
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => pools[i % 2]!.recordSignInFailure({ email: EMAIL, ip: IP })),
    );
    expect(await points(`signInAccount:${emailKey(EMAIL)}`)).toBe(20);
    expect(await points(`signInIp:${IP}`)).toBe(20);
    expect(await points(`signInAccount.locks:${emailKey(EMAIL)}`)).toBe(1);
    expect(results.filter((r) => r.ok)).toHaveLength(4);
    expect(await limits.checkSignIn({ email: EMAIL, ip: IP })).toMatchObject({ ok: false, retryAfterSeconds: 60 });
  });
});

describe("registration and password reset", () => {
  it("allows 10 registrations an hour per address", async () => {
    for (let i = 0; i < 10; i++) expect(await limits.checkRegistration(IP)).toEqual({ ok: true });
    expect(await limits.checkRegistration(IP)).toEqual({ ok: false, limit: "registrationIp", retryAfterSeconds: 3600 });
    expect(await limits.checkRegistration(OTHER_IP)).toEqual({ ok: true });

    advance(30 * 60);
    // Refused calls do not push the end of the window.
    expect(await limits.checkRegistration(IP)).toMatchObject({ ok: false, retryAfterSeconds: 1800 });
    advance(30 * 60 + 1);
    expect(await limits.checkRegistration(IP)).toEqual({ ok: true });
  });

  it("allows 5 reset requests an hour per address and 3 per target e-mail", async () => {
    for (let i = 0; i < 5; i++) {
      expect(await limits.checkPasswordResetRequest({ ip: IP, email: `user${i}@example.it` })).toEqual({ ok: true });
    }
    expect(await limits.checkPasswordResetRequest({ ip: IP, email: "user9@example.it" })).toMatchObject({
      ok: false,
      limit: "passwordResetRequestIp",
    });
    expect(await limits.checkPasswordResetRequest(IP)).toMatchObject({ ok: false, limit: "passwordResetRequestIp" });

    for (const ip of ["192.0.2.1", "192.0.2.2", "192.0.2.3"]) {
      expect(await limits.checkPasswordResetRequest({ ip, email: EMAIL })).toEqual({ ok: true });
    }
    expect(await limits.checkPasswordResetRequest({ ip: "192.0.2.4", email: "Mario.Rossi@example.it " })).toEqual({
      ok: false,
      limit: "passwordResetRequestEmail",
      retryAfterSeconds: 3600,
    });

    advance(3601);
    expect(await limits.checkPasswordResetRequest({ ip: IP, email: EMAIL })).toEqual({ ok: true });
  });

  it("allows 20 reset token submissions an hour per address", async () => {
    for (let i = 0; i < 20; i++) expect(await limits.checkPasswordResetAttempt(IP)).toEqual({ ok: true });
    expect(await limits.checkPasswordResetAttempt(IP)).toEqual({
      ok: false,
      limit: "passwordResetAttemptIp",
      retryAfterSeconds: 3600,
    });
    advance(3601);
    expect(await limits.checkPasswordResetAttempt(IP)).toEqual({ ok: true });
  });
});

describe("activation codes", () => {
  const USER = "0b9f6a52-6a3e-4c3e-9d55-2d2f1f0c7a11";
  const OTHER_USER = "5c1d7e0a-0f4b-4f8e-8a63-8e4a0a9b6d22";

  it("locks a customer for 15 minutes after 10 wrong codes, from whatever address", async () => {
    for (let i = 1; i < 10; i++) {
      expect(await limits.recordActivationFailure({ userId: USER, ip: `192.0.2.${i}` })).toEqual({ ok: true });
    }
    expect(await limits.checkActivation({ userId: USER, ip: IP })).toEqual({ ok: true });
    expect(await limits.recordActivationFailure({ userId: USER, ip: IP })).toEqual({
      ok: false,
      limit: "activationUser",
      retryAfterSeconds: 900,
    });
    expect(await limits.checkActivation({ userId: USER, ip: OTHER_IP })).toMatchObject({ ok: false, limit: "activationUser" });
    expect(await limits.checkActivation({ userId: OTHER_USER, ip: IP })).toEqual({ ok: true });

    advance(899);
    expect(await limits.checkActivation({ userId: USER, ip: IP })).toMatchObject({ ok: false, retryAfterSeconds: 1 });
    advance(2);
    expect(await limits.checkActivation({ userId: USER, ip: IP })).toEqual({ ok: true });
  });

  it("forgets a customer's failures 15 minutes after the first", async () => {
    for (let i = 0; i < 9; i++) await limits.recordActivationFailure({ userId: USER, ip: `192.0.2.${i}` });
    advance(15 * 60 + 1);
    expect(await limits.recordActivationFailure({ userId: USER, ip: IP })).toEqual({ ok: true });
    expect(await limits.checkActivation({ userId: USER, ip: IP })).toEqual({ ok: true });
  });

  it("locks an address for an hour after 50 wrong codes across customers", async () => {
    for (let i = 1; i < 50; i++) {
      const userId = `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`;
      expect(await limits.recordActivationFailure({ userId, ip: IP })).toEqual({ ok: true });
    }
    expect(await limits.recordActivationFailure({ userId: USER, ip: IP })).toEqual({
      ok: false,
      limit: "activationIp",
      retryAfterSeconds: 3600,
    });
    expect(await limits.checkActivation({ userId: OTHER_USER, ip: IP })).toMatchObject({ ok: false, limit: "activationIp" });
    expect(await limits.checkActivation({ userId: OTHER_USER, ip: OTHER_IP })).toEqual({ ok: true });
    advance(3601);
    expect(await limits.checkActivation({ userId: OTHER_USER, ip: IP })).toEqual({ ok: true });
  });
});

describe("shared by every server instance", () => {
  it("sees the counts another instance wrote", async () => {
    const other = createRateLimits((otherInstance ?? database).db, { clearExpiredByTimeout: false });
    await fail(3, EMAIL, IP, limits);
    await fail(2, EMAIL, IP, other);
    expect(await limits.checkSignIn({ email: EMAIL, ip: IP })).toMatchObject({ ok: false, retryAfterSeconds: 60 });
    expect(await other.checkSignIn({ email: EMAIL, ip: IP })).toMatchObject({ ok: false, retryAfterSeconds: 60 });

    for (let i = 0; i < 10; i++) await (i % 2 ? limits : other).checkRegistration(IP);
    expect((await other.checkRegistration(IP)).ok).toBe(false);
    expect((await limits.checkRegistration(IP)).ok).toBe(false);
  });
});

describe("expired rows", () => {
  it("are deleted by purgeExpired, live ones are kept", async () => {
    await limits.checkRegistration(IP);
    await fail(5);
    advance(120);
    await limits.checkPasswordResetAttempt(IP);
    advance(3500);
    // At +3620 s the registration window, the account lock and the address failures (all from
    // +0 s) are over; the lock history (24 h) and the reset window (1 h from +120 s) are not.
    const purged = await limits.purgeExpired();
    const keys = (await database.db.select({ key: rateLimits.key }).from(rateLimits)).map((r) => r.key).sort();
    expect(keys).toEqual([`passwordResetAttemptIp:${IP}`, `signInAccount.locks:${emailKey(EMAIL)}`]);
    expect(purged).toBe(3);
  });

  it("are deleted periodically when clearExpiredByTimeout is on, until close()", async () => {
    const periodic = createRateLimits(database.db, { clearExpiredByTimeout: true, purgeIntervalSeconds: 0.05 });
    try {
      await periodic.checkRegistration(IP);
      advance(3601);
      await vi.waitFor(async () => expect(await points(`registrationIp:${IP}`)).toBeUndefined(), { timeout: 5000 });
    } finally {
      periodic.close();
    }
  });
});
