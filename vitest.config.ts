import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

// Unit tests (*.test.ts) run once. Integration tests (*.db.test.ts) run against PGlite, and again
// against PostgreSQL when DATABASE_URL is set; each test file gets a fresh database of its own
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
    ],
    // Worker threads, one per core: vitest's default leaves a core to its main process, which
    // on a 2-core machine meant one test file at a time, while the main process mostly waits.
    pool: "threads",
    maxWorkers: availableParallelism(),
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
