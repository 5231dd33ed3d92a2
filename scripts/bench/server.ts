// What the measuring scripts (npm run bench, npm run load) share about the production server they
// start: a free port, the secrets production wants, the demo catalogue it measures with, waiting
// for /readyz, and its output (pino's JSON lines at warn level and above) tallied by message for
// the report.
import type { ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { loadConfig } from "#server/config.ts";
import { configuredDatabase, openDatabase } from "#server/db/client.ts";
import { seedDatabase } from "#server/db/seed/index.ts";
import { connect, createServer } from "node:net";
import type { AddressInfo } from "node:net";

/**
 * How long a process's main thread (the one that runs its JavaScript) has been on a CPU, in
 * nanoseconds: the first field of /proc/<pid>/task/<pid>/schedstat, the scheduler's own account.
 */
export function mainThreadCpuNs(pid: number): number {
  return Number(readFileSync(`/proc/${pid}/task/${pid}/schedstat`, "utf8").split(" ")[0]);
}

export function freePort() {
  return new Promise<number>((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** Whether something accepts connections on 127.0.0.1:`port` now (a server started, not yet ready). */
export const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });

/** The secrets NODE_ENV=production refuses to start without (server/config.ts), new ones. */
export function productionSecrets() {
  const secret = () => randomBytes(48).toString("base64url");
  return {
    SESSION_SECRET: secret(),
    OIDC_CLIENT_SECRET: secret(),
    OIDC_COOKIE_KEYS: secret(),
    ACTIVATION_CODE_KEY: secret(),
  };
}

/**
 * The environment of a production instance a measurement starts: the sandbox card gateway, mail
 * off (each mail stays in the outbox table: a measurement sends none), new secrets, warnings and
 * errors only in the log; `settings` add or override the rest (PORT, DATABASE_URL…).
 */
export function measuredProductionEnv(settings: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return {
    ...process.env,
    NODE_ENV: "production",
    PAYMENTS: "sandbox",
    SMTP_URL: "",
    MAIL_DISABLED: "true",
    LOG_LEVEL: "warn",
    ...productionSecrets(),
    ...settings,
  };
}

/**
 * The demo catalogue in the database the server of `env` will use (migrated first): a production
 * start creates no product (docs/operating.md, "The catalogue"), and the runs buy and read the
 * demo's.
 */
export async function seedDemoCatalogue(env: NodeJS.ProcessEnv) {
  const config = loadConfig({ env });
  const database = await openDatabase(configuredDatabase(config.database, { poolMax: 1 }));
  try {
    await database.withStartupLock(async (db) => {
      await database.migrate(db);
      await seedDatabase(db, config.links);
    });
  } finally {
    await database.close();
  }
}

/** Resolves once GET /readyz answers 200; fails when the process exits or `timeoutMs` passes. */
export async function waitUntilReady(origin: string, child: ChildProcess, timeoutMs = 120_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode)
      throw new Error(`the server exited during start-up (${child.signalCode ?? `exit ${child.exitCode}`}; its output is above)`);
    try {
      const res = await fetch(`${origin}/readyz`, { signal: AbortSignal.timeout(2_000) });
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`the server was not ready within ${timeoutMs / 1000} s (GET /readyz)`);
}

type LogEntry = {
  level?: number;
  msg?: string;
  err?: { message?: string; stack?: string };
  req?: { method?: string; url?: string };
};
const LEVELS: Record<number, string> = { 10: "trace", 20: "debug", 30: "info", 40: "warn", 50: "error", 60: "fatal" };

/** A server's output: pino lines grouped by level, message and error message; anything else kept verbatim. */
export class ServerLog {
  private readonly entries = new Map<string, { count: number; example: string }>();
  private readonly plain: string[] = [];

  /** Reads the child's stdout and stderr line by line; `prefix` names the server in the report. */
  attach(child: ChildProcess, prefix = "") {
    for (const stream of [child.stdout, child.stderr]) {
      if (!stream) continue;
      let pending = "";
      stream.setEncoding("utf8");
      stream.on("data", (chunk: string) => {
        const lines = (pending + chunk).split("\n");
        pending = lines.pop()!;
        for (const line of lines) if (line.trim()) this.line(line, prefix);
      });
    }
  }

  line(line: string, prefix = "") {
    let entry: LogEntry;
    try {
      entry = JSON.parse(line) as LogEntry;
    } catch {
      if (this.plain.length < 100) this.plain.push(prefix + line); // a crash or a console message
      return;
    }
    const key = `${LEVELS[entry.level ?? 0] ?? entry.level} "${entry.msg}"${entry.err?.message ? `: ${entry.err.message}` : ""}`;
    const seen = this.entries.get(key);
    if (seen) return void seen.count++;
    const stack = entry.err?.stack?.split("\n").slice(1, 4) ?? [];
    const example = [entry.req && `first: ${prefix}${entry.req.method} ${entry.req.url}`, ...stack].filter(Boolean);
    this.entries.set(key, { count: 1, example: example.map((l) => `\n      ${l!.trim()}`).join("") });
  }

  /** Every group: its key (level, message, error) and how many lines it had. */
  counts(): { key: string; count: number }[] {
    return [...this.entries].map(([key, { count }]) => ({ key, count }));
  }

  print(what = "The server") {
    if (this.entries.size === 0 && this.plain.length === 0) return;
    const total = [...this.entries.values()].reduce((sum, { count }) => sum + count, this.plain.length);
    console.log(`\n${what} logged ${total} line(s) at warn level or above:`);
    for (const [key, { count, example }] of this.entries) console.log(`  ${String(count).padStart(7)}×  ${key}${example}`);
    for (const line of this.plain) console.log(`  [server] ${line}`);
  }
}
