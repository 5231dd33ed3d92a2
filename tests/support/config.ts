import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { passwordHasher } from "#server/accounts/passwords.ts";
import { loadConfig, type Config } from "#server/config.ts";

/**
 * Where the tests' portals write their e-invoices for SDI and read its notifications: folders of
 * this run's, never the project's ./data. A test that drops notifications gives its own inbox
 * (every portal's job runner reads its inbox, and would set aside another test's files as unknown).
 */
let sdiOutbox: string | undefined;
let sdiInbox: string | undefined;
const testSdiOutbox = () => (sdiOutbox ??= mkdtempSync(path.join(tmpdir(), "portal-sdi-outbox-")));
const testSdiInbox = () => (sdiInbox ??= mkdtempSync(path.join(tmpdir(), "portal-sdi-inbox-")));

/**
 * Configuration as a test sees it: defaults, with a fixed secret so nothing is written to disk, and
 * passwords hashed at argon2's least cost (which production refuses, so not when a test asks for it);
 * production's mail is off on purpose unless the test gives SMTP_URL.
 */
export function testConfig(overrides: Record<string, string> = {}): Config {
  return loadConfig({
    env: {
      NODE_ENV: "test",
      SESSION_SECRET: "test-session-secret-that-is-long-enough-0123456789",
      OIDC_CLIENT_SECRET: "test-oidc-client-secret-long-enough-0123456789",
      OIDC_COOKIE_KEYS: "test-oidc-cookie-key-long-enough-0123456789",
      ACTIVATION_CODE_KEY: "test-activation-code-key-long-enough-0123456789",
      PASSWORD_HASH_COST: overrides.NODE_ENV === "production" ? "standard" : "minimal",
      // Production refuses to start without SMTP unless told: the tests read mail from the outbox.
      ...(overrides.NODE_ENV === "production" ? { MAIL_DISABLED: "true" } : {}),
      SDI_OUTBOX_DIR: testSdiOutbox(),
      SDI_INBOX_DIR: testSdiInbox(),
      ...overrides,
    },
  });
}

/** The password hasher of the tests' configuration, for services a test builds by hand. */
export const testPasswords = passwordHasher(testConfig().passwordHashCost);
