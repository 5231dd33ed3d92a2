// Files holding customers' personal data (e-invoices with names, codici fiscali and addresses;
// the embedded database; secrets) are the portal's user's only: 0600 in folders made 0700. A
// folder that exists already keeps its mode: it may be one the operator made, shared on purpose
// with whatever collects from it (docs/operating.md, "Back up and restore").
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { chmod, mkdir, writeFile } from "node:fs/promises";

const PRIVATE_DIR_MODE = 0o700;
const PRIVATE_FILE_MODE = 0o600;

/** Makes `dir` and any missing parent, each readable by the owner only. */
export function makePrivateDirSync(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
}

export async function makePrivateDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
}

// A mode given to writeFile applies only when it creates the file: the chmod also covers a file
// left over by an earlier write (an interrupted one, or one by a release that wrote 0644).

/** Writes `file` readable and writable by the owner only, whether it existed or not. */
export function writePrivateFileSync(file: string, data: string): void {
  writeFileSync(file, data, { mode: PRIVATE_FILE_MODE });
  chmodSync(file, PRIVATE_FILE_MODE);
}

export async function writePrivateFile(file: string, data: string): Promise<void> {
  await writeFile(file, data, { mode: PRIVATE_FILE_MODE });
  await chmod(file, PRIVATE_FILE_MODE);
}
