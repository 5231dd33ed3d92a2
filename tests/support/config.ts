import { loadConfig, type Config } from "../../server/config.ts";

/** Configuration as a test sees it: defaults, with a fixed secret so nothing is written to disk. */
export function testConfig(overrides: Record<string, string> = {}): Config {
  return loadConfig({
    env: {
      NODE_ENV: "test",
      SESSION_SECRET: "test-session-secret-that-is-long-enough-0123456789",
      OIDC_CLIENT_SECRET: "test-oidc-client-secret-long-enough-0123456789",
      OIDC_COOKIE_KEYS: "test-oidc-cookie-key-long-enough-0123456789",
      ACTIVATION_CODE_KEY: "test-activation-code-key-long-enough-0123456789",
      ...overrides,
    },
  });
}
