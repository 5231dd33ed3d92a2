// A consistent copy of an embedded database while it is open: what PGlite documents for it, its
// dumpDataDir() (a gzipped tarball of the data folder, which `PGlite.create({ loadDataDir })`
// opens again), taken right after a checkpoint. The caller makes sure no statement runs meanwhile
// and no transaction is open (pglite-thread.ts; an operator's own process holds the database
// alone): every committed transaction is then in the folder's pages, none is half-done, and
// PostgreSQL opening the copy has nothing to replay.
import { PGlite } from "@electric-sql/pglite";

/** The data folder as a gzipped tarball, after a checkpoint. */
export async function takeSnapshot(db: PGlite): Promise<Uint8Array> {
  await db.exec("checkpoint");
  const tarball = await db.dumpDataDir("gzip");
  return new Uint8Array(await tarball.arrayBuffer());
}

/** A snapshot made a database again, in `dataDir` (empty): PGlite loads the tarball, then closes. */
export async function restoreSnapshot(dataDir: string, tarball: Uint8Array<ArrayBuffer>): Promise<void> {
  const db = await PGlite.create({ dataDir, loadDataDir: new Blob([tarball]) });
  await db.query("select 1");
  await db.close();
}
