// Rate limits of the identity flows (sign-in, registration, password reset, the provider's token
// endpoint) and of activation codes, kept in the `rate_limits` table so that every server
// instance sees the same counts.
// The counters are rate-limiter-flexible's `RateLimiterDrizzle` (one atomic INSERT … ON CONFLICT
// DO UPDATE per point); this module adds the policies, the sign-in locks with growing waits,
// and the purge of expired rows.
import { createHash } from "node:crypto";
import { isIPv6 } from "node:net";
import { and, eq, inArray, lt } from "drizzle-orm";
import { RateLimiterDrizzle, RateLimiterRes } from "rate-limiter-flexible";
import type { Database } from "#server/db/client.ts";
import { rateLimits } from "#server/db/schema/index.ts";

const MINUTE = 60;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

type AttemptPolicy = {
  /**
   * Every call of the check spends a point, whatever its outcome: `points` calls per window
   * pass, the next ones are refused until the window ends.
   */
  kind: "attempts";
  points: number;
  /** Length of the window in seconds; it starts at the first call. */
  duration: number;
};

type FailurePolicy = {
  /**
   * Only failures are counted (recorded after a real verification failed); the check reads
   * the count without spending anything. Once `points` failures are counted the key is locked
   * for `blockDuration` seconds, after which the count starts again from zero.
   */
  kind: "failures";
  points: number;
  /** Failures are forgotten this many seconds after the first one of the series. */
  duration: number;
  /** Wait of the first lock, in seconds. */
  blockDuration: number;
  /** Each further lock within `window` seconds doubles the wait, up to `maxBlockDuration`. */
  escalation?: { window: number; maxBlockDuration: number };
};

export type RateLimitPolicy = AttemptPolicy | FailurePolicy;

/**
 * Every rate limit of the identity flows and of activation codes. Durations are in seconds. Adding a limit is one entry
 * here (its name is also the key prefix in the `rate_limits` table) plus a purpose-named method
 * in `createRateLimits` that calls `attempt`, or `isLocked` / `recordFailure` / `clearFailures`.
 */
