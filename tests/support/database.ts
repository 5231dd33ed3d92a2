// A fresh, migrated and seeded database for one test file: an in-memory PGlite, or a new
// database on the PostgreSQL server of DATABASE_URL when the suite runs against PostgreSQL.
import { randomBytes } from "node:crypto";
import type { Logger as DrizzleLogger } from "drizzle-orm";
import pg from "pg";
import { openDatabase, type DatabaseHandle } from "../../server/db/client.ts";
import { seedDatabase } from "../../server/db/seed/index.ts";
import { testConfig } from "./config.ts";

export type TestDatabase = DatabaseHandle & {
  name: string;
  /** The connection URL when this is a PostgreSQL database (for opening a second pool). */
  url?: string;
  destroy(): Promise<void>;
};

/** `logger` sees every statement Drizzle sends (e.g. to count a page's queries). */
export async function createTestDatabase({
  migrate = true,
  seed = true,
  logger,
}: { migrate?: boolean; seed?: boolean; logger?: DrizzleLogger } = {}): Promise<TestDatabase> {
  const handle =
    process.env.TEST_DATABASE === "postgres" ? await createPostgresDatabase(logger) : await createPgliteDatabase(logger);
  if (migrate) await handle.migrate(handle.db);
  if (migrate && seed) await seedDatabase(handle.db, testConfig().links);
  return handle;
}

async function createPgliteDatabase(logger?: DrizzleLogger): Promise<TestDatabase> {
  const handle = await openDatabase({ dataDir: undefined, logger });
  return { ...handle, name: "pglite (memory)", destroy: () => handle.close() };
}

async function createPostgresDatabase(logger?: DrizzleLogger): Promise<TestDatabase> {
  const serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) throw new Error("TEST_DATABASE=postgres needs DATABASE_URL");
  const name = `portal_test_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();

  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const handle = await openDatabase({ url: url.toString(), poolMax: 5, logger });
  return {
    ...handle,
    name,
    url: url.toString(),
    async destroy() {
      await handle.close();
      const cleanup = new pg.Client({ connectionString: serverUrl });
      await cleanup.connect();
      // The pool's connections may still be closing: wait for them rather than kill them.
      for (let attempt = 0; ; attempt++) {
        try {
          await cleanup.query(`drop database if exists ${name}`);
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
