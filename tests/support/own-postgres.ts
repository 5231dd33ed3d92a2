// A PostgreSQL cluster of a test's own, made with PostgreSQL's initdb and pg_ctl in a temporary
// folder: for what must not be done to the server the whole run shares, such as freezing its
// processes (SIGSTOP), as a hung host or a stalled disk would, or stopping it for a while behind
// a pooler. Needs root (it runs PostgreSQL as the postgres user) and Debian's PostgreSQL binaries;
// `available` says whether both are there.
import { execFileSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

const BIN_ROOT = "/usr/lib/postgresql";

function binDir(): string | undefined {
  if (!existsSync(BIN_ROOT)) return undefined;
  const versions = readdirSync(BIN_ROOT).filter((v) => existsSync(path.join(BIN_ROOT, v, "bin", "initdb")));
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  return newest ? path.join(BIN_ROOT, newest, "bin") : undefined;
}

export const ownPostgresAvailable = process.getuid?.() === 0 && binDir() !== undefined;

export type OwnPostgres = {
  url: string;
  /** Stops every process of the cluster (SIGSTOP): connections are accepted by the kernel, nothing answers. */
  freeze(): void;
  /** Lets them run again (SIGCONT). */
  thaw(): void;
  /** Stops the server as a restart's first half does (pg_ctl stop -m fast): every connection is ended, none accepted. */
  down(): void;
  /** Starts it again after `down`, and returns once it accepts connections. */
  up(): void;
  stop(): void;
};

export function startOwnPostgres(port: number): OwnPostgres {
  const bin = binDir()!;
  const dir = mkdtempSync(path.join(tmpdir(), "portal-own-postgres-"));
  chownSync(dir, Number(execFileSync("id", ["-u", "postgres"]).toString().trim()), -1);
  const data = path.join(dir, "data");
  const asPostgres = (tool: string, args: string[]) =>
    execFileSync("runuser", ["-u", "postgres", "--", path.join(bin, tool), ...args], { stdio: "ignore" });
  asPostgres("initdb", ["-D", data, "-A", "trust", "-U", "postgres"]);
  /** The postmaster, whose children are the cluster's other processes. */
  let postmaster = 0;
  const start = () => {
    try {
      startServer();
    } catch (error) {
      // pg_ctl's own words are in its log, not in the error execFileSync throws.
      const log = existsSync(path.join(dir, "log")) ? readFileSync(path.join(dir, "log"), "utf8").slice(-1_000) : "(no log)";
      throw new Error(`${(error as Error).message}\n${log}`, { cause: error });
    }
    postmaster = Number(readFileSync(path.join(data, "postmaster.pid"), "utf8").split("\n")[0]);
  };
  const startServer = () =>
    asPostgres("pg_ctl", [
      "-D",
      data,
      "-o",
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1`,
      "-l",
      path.join(dir, "log"),
      "-w",
      "start",
    ]);
  start();
  /** The postmaster and its children (backends, checkpointer, WAL writer …). */
  const processes = () => {
    const children = execFileSync("ps", ["-o", "pid=", "--ppid", String(postmaster)])
      .toString()
      .trim()
      .split(/\s+/)
      .filter(Boolean);
    return [postmaster, ...children.map(Number)];
  };
  const signal = (name: NodeJS.Signals) => processes().forEach((pid) => process.kill(pid, name));
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    freeze: () => signal("SIGSTOP"),
    thaw: () => signal("SIGCONT"),
    down: () => asPostgres("pg_ctl", ["-D", data, "-m", "fast", "-w", "stop"]),
    up: start,
    stop() {
      signal("SIGCONT");
      asPostgres("pg_ctl", ["-D", data, "-m", "immediate", "stop"]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
