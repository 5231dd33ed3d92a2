// `npm run admin` as an operator on the server runs it: a child process in production (so every
// command needs --yes) with the tests' secrets, over the database the given settings name.
import path from "node:path";
import { testConfig } from "./config.ts";
import { runNode, type NodeRun } from "./run-node.ts";

const SCRIPT = path.resolve(import.meta.dirname, "../../scripts/admin.ts");

/** Runs `scripts/admin.ts <args>` in `cwd`; `settings`: DATABASE_URL or DATA_DIR, and any other. */
export function runAdmin(args: string[], cwd: string, settings: NodeJS.ProcessEnv): Promise<NodeRun> {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    NODE_ENV: "production",
    PAYMENTS: "sandbox",
    MAIL_DISABLED: "true",
    SESSION_SECRET: "test-session-secret-that-is-long-enough-0123456789",
    OIDC_CLIENT_SECRET: "test-oidc-client-secret-long-enough-0123456789",
    OIDC_COOKIE_KEYS: "test-oidc-cookie-key-long-enough-0123456789",
    ACTIVATION_CODE_KEY: testConfig().secrets.activationCodeKey,
    ...settings,
  };
  return runNode([SCRIPT, ...args], { cwd, env });
}
