// Password hashing: argon2id with OWASP's recommended minimum (19 MiB, 2 iterations, 1 lane).
import { hash, verify, type Algorithm } from "@node-rs/argon2";

/** The package declares Algorithm as a const enum with no runtime value; 2 is Argon2id. */
const ARGON2ID = 2 as Algorithm;

const ARGON2_PARAMS = { algorithm: ARGON2ID, memoryCost: 19_456, timeCost: 2, parallelism: 1 };

export function hashPassword(password: string): Promise<string> {
  return hash(password, ARGON2_PARAMS);
}

/** A hash of a random password: verifying against it costs what a real check costs. */
const DECOY_HASH = hash(crypto.randomUUID(), ARGON2_PARAMS);

/**
 * Checks a password against a stored hash. Without a hash (unknown account) it still spends the
 * time of a real check, so response times do not tell which e-mails have an account.
 */
export async function verifyPassword(storedHash: string | null | undefined, password: string): Promise<boolean> {
  if (!storedHash) {
    await verify(await DECOY_HASH, password).catch(() => false);
    return false;
  }
  return verify(storedHash, password).catch(() => false);
}
