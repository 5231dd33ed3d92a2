// The embedded database on a full disk and on a read-only file system (issue 29), on a real file
// system of its own: a small tmpfs, filled up, then remounted read-only. Readiness reports the
// instance that cannot write, it recovers without a restart once space is back, and a start on
// such a folder says what is wrong. Needs mount(8) (root, as in CI); skipped where it is refused.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, type DatabaseHandle } from "./client.ts";
import { checkWritable, prepareDataDir } from "./data-dir.ts";

function mountTmpfs(dir: string): boolean {
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=48m", "tmpfs", dir], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}
/**
 * Makes `dir` read-only, as a file system remounted so (an error, an operator): a read-only bind
 * mount over it, as the tmpfs itself cannot be remounted while PGlite keeps its files open.
 */
function readOnly(dir: string) {
  execFileSync("mount", ["--bind", dir, dir], { stdio: "ignore" });
  execFileSync("mount", ["-o", "remount,bind,ro", dir], { stdio: "ignore" });
}
const writableAgain = (dir: string) => execFileSync("umount", [dir], { stdio: "ignore" });

/** Writes `file` until the file system has no space left. */
function fillUp(file: string) {
  const chunk = Buffer.alloc(1 << 20);
  try {
    for (;;) writeFileSync(file, chunk, { flag: "a" });
  } catch (error) {
    expect((error as NodeJS.ErrnoException).code).toBe("ENOSPC");
  }
}

const mountPoint = mkdtempSync(path.join(tmpdir(), "portal-full-disk-"));
const mounted = mountTmpfs(mountPoint);

describe.skipIf(!mounted)("the embedded database on a disk that cannot be written", () => {
  const dataDir = path.join(mountPoint, "pglite");
  const filler = path.join(mountPoint, "filler");
  let database: DatabaseHandle;
  beforeAll(async () => {
    database = await openDatabase({ dataDir });
    await database.db.execute("create table notes (id serial primary key, body text)");
  });
  afterAll(async () => {
    rmSync(filler, { force: true });
    await database?.close();
    execFileSync("umount", [mountPoint]);
    rmSync(mountPoint, { recursive: true, force: true });
  });

  it("is not ready while the disk is full, and is again once space is back, without a restart", async () => {
    await database.ping();
    fillUp(filler);
    await expect(database.ping()).rejects.toThrow(/no space left on device \(ENOSPC\)/);
    await database.db.execute("select count(*) from notes"); // reads go on

    rmSync(filler);
    await database.ping();
    await database.db.execute("insert into notes (body) select repeat('x', 1000) from generate_series(1, 200)");
    const { rows } = (await database.db.execute("select count(*)::int as n from notes")) as unknown as { rows: { n: number }[] };
    expect(rows[0]!.n).toBe(200);
  });

  it("is not ready on a read-only file system, and is again once it is writable", async () => {
    readOnly(mountPoint);
    try {
      await expect(database.ping()).rejects.toThrow(/read-only file system \(EROFS\)/);
    } finally {
      writableAgain(mountPoint);
    }
    await database.ping();
  });

  it("says at start what is wrong with its folder", async () => {
    readOnly(mountPoint);
    try {
      await expect(openDatabase({ dataDir: path.join(mountPoint, "another") })).rejects.toThrow(
        /^The embedded database's folder \(DATA_DIR\): .*another cannot be written: read-only file system \(EROFS\)$/,
      );
    } finally {
      writableAgain(mountPoint);
    }
    fillUp(filler);
    try {
      await expect(openDatabase({ dataDir: path.join(mountPoint, "third") })).rejects.toThrow(
        /no space left on device \(ENOSPC\)/,
      );
    } finally {
      rmSync(filler);
    }
  });
});

describe("the embedded database's folder", () => {
  it("is made the owner's only: it holds every customer's data", async () => {
    const parent = mkdtempSync(path.join(tmpdir(), "portal-data-mode-"));
    try {
      const dataDir = path.join(parent, "data");
      await prepareDataDir(dataDir);
      expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    } finally {
      rmSync(parent, { recursive: true, force: true });
    }
  });

  it("answers probes that overlap alike: one's cleaning up does not fail the other", async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), "portal-data-probes-"));
    try {
      const probes = await Promise.allSettled(Array.from({ length: 8 }, () => checkWritable(dataDir)));
      expect(probes.map((probe) => probe.status)).toEqual(Array(8).fill("fulfilled"));
      expect(readdirSync(dataDir)).toEqual([]); // nothing left behind
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
