import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { defineConfig, devices } from "@playwright/test";
import { CHROMIUM_ARGS } from "./scripts/chromium.ts";
import { DEMO_SELLER } from "./server/lib/seller-settings.ts";

// The production build, served on its own port over a fresh embedded database.
const port = Number(process.env.E2E_PORT ?? 3917);
// Set on process.env so that the test workers read the fixtures the server was prepared with.
const dataDir = (process.env.E2E_DATA_DIR ??= mkdtempSync(path.join(tmpdir(), "portal-e2e-")));
// The portal's mail goes to a local SMTP server (tests/e2e/global-setup.ts) that files it here.
// Set on process.env so that the test workers, started later, read the same folder.
process.env.E2E_MAIL_DIR ??= mkdtempSync(path.join(tmpdir(), "portal-e2e-mail-"));
process.env.E2E_SMTP_PORT ??= String(port + 9);
export const baseURL = `http://localhost:${port}`;

// A second portal with Stripe configured, its API a local stand-in of Stripe's (started by
// tests/e2e/global-setup.ts; the browser reaches Stripe's origins through it, stripe-support.ts).
// Only the Stripe specs (checkout and subscription) run against it, in the stripe-js and
// stripe-no-js projects.
const stripePort = port + 1;
process.env.E2E_STRIPE_API_PORT ??= String(port + 8);
const stripeDataDir = (process.env.E2E_STRIPE_DATA_DIR ??= mkdtempSync(path.join(tmpdir(), "portal-e2e-stripe-")));
const stripeBaseURL = `http://localhost:${stripePort}`;
const STRIPE_SPECS = /(checkout|subscription)-stripe(\.js|\.nojs)?\.spec\.ts$/;

/** What both e2e servers run with. */
const serverEnv = {
  NODE_ENV: "production",
  DATABASE_URL: "",
  SESSION_SECRET: "e2e-session-secret-0123456789-0123456789-abcdef",
  OIDC_CLIENT_SECRET: "e2e-oidc-client-secret-0123456789-0123456789",
  OIDC_COOKIE_KEYS: "e2e-oidc-cookie-key-0123456789-0123456789-abc",
  ACTIVATION_CODE_KEY: "e2e-activation-code-key-0123456789-0123456789",
  LOG_LEVEL: "warn",
  // Each browser context is its own pretend proxy (one hop): the X-Forwarded-For it sends is the
  // client's address, one for each test (see identity-support.ts).
  TRUST_PROXY: "1",
  SMTP_URL: `smtp://127.0.0.1:${process.env.E2E_SMTP_PORT}`,
  // Production issues e-invoices only for the seller it is given (docs/e-invoices.md):
  // the fictitious publisher development uses.
  ...DEMO_SELLER,
};

// Chromium's headless shell where there is one (scripts/chromium.ts says why the Stripe projects
// keep the full browser).
const fullChromium = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const browser = (executablePath: string) => ({
  ...devices["Desktop Chrome"],
  launchOptions: { executablePath, args: CHROMIUM_ARGS },
});
const chromium = browser(process.env.CHROMIUM_HEADLESS_SHELL_PATH ?? fullChromium);
const stripeChromium = browser(fullChromium);

export default defineConfig({
  testDir: "tests/e2e",
  fullyParallel: true,
  workers: 2,
  retries: 0,
  // Whole journeys (a registration, sign-ins with argon2id, a purchase) with two browsers and two
  // servers on two cores: 30 s each proved too tight when the machine was slow (3 × the usual
  // times), so a journey gets 90 s and a single expectation 10 s. Neither decides a result: a
  // broken page still fails, only later.
  timeout: 90_000,
  expect: { timeout: 10_000 },
  reporter: process.env.CI ? [["list"]] : [["list"], ["html", { open: "never" }]],
  use: { baseURL, locale: "it-IT", timezoneId: "Europe/Rome", trace: "retain-on-failure" },
  projects: [
    // *.js.spec.ts test enhancements and run only with JavaScript; *.nojs.spec.ts only without.
    { name: "js", use: { ...chromium, javaScriptEnabled: true }, testIgnore: [/\.nojs\.spec\.ts$/, STRIPE_SPECS] },
    { name: "no-js", use: { ...chromium, javaScriptEnabled: false }, testIgnore: [/\.js\.spec\.ts$/, STRIPE_SPECS] },
    {
      name: "stripe-js",
      use: { ...stripeChromium, javaScriptEnabled: true, baseURL: stripeBaseURL },
      testMatch: STRIPE_SPECS,
      testIgnore: /\.nojs\.spec\.ts$/,
    },
    {
      name: "stripe-no-js",
      use: { ...stripeChromium, javaScriptEnabled: false, baseURL: stripeBaseURL },
      testMatch: STRIPE_SPECS,
      testIgnore: /\.js\.spec\.ts$/,
    },
  ],
  globalSetup: "./tests/e2e/global-setup.ts",
  webServer: [
    {
      // The database is prepared with the tests' fixtures first (activation codes, customers), and
      // copied for the Stripe portal, which Playwright starts after this one.
      command: `node tests/e2e/prepare-server.ts ${JSON.stringify(stripeDataDir)} && node server/main.ts`,
      url: `${baseURL}/readyz`,
      timeout: 120_000,
      reuseExistingServer: false,
      stdout: "ignore",
      stderr: "pipe",
      env: {
        ...serverEnv,
        // Production names the test gateway it runs (it would refuse to start without a gateway).
        PAYMENTS: "sandbox",
        PORT: String(port),
        DATA_DIR: dataDir,
      },
    },
    {
      // Its folder holds a copy of the other portal's prepared database (the Stripe specs claim
      // their customers of the pool there).
      command: "node server/main.ts",
      url: `${stripeBaseURL}/readyz`,
      timeout: 120_000,
      reuseExistingServer: false,
      stdout: "ignore",
      stderr: "pipe",
      env: {
        ...serverEnv,
        PORT: String(stripePort),
        DATA_DIR: stripeDataDir,
        STRIPE_SECRET_KEY: "sk_test_fake",
        STRIPE_PUBLISHABLE_KEY: "pk_test_fake",
        STRIPE_WEBHOOK_SECRET: "whsec_fake_0123456789",
        STRIPE_API_BASE: `http://127.0.0.1:${process.env.E2E_STRIPE_API_PORT}`,
      },
    },
  ],
});
