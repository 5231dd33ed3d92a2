// Where PostgreSQL's own programs are (pg_dump and pg_restore for `npm run admin -- backup`,
// initdb and pg_ctl for `npm run load`'s private cluster): PG_BINDIR, else `pg_config --bindir`,
// else Debian's /usr/lib/postgresql/<major>/bin, the newest first.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";

const DEBIAN_ROOT = "/usr/lib/postgresql";

/** The folders that may hold PostgreSQL's programs, in the order they are preferred. */
function postgresBinCandidates(pgBinDir: string | undefined): string[] {
  const candidates: string[] = [];
  if (pgBinDir) candidates.push(pgBinDir);
  try {
    candidates.push(execFileSync("pg_config", ["--bindir"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim());
  } catch {
    // no pg_config on the PATH
  }
  if (existsSync(DEBIAN_ROOT)) {
    const versions = readdirSync(DEBIAN_ROOT)
      .filter((v) => /^\d+$/.test(v))
      .sort((a, b) => Number(b) - Number(a));
    candidates.push(...versions.map((v) => path.join(DEBIAN_ROOT, v, "bin")));
  }
  return [...new Set(candidates)];
}

/** The folders holding every one of `tools`, preferred first (PG_BINDIR alone when it is set). */
export function postgresBinDirs(tools: string[], pgBinDir: string | undefined): string[] {
  const candidates = pgBinDir ? [pgBinDir] : postgresBinCandidates(pgBinDir);
  return candidates.filter((dir) => tools.every((tool) => existsSync(path.join(dir, tool))));
}

/** A program's major version, from its `--version` ("pg_dump (PostgreSQL) 15.20 (Debian …)" → 15). */
export function toolMajorVersion(program: string): number {
  const text = execFileSync(program, ["--version"], { encoding: "utf8" });
  const match = /\(PostgreSQL\)\s+(\d+)/.exec(text);
  if (!match) throw new Error(`${program} --version said "${text.trim()}", not a PostgreSQL version`);
  return Number(match[1]);
}

/** The message when none of the candidates has the programs (`debianPackage`: the package that has them). */
export function missingTools(tools: string[], debianPackage: string): string {
  return (
    `PostgreSQL's ${tools.join(" and ")} were not found: install them (Debian: apt-get install ${debianPackage}) ` +
    `or set PG_BINDIR to their folder.`
  );
}
