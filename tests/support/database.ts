// A fresh, migrated and seeded database for one test file: a PGlite database, or a new database
// on the PostgreSQL server of DATABASE_URL when the suite runs against PostgreSQL. Under vitest it
// starts as a copy of the run's template (tests/support/database-templates.ts, migrated and seeded
// once per run); without the templates it is migrated and seeded here.
import { randomBytes } from "node:crypto";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import path from "node:path";
import type { Logger as DrizzleLogger } from "drizzle-orm";
import pg from "pg";
import { inject } from "vitest";
import { openDatabase, type DatabaseHandle } from "#server/db/client.ts";
import { seedDemoCoupons } from "#server/db/seed/coupons.ts";
import { seedDatabase } from "#server/db/seed/index.ts";
import { testConfig } from "./config.ts";
import { cloneDatabase, type DatabaseTemplates } from "./database-templates.ts";
import { setRoleTimeouts, throughPgbouncer } from "#scripts/pgbouncer.ts";
import type { PostgresConnection } from "./database-location.ts";

export type TestDatabase = DatabaseHandle & {
  name: string;
  /**
   * When this is a PostgreSQL database, the URL the portal uses: PgBouncer's in the `pgbouncer`
   * project (then `connection.directUrl` is PostgreSQL itself).
   */
  url?: string;
  /** How another pool of the same database is opened: `openDatabase({ ...connection, poolMax })`. */
  connection?: PostgresConnection;
  destroy(): Promise<void>;
};

/**
 * `migrate: false` gives an empty database, `seed: false` a migrated one without the demo data;
 * `logger` sees every statement Drizzle sends (e.g. to count a page's queries).
 */
export async function createTestDatabase({
  migrate = true,
  seed = true,
  logger,
}: { migrate?: boolean; seed?: boolean; logger?: DrizzleLogger } = {}): Promise<TestDatabase> {
  const templates = inject("databaseTemplates") as DatabaseTemplates | undefined;
  let handle: TestDatabase;
  let copied: boolean;
  if (process.env.TEST_DATABASE === "postgres") {
    const template = migrate && templates?.kind === "postgres" ? (seed ? templates.seeded : templates.migrated) : undefined;
    handle = await createPostgresDatabase(logger, template);
    copied = template !== undefined;
  } else {
    const copy = copyPgliteTemplate(migrate ? (seed ? "seeded" : "migrated") : "empty");
    handle = await createPgliteDatabase(logger, copy);
    copied = copy !== undefined;
  }
  if (migrate && !copied) {
    await handle.migrate(handle.db);
    if (seed) {
      await seedDatabase(handle.db, testConfig().links);
      await seedDemoCoupons(handle.db);
    }
  }
  return handle;
}

/**
 * A copy of one of the run's PGlite templates (a new database's, migrated, or migrated and
 * seeded), as a folder holding it in `pglite/` (the layout of a DATA_DIR); undefined when the run
 * has no templates.
 */
export function copyPgliteTemplate(
  which: "empty" | "migrated" | "seeded",
  prefix = "db-",
): { dataDir: string; pgliteDir: string } | undefined {
  const templates = inject("databaseTemplates") as DatabaseTemplates | undefined;
  if (templates?.kind !== "pglite") return undefined;
  const dataDir = mkdtempSync(path.join(templates.folder, prefix));
  const pgliteDir = path.join(dataDir, "pglite");
  cpSync(templates[which], pgliteDir, { recursive: true });
  return { dataDir, pgliteDir };
}

/** A copy of the template when the run has one (opened from disk), else a new database in memory. */
async function createPgliteDatabase(
  logger: DrizzleLogger | undefined,
  copy: ReturnType<typeof copyPgliteTemplate>,
): Promise<TestDatabase> {
  if (!copy) {
    const handle = await openDatabase({ dataDir: undefined, logger });
    return { ...handle, name: "pglite (memory)", destroy: () => handle.close() };
  }
  const handle = await openDatabase({ dataDir: copy.pgliteDir, logger });
  return {
    ...handle,
    name: `pglite (${copy.pgliteDir})`,
    async destroy() {
      await handle.close();
      rmSync(copy.dataDir, { recursive: true, force: true });
    },
  };
}

async function createPostgresDatabase(logger: DrizzleLogger | undefined, template: string | undefined): Promise<TestDatabase> {
  const serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) throw new Error("TEST_DATABASE=postgres needs DATABASE_URL");
  const name = `portal_test_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  if (template) await cloneDatabase(admin, name, template);
  else await admin.query(`create database ${name}`);
  const connection = postgresConnection(Object.assign(new URL(serverUrl), { pathname: `/${name}` }).toString());
  // Behind the pooler a statement outside a transaction runs with the role's timeouts: set as
  // docs/operating.md says, to the portal's defaults.
  if (connection.pooler === "transaction") {
    await setRoleTimeouts(admin, name);
  }
  await admin.end();

  const handle = await openDatabase({ ...connection, poolMax: 5, logger });
  return {
    ...handle,
    name,
    url: connection.url,
    connection,
    async destroy() {
      await handle.close();
      const cleanup = new pg.Client({ connectionString: serverUrl });
      await cleanup.connect();
      // The pool's connections may still be closing: wait for them rather than kill them. PgBouncer
      // keeps its own to the database open (server_idle_timeout): those are ended.
      const force = connection.pooler === "transaction" ? " with (force)" : "";
      for (let attempt = 0; ; attempt++) {
        try {
          await cleanup.query(`drop database if exists ${name}${force}`);
          break;
        } catch (error) {
          if (attempt >= 50) throw error;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }
      await cleanup.end();
    },
  };
}

/**
 * How the portal reaches the database at `directUrl`: directly, or in the `pgbouncer` project
 * through the run's PgBouncer in transaction mode (tests/support/pgbouncer-setup.ts).
 */
function postgresConnection(directUrl: string): PostgresConnection {
  const port = inject("pgbouncerPort") as number | undefined;
  if (port === undefined) return { url: directUrl, pooler: "none", directUrl };
  return { url: throughPgbouncer(directUrl, port), pooler: "transaction", directUrl };
}
