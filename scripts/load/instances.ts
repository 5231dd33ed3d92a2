// The portal's instances of the load-and-faults run: `node server/main.ts` with NODE_ENV=production
// on ports of their own, one database, one public origin (the proxy's), the same secrets; started,
// stopped with SIGTERM (timed: the graceful stop lets requests in flight finish) or killed with
// SIGKILL (a crash), and started again.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { ServerLog, waitUntilReady } from "#scripts/bench/server.ts";

/** SIGKILL when SIGTERM has not stopped an instance after this long (its own hard limit: SHUTDOWN_TIMEOUT_MS, 20 s). */
const KILL_AFTER_MS = 30_000;

export class Instance {
  readonly index: number;
  readonly port: number;
  readonly log = new ServerLog();
  private readonly env: NodeJS.ProcessEnv;
  private readonly dataDir: string;
  /** The release's folder: this tree, or another release's (scripts/upgrade-test.ts). */
  private readonly cwd: string | undefined;
  private child: ChildProcess | undefined;
  /** Exits nobody asked for (a crash), with their code or signal. */
  readonly unexpectedExits: string[] = [];
  private stopping = false;

  constructor(index: number, port: number, env: NodeJS.ProcessEnv, cwd?: string) {
    this.index = index;
    this.port = port;
    this.cwd = cwd;
    this.dataDir = mkdtempSync(path.join(tmpdir(), `portal-load-${index}-`));
    this.env = { ...env, PORT: String(port), HOST: "127.0.0.1", DATA_DIR: this.dataDir };
  }

  /** Starts the instance and resolves once its /readyz answers 200; how long that took (ms). */
  async start(): Promise<number> {
    const started = performance.now();
    const child = spawn(process.execPath, ["server/main.ts"], {
      cwd: this.cwd,
      stdio: ["ignore", "pipe", "pipe"],
      env: this.env,
    });
    this.log.attach(child, `[instance ${this.index + 1}] `);
    child.on("exit", (code, signal) => {
      if (!this.stopping) this.unexpectedExits.push(signal ?? `exit ${code}`);
    });
    this.child = child;
    this.stopping = false;
    await waitUntilReady(`http://127.0.0.1:${this.port}`, child);
    return performance.now() - started;
  }

  /** SIGTERM, and how long the instance took to finish its requests and exit (ms), and how it exited. */
  stop(): Promise<{ ms: number; exit: string }> {
    return this.signal("SIGTERM");
  }

  /** SIGKILL (a crash: nothing finishes), and how it exited. The run asked for it: not an unexpected exit. */
  kill(): Promise<{ ms: number; exit: string }> {
    return this.signal("SIGKILL");
  }

  private async signal(signal: "SIGTERM" | "SIGKILL"): Promise<{ ms: number; exit: string }> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode) return { ms: 0, exit: "not running" };
    this.stopping = true;
    const started = performance.now();
    const exited = new Promise<string>((resolve) =>
      child.once("exit", (code, signal) => resolve(signal ? `signal ${signal}` : `exit ${code}`)),
    );
    child.kill(signal);
    const killer = signal === "SIGTERM" ? setTimeout(() => child.kill("SIGKILL"), KILL_AFTER_MS) : undefined;
    const exit = await exited;
    clearTimeout(killer);
    return { ms: performance.now() - started, exit };
  }

  /** Stops it if it runs (SIGTERM, then SIGKILL) and removes its data folder. */
  async destroy() {
    await this.stop().catch(() => undefined);
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}
