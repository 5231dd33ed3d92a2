// `npm test`: every test. The production build first (the browser tests serve it, and so do the
// integration tests that start real instances, e.g. the rolling restart: built once here, never
// by a test while other tests' Vite servers write their types), then unit and integration tests
// (vitest: PGlite, and PostgreSQL too when DATABASE_URL is set, some of it through PgBouncer), then the browser tests
// (Playwright, Debian's Chromium) with and without JavaScript.
//   npm test                   all of it
//   npm run test:e2e           only the browser tests
import { spawnSync } from "node:child_process";
import { ensureChromium } from "./chromium.ts";

const e2eOnly = process.argv.includes("--e2e-only");

function step(title: string, command: string, args: string[], env: NodeJS.ProcessEnv = process.env) {
  console.log(`\n▶ ${title}`);
  const r = spawnSync(command, args, { stdio: "inherit", env });
  if (r.status !== 0) {
    console.error(`\n✖ ${title} failed`);
    process.exit(r.status ?? 1);
  }
}

step("production build", "react-router", ["build"]);

if (!e2eOnly) {
  const targets = process.env.DATABASE_URL
    ? "PGlite, PostgreSQL, and PostgreSQL through PgBouncer"
    : "PGlite (set DATABASE_URL to add PostgreSQL)";
  step(`unit and integration tests on ${targets}`, "vitest", ["run"]);
}

let browsers: ReturnType<typeof ensureChromium>;
try {
  browsers = ensureChromium();
} catch (error) {
  console.error(`\n✖ ${(error as Error).message}`);
  process.exit(1);
}
step("browser tests (Chromium, with and without JavaScript)", "playwright", ["test"], {
  ...process.env,
  ...browsers,
});
console.log("\n✔ all tests passed");
