// A database that a test and the child processes it starts share (the crash tests): a new
// PostgreSQL database when the suite runs against PostgreSQL, else a PGlite folder on disk,
// migrated and seeded (both copies of the run's templates, tests/support/database-templates.ts).
// PGlite admits one process at a time, so each side opens it only while it works
// (`withDatabase`), and the child gets its location.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { openDatabase, type DatabaseHandle } from "#server/db/client.ts";
import { seedDemoCoupons } from "#server/db/seed/coupons.ts";
import { seedDatabase } from "#server/db/seed/index.ts";
import { testConfig } from "./config.ts";
import { copyPgliteTemplate, createTestDatabase } from "./database.ts";
import { connectionEnv, locationOf } from "./database-location.ts";

export async function createSharedDatabase(folderPrefix: string) {
  const postgres = process.env.TEST_DATABASE === "postgres" ? await createTestDatabase() : undefined;
  let pgliteDir: string | undefined;
  let dataDir: string | undefined;
  if (!postgres) {
    // The PGlite folder sits in a folder of its own, as `pglite/` in a DATA_DIR (what a script run
    // as the portal's operator finds): a copy of the run's template, or migrated and seeded here.
    const copy = copyPgliteTemplate("seeded", folderPrefix);
    if (copy) ({ dataDir, pgliteDir } = copy);
    else {
      dataDir = mkdtempSync(path.join(tmpdir(), folderPrefix));
      pgliteDir = path.join(dataDir, "pglite");
      const handle = await openDatabase({ dataDir: pgliteDir });
      await handle.migrate(handle.db);
      await seedDatabase(handle.db, testConfig().links);
      await seedDemoCoupons(handle.db);
      await handle.close();
    }
  }
  /** Where another process finds it (`databaseAt`): PostgreSQL's connection, or the PGlite folder. */
  const location = locationOf(postgres ? postgres.connection! : pgliteDir!);
  return {
    location,
    /** The settings that point the portal's scripts at it: DATABASE_URL (and the pooler's), or DATA_DIR. */
    env: postgres ? connectionEnv(postgres.connection!) : { DATA_DIR: dataDir! },
    async withDatabase<T>(work: (database: DatabaseHandle) => Promise<T>): Promise<T> {
      const handle = await openDatabase(postgres ? { ...postgres.connection!, poolMax: 2 } : { dataDir: pgliteDir! });
      try {
        return await work(handle);
      } finally {
        await handle.close();
      }
    },
    async destroy() {
      await postgres?.destroy();
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
