// vitest globalSetup of the `pgbouncer` project: a private PgBouncer in transaction mode, with the
// shipped configuration (scripts/pgbouncer.ts), in front of DATABASE_URL's server for the whole run.
// Each test file's database is reached through it (tests/support/database.ts), with
// DATABASE_POOLER=transaction; the templates and the start-up's migrations go to PostgreSQL itself.
import type { TestProject } from "vitest/node";
import { startPgbouncer } from "#scripts/pgbouncer.ts";

declare module "vitest" {
  export interface ProvidedContext {
    pgbouncerPort: number;
  }
}

export default async function setup(project: TestProject) {
  const serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) throw new Error("the pgbouncer project needs DATABASE_URL");
  const pgbouncer = await startPgbouncer(serverUrl);
  project.provide("pgbouncerPort", pgbouncer.port);
  return () => pgbouncer.stop();
}
