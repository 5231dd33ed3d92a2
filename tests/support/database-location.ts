// How a test, and the processes it starts, reach a test database on PostgreSQL: directly, or
// through the run's PgBouncer (the `pgbouncer` project). No vitest import here: the processes a test
// starts (tests/support/*-and-die.ts) use it too.
import type { OpenDatabaseOptions } from "#server/db/client.ts";

/** `openDatabase({ ...connection, poolMax })` opens a pool of it. */
export type PostgresConnection = { url: string; pooler: "none" | "transaction"; directUrl: string };

/** The settings that point an instance of the portal, or an operator's command, at it. */
export function connectionEnv({ url, pooler, directUrl }: PostgresConnection) {
  return { DATABASE_URL: url, DATABASE_POOLER: pooler, DATABASE_DIRECT_URL: directUrl };
}

/** A database as one command-line argument: PostgreSQL's connection as JSON, or a PGlite folder. */
export function locationOf(database: PostgresConnection | string): string {
  return typeof database === "string" ? database : JSON.stringify(database);
}

/** What opens the database of `locationOf`. */
export function databaseAt(location: string): OpenDatabaseOptions {
  return location.startsWith("{") ? (JSON.parse(location) as PostgresConnection) : { dataDir: location };
}
