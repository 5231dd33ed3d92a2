// The embedded database's folder on a full disk or a read-only file system (issue 29): reads went
// on, every write failed, and /readyz still answered 200, so a balancer kept the instance in
// rotation; a start on such a folder failed with '[object Object]' or 'PGlite failed to initialize
// properly'. One page written, synced and removed says whether the folder takes writes now. (A
// small committed insert is no probe: it went through on a full disk, into the WAL's preallocated
// segment, while any write that grew a table failed.)
import { existsSync } from "node:fs";
import { open, unlink } from "node:fs/promises";
import path from "node:path";
import { makePrivateDir } from "#server/lib/private-files.ts";

/** A database page: what a write that grows a table needs at least. */
const PROBE_BYTES = 8192;
const PROBE_FILE = ".write-probe";

/** What the system's error codes mean, as an operator reads them. */
const MEANINGS: Record<string, string> = {
  ENOSPC: "no space left on device",
  EDQUOT: "disk quota exceeded",
  EROFS: "read-only file system",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
};

/** The folder `dir` cannot be written; the message says why, in the system's words. */
class DataDirNotWritable extends Error {
  override name = "DataDirNotWritable";
  readonly code: string | undefined;
  constructor(dir: string, code: string | undefined, options?: ErrorOptions) {
    super(`${dir} cannot be written: ${describeFailure(code, options?.cause)}`, options);
    this.code = code;
  }
}

/** `dir`, or the closest of its parents that exists. */
function nearestExisting(dir: string): string {
  let at = path.resolve(dir);
  while (!existsSync(at) && path.dirname(at) !== at) at = path.dirname(at);
  return at;
}

function describeFailure(code: string | undefined, cause: unknown): string {
  const meaning = code ? MEANINGS[code] : undefined;
  if (meaning) return `${meaning} (${code})`;
  return cause instanceof Error ? cause.message : String(cause);
}

/** The probe under way in each folder: readiness probes that overlap share it. */
const probing = new Map<string, Promise<void>>();

/**
 * Resolves when `dir` takes a page written and synced; rejects with DataDirNotWritable otherwise.
 * Probes that overlap (the balancer's and an operator's /readyz) share one: each writing and then
 * removing the same file, the first one's removal failed the other with ENOENT, and the instance
 * was reported unready with a disk that was fine.
 */
export function checkWritable(dir: string): Promise<void> {
  let probe = probing.get(dir);
  if (!probe) {
    probe = writeProbe(dir).finally(() => probing.delete(dir));
    probing.set(dir, probe);
  }
  return probe;
}

async function writeProbe(dir: string): Promise<void> {
  const file = path.join(dir, PROBE_FILE);
  try {
    const handle = await open(file, "w", 0o600);
    try {
      await handle.write(Buffer.alloc(PROBE_BYTES));
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch (error) {
    await unlink(file).catch(() => undefined);
    throw new DataDirNotWritable(dir, (error as NodeJS.ErrnoException).code, { cause: error });
  }
  await unlink(file);
}

/** Creates `dir` if need be and checks that it takes writes (above), before a database opens there. */
export async function prepareDataDir(dir: string): Promise<void> {
  try {
    // The embedded database holds every customer's data: a folder made here is the owner's only.
    await makePrivateDir(dir);
  } catch (error) {
    // A recursive mkdir on a read-only file system says ENOENT: the folder it would be made in
    // tells the real reason.
    await checkWritable(nearestExisting(dir)).catch((reason: unknown) => {
      throw new DataDirNotWritable(dir, (reason as DataDirNotWritable).code, { cause: reason });
    });
    throw new DataDirNotWritable(dir, (error as NodeJS.ErrnoException).code, { cause: error });
  }
  await checkWritable(dir);
}

/** Any thrown value as readable text: PGlite's start can throw a plain object or an Emscripten status. */
export function describeThrown(thrown: unknown): string {
  if (thrown instanceof Error) return thrown.message;
  if (typeof thrown === "object" && thrown !== null) {
    try {
      return JSON.stringify(thrown);
    } catch {
      return Object.prototype.toString.call(thrown);
    }
  }
  return String(thrown);
}
