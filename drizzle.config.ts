import { defineConfig } from "drizzle-kit";

// Only used to generate SQL migrations from the schema (`npm run db:generate`);
// migrations are applied by the server at start-up (server/db/migrate.ts).
export default defineConfig({
  dialect: "postgresql",
  schema: "./server/db/schema/index.ts",
  out: "./server/db/migrations",
});
