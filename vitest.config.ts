import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

// Unit tests (*.test.ts) run once. Integration tests (*.db.test.ts) run against PGlite, and again
// against PostgreSQL when DATABASE_URL is set, and some of them a third time through PgBouncer
// (`pgbouncer`, below); each test file gets a fresh database of its own
// (tests/support/database.ts), a copy of the templates migrated and seeded once per run
// (tests/support/database-templates.ts).
const integration = ["server/**/*.db.test.ts", "tests/integration/**/*.test.ts"];
const templates = "tests/support/database-templates.ts";

/**
 * The integration suite on one database. A test file shares its worker's loaded modules with the
 * files before it (isolate: false) instead of importing the portal and its services anew (which
 * took longer than the tests themselves). That is safe because what a test file changes is its
 * own: its own database and services, clocks injected or fake timers restored after each use, and
 * no module mocks (the unit project, which may mock modules, keeps isolation).
 */
const integrationProject = (database: "pglite" | "postgres") => ({
  extends: true as const,
  test: { name: database, include: integration, env: { TEST_DATABASE: database }, globalSetup: templates, isolate: false },
});

/**
 * What the `pgbouncer` project runs unless TEST_PGBOUNCER=all (`npm run test:pgbouncer`): what a
 * pooler in transaction mode changes (server/db/pooler.ts): the pooler's own tests, the start-up's
 * lock and migrations on DATABASE_DIRECT_URL, the prepared queries of decision 012 (sessions,
 * dashboard, profile, purchases, checkout, subscription), two pools racing under row locks, the job
 * runner's claims, and two production instances started and restarted behind nginx. The whole suite
 * through PgBouncer took 12.7 minutes here, the CI's PostgreSQL run again: it is a command of its
 * own (docs/operating.md, "PgBouncer").
 */
const PGBOUNCER_FOCUS = [
  "server/db/pooler.db.test.ts",
  "server/db/pooler-outage.db.test.ts",
  "server/db/prepare.db.test.ts",
  "server/accounts/sessions.db.test.ts",
  "server/accounts/profile.db.test.ts",
  "server/commerce/purchases.db.test.ts",
  "server/commerce/activation.db.test.ts",
  "server/jobs/runner.db.test.ts",
  "server/payments/payment-races.db.test.ts",
  "tests/integration/dashboard.test.ts",
  "tests/integration/checkout.test.ts",
  "tests/integration/subscription-pages.test.ts",
  "tests/integration/edu-sold-once.test.ts",
  "tests/integration/rolling-restart.test.ts",
];

/**
 * The PostgreSQL integration suite again, each test file's database reached through a private
 * PgBouncer in transaction mode with the shipped configuration (tests/support/pgbouncer-setup.ts),
 * the portal with DATABASE_POOLER=transaction. Left out of the whole suite: the files that play
 * PostgreSQL's own failures (a relay cutting connections, a cluster of their own frozen), which test
 * the pool against PostgreSQL, not the portal through the pooler (`npm run load -- --pgbouncer`
 * restarts PostgreSQL behind PgBouncer).
 */
const pgbouncerProject = () => ({
  extends: true as const,
  test: {
    name: "pgbouncer",
    include: process.env.TEST_PGBOUNCER === "all" ? integration : PGBOUNCER_FOCUS,
    exclude: ["server/db/client.db.test.ts", "server/db/frozen-postgres.db.test.ts", "tests/integration/database-hang.test.ts"],
    env: { TEST_DATABASE: "postgres" },
    globalSetup: [templates, "tests/support/pgbouncer-setup.ts"],
    isolate: false,
  },
});

export default defineConfig({
  test: {
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: [
            "app/**/*.test.{ts,tsx}",
            "server/**/*.test.ts",
            "shared/**/*.test.ts",
            "scripts/**/*.test.ts",
            "eslint/**/*.test.ts",
          ],
          exclude: ["server/**/*.db.test.ts"],
        },
      },
      integrationProject("pglite"),
      ...(process.env.DATABASE_URL ? [integrationProject("postgres")] : []),
      ...(process.env.DATABASE_URL || process.env.TEST_PGBOUNCER ? [pgbouncerProject()] : []),
    ],
    // Worker threads, one per core: vitest's default leaves a core to its main process, which
    // on a 2-core machine meant one test file at a time, while the main process mostly waits.
    pool: "threads",
    maxWorkers: availableParallelism(),
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
