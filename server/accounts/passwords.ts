// Password hashing: argon2id with OWASP's recommended minimum (19 MiB, 2 iterations, 1 lane).
// Tests may hash at argon2's least cost (PASSWORD_HASH_COST=minimal, refused in production); a
// hash records its own parameters, so it verifies whatever the cost of the hasher checking it.
import { hash, verify, type Algorithm, type Options } from "@node-rs/argon2";
import type { Config } from "#server/config.ts";

/** The package declares Algorithm as a const enum with no runtime value; 2 is Argon2id. */
const ARGON2ID = 2 as Algorithm;

const ARGON2_COSTS: Record<Config["passwordHashCost"], Options> = {
  standard: { memoryCost: 19_456, timeCost: 2, parallelism: 1 },
  minimal: { memoryCost: 8, timeCost: 1, parallelism: 1 },
};

export type PasswordHasher = {
  hash(password: string): Promise<string>;
  /**
   * Checks a password against a stored hash. Without a hash (unknown account) it still spends the
   * time of a real check, so response times do not tell which e-mails have an account.
   */
  verify(storedHash: string | null | undefined, password: string): Promise<boolean>;
};

/** Hashes new passwords at the given cost (the services take it from the configuration). */
export function passwordHasher(cost: Config["passwordHashCost"]): PasswordHasher {
  const params = { algorithm: ARGON2ID, ...ARGON2_COSTS[cost] };
  /** A hash of a random password: verifying against it costs what a real check costs. */
  const decoy = hash(crypto.randomUUID(), params);
  return {
    hash: (password) => hash(password, params),
    async verify(storedHash, password) {
      if (!storedHash) {
        await verify(await decoy, password).catch(() => false);
        return false;
      }
      return verify(storedHash, password).catch(() => false);
    },
  };
}

/** The production cost: for whatever is not given the configuration's hasher. */
export const standardPasswords = passwordHasher("standard");