export const RATE_LIMIT_POLICIES = {
  /**
   * Sign-in failures per account, keyed by the e-mail typed in (hashed: `emailKey`; whether or not an
   * account has it, so locks do not reveal which addresses are registered). 5 consecutive
   * failures lock the account for 1 minute; each further lock within 24 hours doubles the wait:
   * 1, 2, 4, 8, 16, 32, then 60 minutes at most. A successful sign-in clears the failures (not
   * the lock history); failures are forgotten an hour after the first one of the series.
   */
  signInAccount: {
    kind: "failures",
    points: 5,
    duration: HOUR,
    blockDuration: MINUTE,
    escalation: { window: DAY, maxBlockDuration: HOUR },
  },
  /**
   * Sign-in failures per IP address (IPv6: per /64), whichever accounts they were for: 50 in an
   * hour lock the address for an hour. Slows credential stuffing across many accounts.
   */
  signInIp: { kind: "failures", points: 50, duration: HOUR, blockDuration: HOUR },
  /** Registrations per IP address: 10 an hour. */
  registrationIp: { kind: "attempts", points: 10, duration: HOUR },
  /** Password reset requests per IP address: 5 an hour. */
  passwordResetRequestIp: { kind: "attempts", points: 5, duration: HOUR },
  /** Password reset requests per target e-mail (hashed: `emailKey`): 3 an hour, so a mailbox cannot be flooded. */
  passwordResetRequestEmail: { kind: "attempts", points: 3, duration: HOUR },
  /**
   * Password links sent to an account migrated from the old shop when somebody tries to sign in
   * to it (keyed by user id): one per 15 minutes, whatever the number of attempts. Shorter than
   * a link's life (an hour), so the link of the last mail still works while no new one leaves.
   */
  migratedLinkAccount: { kind: "attempts", points: 1, duration: 15 * MINUTE },
  /** Such links triggered from one IP address (IPv6: per /64), across accounts: 10 an hour. */
  migratedLinkIp: { kind: "attempts", points: 10, duration: HOUR },
  /**
   * E-mail change requests (after the current password was verified) per account: 3 an hour.
   * Each sends two mails, one to an address the requester chooses; and the profile page must not
   * become a fast way to try addresses, even though its answer says nothing about them.
   */
  emailChangeUser: { kind: "attempts", points: 3, duration: HOUR },
  /** E-mail change requests per IP address (IPv6: per /64), across accounts: 10 an hour. */
  emailChangeIp: { kind: "attempts", points: 10, duration: HOUR },
  /**
   * 'Scarica i tuoi dati' per account: 3 an hour. Each download reads everything held about the
   * customer; three leave room for a failed download or two, not for a script.
   */
  dataExportUser: { kind: "attempts", points: 3, duration: HOUR },
  /** Password reset token submissions per IP address: 20 an hour. */
  passwordResetAttemptIp: { kind: "attempts", points: 20, duration: HOUR },
  /**
   * Activation code failures per customer (user id): codes that do not exist, are not valid at
   * the time, are used up, or are not codes at all. 10 within 15 minutes lock the customer's
   * code checks and activations for 15 minutes; a lock answers "invalid" like a wrong code, even
   * for a good one, so guessing learns nothing while it holds. Codes have 80 random bits, so this
   * is not what makes guessing hopeless; it stops a script from hammering the database and from
   * trying leaked or sequential codes in bulk, and leaves room for a customer's typing mistakes.
   */
  activationUser: { kind: "failures", points: 10, duration: 15 * MINUTE, blockDuration: 15 * MINUTE },
  /**
   * Activation code failures per IP address (IPv6: per /64), across customers: 50 in an hour
   * lock the address for an hour, against one client spreading its guesses over many accounts.
   * As generous as sign-in's, because a university network puts many students behind one address.
   */
  activationIp: { kind: "failures", points: 50, duration: HOUR, blockDuration: HOUR },
  /**
   * Discount codes that do not apply, per customer: 10 within 15 minutes lock the customer's
   * code attempts for 15 minutes (a lock answers like a code that does not apply). Codes are
   * short words printed in campaigns, so guessing is cheap without it.
   */
  couponUser: { kind: "failures", points: 10, duration: 15 * MINUTE, blockDuration: 15 * MINUTE },
  /**
   * Card payments started per customer: 10 an hour. A checkout that fails twice is common; a
   * stolen-card tester tries dozens of numbers.
   */
  cardPaymentUser: { kind: "attempts", points: 10, duration: HOUR },
  /**
   * Requests to the identity provider's token endpoint per IP address, except the portal's own
   * (which come from the portal's address for every customer: see server/http/token-rate-limit.ts):
   * 60 a minute. No client but the portal has credentials, so others only probe codes and secrets.
   */
  oidcTokenIp: { kind: "attempts", points: 60, duration: MINUTE },
} as const satisfies Record<string, RateLimitPolicy>;

export type RateLimitName = keyof typeof RATE_LIMIT_POLICIES;

export type RateLimitResult = { ok: true } | { ok: false; retryAfterSeconds: number; limit: RateLimitName };

export type RateLimitsOptions = {
  /**
   * Delete expired rows every `purgeIntervalSeconds` (default true). Tests pass false. One timer
   * for the whole module, unref'd so it never keeps the process alive, and stopped by `close()`.
   */
  clearExpiredByTimeout?: boolean;
  /** Default 300 (the library's own cadence). */
  purgeIntervalSeconds?: number;
  /** Told when a periodic purge fails (the database is down, say); the next one tries again. */
  onPurgeError?: (error: unknown) => void;
  /** Told of each refusal, with the limit that refused (to count them: server/metrics.ts). */
  onRefusal?: (limit: RateLimitName) => void;
};

const OK: RateLimitResult = { ok: true };

/**
 * The key of an e-mail address: the SHA-256 of the address trimmed, lower-cased and bounded (an
 * e-mail is at most 254 characters). The table never holds an address, so no counter keeps one
 * after its account is erased (`personalKeys` lists the rows to delete all the same).
 */
export function emailKey(email: string): string {
  const address = Array.from(email.trim().toLowerCase()).slice(0, 254).join("");
  return createHash("sha256").update(`email:${address}`).digest("base64url");
}

/** The limits keyed by an e-mail address, and those keyed by a user id. */
const EMAIL_KEYED: readonly RateLimitName[] = ["signInAccount", "passwordResetRequestEmail"];
const USER_KEYED: readonly RateLimitName[] = [
  "activationUser",
  "migratedLinkAccount",
  "emailChangeUser",
  "couponUser",
  "cardPaymentUser",
  "dataExportUser",
];

/**
 * Every row key of the `rate_limits` table that can belong to this account or address (the
 * counters, and the lock histories of escalating limits): what an account's erasure deletes.
 */
