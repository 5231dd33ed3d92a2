// A private PgBouncer (Debian's pgbouncer) in transaction mode in front of a PostgreSQL server, with
// the configuration docs/operating.md ships (deploy/pgbouncer/pgbouncer.ini), on a free port of
// 127.0.0.1: for the PostgreSQL integration suite through it (vitest's `pgbouncer` project), and
// for `npm run load -- --pgbouncer`. Every database of
// the server is reached through it under its own name, with trust authentication here (the
// server's own authentication behind it: the URL's password, when it has one, is PgBouncer's to
// log in with). PgBouncer refuses to run as root: as root it runs as `nobody`.
import { spawn } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type pg from "pg";
import { DEFAULT_DATABASE_TIMEOUTS } from "#server/db/timeouts.ts";
import { accepts, freePort } from "./bench/server.ts";

/** Debian's pgbouncer (`apt-get install pgbouncer`; .ci/run installs it), or undefined. */
const PGBOUNCER_BINARY = ["/usr/sbin/pgbouncer", "/usr/bin/pgbouncer"].find((candidate) => existsSync(candidate));

const SHIPPED_PGBOUNCER_CONFIG = path.join(import.meta.dirname, "../deploy/pgbouncer/pgbouncer.ini");

export type PrivatePgbouncer = {
  port: number;
  /** `directUrl` (a database of the server behind) as reached through PgBouncer. */
  urlOf(directUrl: string): string;
  /** PgBouncer's log so far. */
  log(): string;
  stop(): Promise<void>;
};

/** `directUrl` (a database of the server behind the PgBouncer on `port`) as reached through it. */
export function throughPgbouncer(directUrl: string, port: number): string {
  const url = new URL(directUrl);
  url.hostname = "127.0.0.1";
  url.port = String(port);
  return url.toString();
}

/** The portal's default timeouts, as the role's defaults behind the pooler (server/db/pooler.ts). */
const ROLE_TIMEOUTS = {
  statement_timeout: DEFAULT_DATABASE_TIMEOUTS.statementMs,
  lock_timeout: DEFAULT_DATABASE_TIMEOUTS.lockMs,
  idle_in_transaction_session_timeout: DEFAULT_DATABASE_TIMEOUTS.idleInTransactionMs,
};

/**
 * Sets the connected role's timeouts (in `database` only, when given) to the portal's defaults, as
 * docs/operating.md ("PgBouncer") says: behind the pooler a statement outside a transaction runs
 * with them, and the start warns when they differ.
 */
export async function setRoleTimeouts(admin: pg.Client, database?: string): Promise<void> {
  for (const [setting, value] of Object.entries(ROLE_TIMEOUTS))
    await admin.query(`alter role current_user ${database ? `in database ${database} ` : ""}set ${setting} = ${value}`);
}

/** `ini` with `key = …` (a line that must be there: the shipped file changed shape otherwise) set to `value`. */
function setting(ini: string, key: string, value: string): string {
  const line = new RegExp(`^${key} =.*$`, "m");
  if (!line.test(ini)) throw new Error(`deploy/pgbouncer/pgbouncer.ini no longer sets ${key}: update scripts/pgbouncer.ts`);
  return ini.replace(line, `${key} = ${value}`);
}

/** How much of PgBouncer's log is kept (it logs each client's login and logout). */
const LOG_KEPT = 200_000;

/**
 * PgBouncer in front of the server of `serverUrl` (any database on it; its user, and password when
 * given, are PgBouncer's), with the shipped settings but for `overrides` (e.g. default_pool_size).
 */
export async function startPgbouncer(serverUrl: string, overrides: Record<string, string> = {}): Promise<PrivatePgbouncer> {
  if (!PGBOUNCER_BINARY) throw new Error("pgbouncer is not installed (Debian: apt-get install pgbouncer)");
  const server = new URL(serverUrl);
  const user = decodeURIComponent(server.username || "postgres");
  const dir = mkdtempSync(path.join(tmpdir(), "portal-pgbouncer-"));
  const asRoot = process.getuid?.() === 0;
  const port = await freePort();
  let ini = readFileSync(SHIPPED_PGBOUNCER_CONFIG, "utf8");
  const databases = /^\[databases\]\n(?:[^[\n].*\n|\n)*/m;
  if (!databases.test(ini))
    throw new Error("deploy/pgbouncer/pgbouncer.ini has no [databases] section: update scripts/pgbouncer.ts");
  // Every database of the server, under its own name (`*`: PgBouncer's fallback).
  ini = ini.replace(databases, `[databases]\n* = host=${server.hostname} port=${server.port || 5432}\n\n`);
  const settings = {
    logfile: "",
    pidfile: "",
    listen_addr: "127.0.0.1",
    listen_port: String(port),
    unix_socket_dir: "",
    auth_type: "trust",
    auth_file: path.join(dir, "userlist.txt"),
    ...overrides,
  };
  for (const [key, value] of Object.entries(settings)) ini = setting(ini, key, value);
  writeFileSync(path.join(dir, "pgbouncer.ini"), ini);
  writeFileSync(path.join(dir, "userlist.txt"), `"${user}" "${decodeURIComponent(server.password)}"\n`);
  if (asRoot) {
    // Its files readable by `nobody` alone: the password may be in userlist.txt.
    const nobody = 65534;
    for (const file of [dir, path.join(dir, "pgbouncer.ini"), path.join(dir, "userlist.txt")]) chownSync(file, nobody, -1);
    chmodSync(dir, 0o700);
  }

  const child = spawn(PGBOUNCER_BINARY, [...(asRoot ? ["-u", "nobody"] : []), path.join(dir, "pgbouncer.ini")], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let log = "";
  child.stderr.on("data", (chunk: Buffer) => {
    log = (log + chunk.toString()).slice(-LOG_KEPT);
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  for (let wait = 0; !(await accepts(port)); wait++) {
    if (child.exitCode !== null || wait > 100) {
      child.kill("SIGTERM");
      await exited;
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`pgbouncer did not start: ${log}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    port,
    urlOf: (directUrl) => throughPgbouncer(directUrl, port),
    log: () => log,
    async stop() {
      // SIGINT: PgBouncer's "safe shutdown" waits for every client to leave; SIGTERM closes at once.
      if (child.exitCode === null) child.kill("SIGTERM");
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
