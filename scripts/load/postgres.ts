// A private PostgreSQL cluster for the load-and-faults run: initdb into a temporary folder, a
// server on a free port of 127.0.0.1 (its socket in that folder, trust authentication), restarted
// and crashed on purpose during the load, stopped and removed at the end. Never the machine's shared server,
// which others' tests use. PostgreSQL refuses to run as root: as root the binaries run as the
// `postgres` system user (runuser), which owns the folder.
import { execFile, spawnSync } from "node:child_process";
import { promisify } from "node:util";
import { chownSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { missingTools, postgresBinDirs } from "#server/lib/postgres-binaries.ts";

/** The folder of initdb and pg_ctl (server/lib/postgres-binaries.ts: PG_BINDIR, pg_config, Debian's). */
function postgresBinDir(): string {
  const [found] = postgresBinDirs(["initdb", "pg_ctl"], process.env.PG_BINDIR);
  if (!found) throw new Error(missingTools(["initdb", "pg_ctl"], "postgresql"));
  return found;
}

export type PrivatePostgres = {
  url: string;
  port: number;
  /** `pg_ctl restart -m fast`: every connection is cut; resolves once the server accepts connections again. */
  restart(): Promise<{ downMs: number }>;
  /**
   * A crash: `pg_ctl stop -m immediate` (no checkpoint, every connection dropped; the next start
   * recovers from the WAL), then `pg_ctl start`; resolves once it accepts connections again.
   */
  crash(): Promise<{ downMs: number }>;
  /** Stops the server (immediately) and removes its folder. Safe to call twice. */
  destroy(): void;
};

export function startPrivatePostgres(port: number): PrivatePostgres {
  const bin = postgresBinDir();
  const asRoot = process.getuid?.() === 0;
  const dir = mkdtempSync(path.join(tmpdir(), "portal-load-pg-"));
  const data = path.join(dir, "data");
  if (asRoot) {
    const ids = spawnSync("id", ["-u", "postgres"], { encoding: "utf8" });
    const gids = spawnSync("id", ["-g", "postgres"], { encoding: "utf8" });
    if (ids.status !== 0 || gids.status !== 0) {
      rmSync(dir, { recursive: true, force: true });
      throw new Error(
        "Running as root, and PostgreSQL refuses to run as root: a `postgres` system user is needed to run the private cluster.",
      );
    }
    chownSync(dir, Number(ids.stdout.trim()), Number(gids.stdout.trim()));
  }
  const run = (tool: string, args: string[]) => {
    const command = asRoot ? "runuser" : path.join(bin, tool);
    const all = asRoot ? ["-u", "postgres", "--", path.join(bin, tool), ...args] : args;
    const result = spawnSync(command, all, { encoding: "utf8" });
    if (result.status !== 0) {
      throw new Error(`${tool} ${args.join(" ")} failed (exit ${result.status}):\n${result.stdout}${result.stderr}`);
    }
    return result.stdout;
  };
  // The restart must not stop this process's event loop: the load and the proxy go on meanwhile.
  const runAsync = async (tool: string, args: string[]) => {
    const command = asRoot ? "runuser" : path.join(bin, tool);
    const all = asRoot ? ["-u", "postgres", "--", path.join(bin, tool), ...args] : args;
    await promisify(execFile)(command, all, { encoding: "utf8" });
  };
  const options = [
    `-p ${port}`,
    `-k ${dir}`,
    "-c listen_addresses=127.0.0.1",
    "-c max_connections=100",
    "-c shared_buffers=128MB",
  ].join(" ");
  let destroyed = false;
  const destroy = () => {
    if (destroyed) return;
    destroyed = true;
    try {
      if (existsSync(path.join(data, "postmaster.pid"))) run("pg_ctl", ["stop", "-D", data, "-m", "immediate", "-w"]);
    } catch (error) {
      console.error(`stopping the private PostgreSQL: ${(error as Error).message}`);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    run("initdb", ["-D", data, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-sync", "--locale=C"]);
    run("pg_ctl", ["start", "-D", data, "-l", path.join(dir, "server.log"), "-o", options, "-w", "-t", "60"]);
  } catch (error) {
    destroy();
    throw error;
  }
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    async restart() {
      const started = performance.now();
      // pg_ctl restart reuses the options the server was started with (postmaster.opts).
      await runAsync("pg_ctl", ["restart", "-D", data, "-m", "fast", "-l", path.join(dir, "server.log"), "-w", "-t", "60"]);
      return { downMs: performance.now() - started };
    },
    async crash() {
      const started = performance.now();
      await runAsync("pg_ctl", ["stop", "-D", data, "-m", "immediate", "-w"]);
      await runAsync("pg_ctl", ["start", "-D", data, "-l", path.join(dir, "server.log"), "-o", options, "-w", "-t", "60"]);
      return { downMs: performance.now() - started };
    },
    destroy,
  };
}
