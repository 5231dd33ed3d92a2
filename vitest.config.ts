import { defineConfig } from "vitest/config";

// Unit tests (*.test.ts) run once. Integration tests (*.db.test.ts) run against an in-memory
// PGlite, and again against PostgreSQL when DATABASE_URL is set; each test file gets a fresh
// database of its own (tests/support/database.ts).
const integration = ["server/**/*.db.test.ts", "tests/integration/**/*.test.ts"];

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
      { extends: true, test: { name: "pglite", include: integration, env: { TEST_DATABASE: "pglite" } } },
      ...(process.env.DATABASE_URL
        ? [{ extends: true as const, test: { name: "postgres", include: integration, env: { TEST_DATABASE: "postgres" } } }]
        : []),
    ],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