export function personalKeys({ email, userId }: { email: string | null; userId: string }): string[] {
  const keys: string[] = [];
  const add = (name: RateLimitName, key: string) => keys.push(`${name}:${key}`, `${name}.locks:${key}`);
  if (email !== null) for (const name of EMAIL_KEYED) add(name, emailKey(email));
  for (const name of USER_KEYED) add(name, userId);
  return keys;
}

/**
 * The key of a client address. IPv4-mapped IPv6 addresses count as their IPv4 address; other
 * IPv6 addresses count per /64, the block a single subscriber usually gets, since an attacker
 * can rotate through its addresses for free.
 */
export function ipKey(ip: string | undefined | null): string {
  const address = (ip ?? "").trim().replace(/%.*$/, "");
  if (address === "") return "unknown";
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  if (mapped) return mapped[1]!;
  if (!isIPv6(address)) return address.slice(0, 45);
  return `${expandIpv6(address).slice(0, 4).join(":")}::/64`;
}

/** The eight groups of a valid IPv6 address, in lower-case hex without leading zeros. */
function expandIpv6(address: string): string[] {
  let text = address.toLowerCase();
  const dotted = /(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = "", tail] = text.split("::");
  const left = head === "" ? [] : head.split(":");
  const right = tail === undefined || tail === "" ? [] : tail.split(":");
  const zeros = tail === undefined ? [] : Array<string>(8 - left.length - right.length).fill("0");
  return [...left, ...zeros, ...right].map((group) => parseInt(group, 16).toString(16));
}

/** The result that makes the caller wait longest, or ok when none refuses. */
function strictest(results: RateLimitResult[]): RateLimitResult {
  let worst: RateLimitResult = OK;
  for (const result of results) {
    if (!result.ok && (worst.ok || result.retryAfterSeconds > worst.retryAfterSeconds)) worst = result;
  }
  return worst;
}

