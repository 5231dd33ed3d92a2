// During an upgrade the instances of the previous release keep serving against the schema the new
// release migrated (docs/operating.md, "Upgrading"). Such an instance says so at start: its code
// does not know the newest migrations, so whatever they changed is not what it expects (a new job
// queue, a new column's meaning). The migrator itself is silent then, as it finds nothing to apply.
import { sql } from "drizzle-orm";
import { readMigrationFiles } from "drizzle-orm/migrator";
import type { Logger } from "#server/logger.ts";
import type { Database } from "./client.ts";

export const MIGRATIONS_FOLDER = new URL("./migrations", import.meta.url).pathname;

export type UnknownMigration = { hash: string; createdAt: number };

/**
 * The migrations applied to the database that this code does not have, newest first. Drizzle's
 * table keeps each migration's hash and its folder time (the journal's `when`), not its name.
 */
export async function unknownMigrations(db: Database): Promise<UnknownMigration[]> {
  const known = readMigrationFiles({ migrationsFolder: MIGRATIONS_FOLDER });
  const newestKnown = Math.max(...known.map((m) => m.folderMillis));
  const result = (await db.execute(
    sql`select hash, created_at from drizzle.__drizzle_migrations where created_at > ${newestKnown} order by created_at desc`,
  )) as unknown as { rows: { hash: string; created_at: string | number }[] };
  return result.rows.map((row) => ({ hash: row.hash, createdAt: Number(row.created_at) }));
}

/** Logs a warning when the database's schema is newer than this code (above); says nothing otherwise. */
export async function warnOfNewerSchema(db: Database, log: Logger): Promise<void> {
  const unknown = await unknownMigrations(db);
  const newest = unknown[0];
  if (!newest) return;
  log.warn(
    {
      unknownMigrations: unknown.length,
      newestUnknownMigration: { createdAt: new Date(newest.createdAt).toISOString(), hash: newest.hash },
    },
    `this release is older than the database's schema: ${unknown.length} migration(s) applied by a newer release, ` +
      `the newest from ${new Date(newest.createdAt).toISOString()}; upgrade this instance`,
  );
}
