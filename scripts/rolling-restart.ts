// `npm run rolling-restart`: restarts the portal's instances one after the other
// (docs/operating.md, "Rolling restart"), each only once the one before is back, as the proxy
// sees it:
//   npm run rolling-restart -- --restart 'systemctl restart portal@{port}' 127.0.0.1:3001 127.0.0.1:3002
// For each instance: the restart command (SIGTERM: the instance drains, stops, and is started
// again), then its /readyz until it answers 200 at CHECKS checks in a row, INTERVAL ms apart. The
// checks span longer than nginx's fail_timeout (2 s, deploy/nginx/portal.conf) and its one-second
// clock: by then nginx has stopped leaving out the instance that refused its connections while it
// restarted, so when the next instance stops, one is always in rotation.
// Options: --checks N (5), --interval MS (1000), --timeout MS (120000, per instance).
import { spawn } from "node:child_process";
import { parseArgs } from "node:util";

type RollingRestartOptions = {
  /** Stops and starts one instance (HOST:PORT); resolves once it has been started again. */
  restart: (instance: string) => Promise<void>;
  /** 200s in a row from /readyz that make an instance ready. */
  checks?: number;
  intervalMs?: number;
  /** How long an instance may take to be ready after its restart. */
  timeoutMs?: number;
  report?: (line: string) => void;
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function readyz(instance: string, timeoutMs: number): Promise<number | string> {
  try {
    const answer = await fetch(`http://${instance}/readyz`, { signal: AbortSignal.timeout(timeoutMs) });
    await answer.arrayBuffer();
    return answer.status;
  } catch (error) {
    return (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).name;
  }
}

/** Resolves once `instance`'s /readyz has answered 200 `checks` times in a row. */
async function waitUntilReadyInARow(instance: string, { checks = 5, intervalMs = 1_000, timeoutMs = 120_000 } = {}) {
  const deadline = Date.now() + timeoutMs;
  let inARow = 0;
  let last: number | string = "not asked";
  while (inARow < checks) {
    if (Date.now() > deadline) throw new Error(`${instance} was not ready within ${timeoutMs} ms (/readyz: ${last})`);
    last = await readyz(instance, intervalMs);
    inARow = last === 200 ? inARow + 1 : 0;
    if (inARow < checks) await sleep(intervalMs);
  }
}

/** Restarts `instances` one after the other, each once the one before is ready. */
export async function rollingRestart(instances: string[], options: RollingRestartOptions) {
  const { restart, report = console.log } = options;
  for (const instance of instances) {
    report(`${instance}: restarting`);
    await restart(instance);
    await waitUntilReadyInARow(instance, options);
    report(`${instance}: ready`);
  }
}

/** Runs `command` in a shell, with {instance}, {host} and {port} replaced; rejects unless it exits 0. */
function runRestartCommand(command: string, instance: string): Promise<void> {
  const [host = "", port = ""] = [instance.slice(0, instance.lastIndexOf(":")), instance.slice(instance.lastIndexOf(":") + 1)];
  const line = command.replaceAll("{instance}", instance).replaceAll("{host}", host).replaceAll("{port}", port);
  return new Promise((resolve, reject) => {
    const child = spawn("sh", ["-c", line], { stdio: "inherit" });
    child.once("error", reject);
    child.once("exit", (code) => (code === 0 ? resolve() : reject(new Error(`\`${line}\` exited with ${code}`))));
  });
}

if (import.meta.main) {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      restart: { type: "string" },
      checks: { type: "string", default: "5" },
      interval: { type: "string", default: "1000" },
      timeout: { type: "string", default: "120000" },
    },
  });
  if (!values.restart || positionals.length === 0) {
    console.error("usage: npm run rolling-restart -- --restart '<command with {port}>' HOST:PORT [HOST:PORT …]");
    process.exit(2);
  }
  const command = values.restart;
  try {
    await rollingRestart(positionals, {
      restart: (instance) => runRestartCommand(command, instance),
      checks: Number(values.checks),
      intervalMs: Number(values.interval),
      timeoutMs: Number(values.timeout),
    });
  } catch (error) {
    console.error(`rolling restart stopped: ${(error as Error).message}`);
    process.exit(1);
  }
}