export function createRateLimits(db: Database, options: RateLimitsOptions = {}) {
  const limiterFor = (keyPrefix: string, points: number, duration: number) =>
    new RateLimiterDrizzle({
      storeClient: db,
      schema: rateLimits,
      keyPrefix,
      points,
      duration,
      // The library does unref its cleanup timer, but starts one per limiter, offers no way to
      // stop it (it would fire after the pool is closed at shutdown) and reports failures on
      // console.warn. `purgeExpired` below does the same job with a single stoppable timer.
      clearExpiredByTimeout: false,
    });

  const policies: Record<RateLimitName, RateLimitPolicy> = RATE_LIMIT_POLICIES;
  const limiters = Object.fromEntries(
    Object.entries(policies).map(([name, policy]) => [name, limiterFor(name, policy.points, policy.duration)]),
  ) as Record<RateLimitName, RateLimiterDrizzle>;
  /** Per failure policy with escalation: how many locks the key has had within the window. */
  const lockCounters = new Map<RateLimitName, RateLimiterDrizzle>();
  for (const [name, policy] of Object.entries(policies) as [RateLimitName, RateLimitPolicy][]) {
    if (policy.kind === "failures" && policy.escalation) {
      lockCounters.set(name, limiterFor(`${name}.locks`, Number.MAX_SAFE_INTEGER, policy.escalation.window));
    }
  }

  function refused(limit: RateLimitName, msBeforeNext: number): RateLimitResult {
    options.onRefusal?.(limit);
    return { ok: false, limit, retryAfterSeconds: Math.max(1, Math.ceil(msBeforeNext / 1000)) };
  }

  function failurePolicy(name: RateLimitName): FailurePolicy {
    const policy = policies[name];
    if (policy.kind !== "failures") throw new Error(`${name} does not count failures`);
    return policy;
  }

  /** Spends a point of an attempts limit; refused once the window's points are spent. */
  async function attempt(name: RateLimitName, key: string): Promise<RateLimitResult> {
    try {
      await limiters[name].consume(key);
      return OK;
    } catch (error) {
      // The library rejects with a RateLimiterRes when the limit is reached, with an Error when the store fails.
      if (error instanceof RateLimiterRes) return refused(name, error.msBeforeNext);
      throw error;
    }
  }

  /** Whether a failures limit currently locks the key (reads only). */
  async function isLocked(name: RateLimitName, key: string): Promise<RateLimitResult> {
    const res = await limiters[name].get(key);
    if (res && res.consumedPoints >= failurePolicy(name).points) return refused(name, res.msBeforeNext);
    return OK;
  }

  /**
   * Counts one failure (atomically, so concurrent failures are all counted). The failure that
   * reaches the limit, and only that one, locks the key: it shortens or lengthens the row's
   * expiry to the end of the lock, without touching the count, so the count restarts from zero
   * once the lock is over. Failures counted while locked (requests that passed the check just
   * before the lock) raise the count but neither lock again nor move the lock's end.
   */
  async function recordFailure(name: RateLimitName, key: string): Promise<RateLimitResult> {
    const policy = failurePolicy(name);
    const limiter = limiters[name];
    const res = await limiter.penalty(key, 1);
    if (res.consumedPoints < policy.points) return OK;
    if (res.consumedPoints > policy.points) return refused(name, res.msBeforeNext);

    let seconds = policy.blockDuration;
    const lockCounter = lockCounters.get(name);
    if (policy.escalation && lockCounter) {
      const locks = await lockCounter.penalty(key, 1);
      seconds = Math.min(policy.blockDuration * 2 ** (locks.consumedPoints - 1), policy.escalation.maxBlockDuration);
    }
    // rate-limiter-flexible reads and writes its windows on the real clock (Date.now), so the
    // rows this module writes use it too: the one place a service does not take the injected clock.
    await db
      .update(rateLimits)
      .set({ expire: new Date(Date.now() + seconds * 1000) })
      .where(eq(rateLimits.key, limiter.getKey(key)));
    return refused(name, seconds * 1000);
  }

  /** Forgets the failures of a key that is not locked (a lock runs its course). */
  async function clearFailures(name: RateLimitName, key: string): Promise<void> {
    const policy = failurePolicy(name);
    await db.delete(rateLimits).where(and(eq(rateLimits.key, limiters[name].getKey(key)), lt(rateLimits.points, policy.points)));
  }

  /** Deletes the rows whose window or lock is over; returns how many. */
  async function purgeExpired(): Promise<number> {
    const deleted = await db.delete(rateLimits).where(lt(rateLimits.expire, new Date())).returning({ key: rateLimits.key });
    return deleted.length;
  }

  let purgeTimer: NodeJS.Timeout | undefined;
  if (options.clearExpiredByTimeout ?? true) {
    purgeTimer = setInterval(
      () => {
        purgeExpired().catch((error: unknown) => options.onPurgeError?.(error));
      },
      (options.purgeIntervalSeconds ?? 300) * 1000,
    );
    purgeTimer.unref();
  }

  return {
    /**
     * Call before verifying a password. Refused while the account (the e-mail typed) or the IP
     * address is locked: the password is then not verified at all, and the caller shows the
     * same generic message as for wrong credentials, so a lock tells an attacker nothing about
     * the password or about whether the account exists.
     */
    async checkSignIn({ email, ip }: { email: string; ip: string | undefined }): Promise<RateLimitResult> {
      return strictest(await Promise.all([isLocked("signInAccount", emailKey(email)), isLocked("signInIp", ipKey(ip))]));
    },

    /**
     * Call after a password verification failed (never for an attempt refused by `checkSignIn`).
     * Returns refused when this failure locked the account or the address.
     */
    async recordSignInFailure({ email, ip }: { email: string; ip: string | undefined }): Promise<RateLimitResult> {
      return strictest(
        await Promise.all([recordFailure("signInAccount", emailKey(email)), recordFailure("signInIp", ipKey(ip))]),
      );
    },

    /**
     * Call after a successful sign-in: clears the account's consecutive failures. The address's
     * failures stay (one valid account must not reset a credential-stuffing counter), and so does
     * the account's lock history, so the waits keep growing while an attack goes on.
     */
    async recordSignInSuccess({ email }: { email: string; ip?: string | undefined }): Promise<void> {
      await clearFailures("signInAccount", emailKey(email));
    },

    /**
     * Ends an account's sign-in lock and forgets its failures and lock history: its migrated
     * password link was used, and those failures were sign-ins that no password could pass
     * (the old shop's passwords were not carried over).
     */
    async clearSignInLock({ email }: { email: string }): Promise<void> {
      const key = emailKey(email);
      const rows = [limiters.signInAccount.getKey(key), lockCounters.get("signInAccount")!.getKey(key)];
      await db.delete(rateLimits).where(inArray(rateLimits.key, rows));
    },

    /** Spends one of the address's registrations. */
    checkRegistration: (ip: string | undefined) => attempt("registrationIp", ipKey(ip)),

    /**
     * Spends one of the address's password reset requests and, with `email`, one of the target
     * address's. When the e-mail's limit refuses, the caller should show the usual "if an
     * account exists we sent a link" page and send nothing.
     */
    async checkPasswordResetRequest(request: string | undefined | { ip: string | undefined; email?: string }) {
      const { ip, email } = typeof request === "object" ? request : { ip: request, email: undefined };
      const byIp = await attempt("passwordResetRequestIp", ipKey(ip));
      if (!byIp.ok || email === undefined) return byIp;
      return attempt("passwordResetRequestEmail", emailKey(email));
    },

    /**
     * Claims the right to send a migrated account its password link: the address's limit is
     * spent first, so a client past it cannot use up the accounts' windows; then the account's
     * single link of the window, which one caller only gets however many race for it.
     */
    async claimMigratedLink({ userId, ip }: { userId: string; ip: string | undefined }): Promise<RateLimitResult> {
      const byIp = await attempt("migratedLinkIp", ipKey(ip));
      if (!byIp.ok) return byIp;
      return attempt("migratedLinkAccount", userId);
    },

    /** Gives a claimed link back when it was not sent (its transaction failed): the next sign-in sends one. */
    async giveBackMigratedLink({ userId, ip }: { userId: string; ip: string | undefined }): Promise<void> {
      await limiters.migratedLinkIp.reward(ipKey(ip), 1);
      await limiters.migratedLinkAccount.reward(userId, 1);
    },

    /** Spends one of the address's e-mail change requests, then one of the account's. */
    async checkEmailChange({ userId, ip }: { userId: string; ip: string | undefined }): Promise<RateLimitResult> {
      const byIp = await attempt("emailChangeIp", ipKey(ip));
      if (!byIp.ok) return byIp;
      return attempt("emailChangeUser", userId);
    },

    /** Spends one of the account's data downloads of the hour. */
    checkDataExport: (userId: string) => attempt("dataExportUser", userId),

    /** Spends one of the address's requests to the provider's token endpoint. */
    checkTokenRequest: (ip: string | undefined) => attempt("oidcTokenIp", ipKey(ip)),

    /** Spends one of the address's password reset token submissions. */
    checkPasswordResetAttempt: (ip: string | undefined) => attempt("passwordResetAttemptIp", ipKey(ip)),

    /**
     * Call before looking an activation code up (to check it or to activate it). Refused while
     * the customer or the address is locked: the caller then answers "invalid" without touching
     * the code, so a lock is indistinguishable from a wrong code and even a valid one is refused.
     */
    async checkActivation({ userId, ip }: { userId: string; ip: string | undefined }): Promise<RateLimitResult> {
      return strictest(await Promise.all([isLocked("activationUser", userId), isLocked("activationIp", ipKey(ip))]));
    },

    /**
     * Call after a code turned out invalid (never for one refused by `checkActivation`). Returns
     * refused when this failure locked the customer or the address. Successes clear nothing: one
     * good code must not buy an attacker a fresh round of guesses.
     */
    async recordActivationFailure({ userId, ip }: { userId: string; ip: string | undefined }): Promise<RateLimitResult> {
      return strictest(await Promise.all([recordFailure("activationUser", userId), recordFailure("activationIp", ipKey(ip))]));
    },

    /** Deletes expired rows; for a maintenance job when the periodic purge is off. */
    purgeExpired,

    /** Stops the periodic purge (at shutdown, before the database closes). */
    /** Whether the customer may try a discount code now. */
    async checkCoupon(userId: string): Promise<RateLimitResult> {
      return isLocked("couponUser", userId);
    },
    /** Call after a discount code did not apply. */
    async recordCouponFailure(userId: string): Promise<RateLimitResult> {
      return recordFailure("couponUser", userId);
    },
    /** Whether the customer has a card payment of the hour left (reads only: call before starting one). */
    async checkCardPayment(userId: string): Promise<RateLimitResult> {
      const res = await limiters.cardPaymentUser.get(userId);
      if (res && res.consumedPoints >= policies.cardPaymentUser.points) return refused("cardPaymentUser", res.msBeforeNext);
      return OK;
    },
    /** Spends one of the customer's card payments of the hour: call once a payment has started, and only then. */
    async claimCardPayment(userId: string): Promise<RateLimitResult> {
      return attempt("cardPaymentUser", userId);
    },
    close() {
      if (purgeTimer) clearInterval(purgeTimer);
      purgeTimer = undefined;
    },
  };
}

export type RateLimits = ReturnType<typeof createRateLimits>;
