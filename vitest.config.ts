import { defineConfig } from "vitest/config";

// Unit tests (*.test.ts) run once. Integration tests (*.db.test.ts) run against PGlite, and again
// against PostgreSQL when DATABASE_URL is set; each test file gets a fresh database of its own
// (tests/support/database.ts), a copy of the templates migrated and seeded once per run
// (tests/support/database-templates.ts).
const integration = ["server/**/*.db.test.ts", "tests/integration/**/*.test.ts"];
const templates = "tests/support/database-templates.ts";

export default defineConfig({
  test: {
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["app/**/*.test.{ts,tsx}", "server/**/*.test.ts", "shared/**/*.test.ts", "scripts/**/*.test.ts"],
          exclude: ["server/**/*.db.test.ts"],
        },
      },
      {
        extends: true,
        test: { name: "pglite", include: integration, env: { TEST_DATABASE: "pglite" }, globalSetup: templates },
      },
      ...(process.env.DATABASE_URL
        ? [
            {
              extends: true as const,
              test: { name: "postgres", include: integration, env: { TEST_DATABASE: "postgres" }, globalSetup: templates },
            },
          ]
        : []),
    ],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
