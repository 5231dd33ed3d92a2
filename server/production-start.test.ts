// Starting the server as an operator does, in a process of its own: the usual mistakes stop it
// with one line naming the setting, before anything is written; the documented command stops on
// SIGTERM (a process manager's stop), and a plain-http production start says what it lacks.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it, onTestFinished } from "vitest";
import { freePort, productionSecrets } from "#scripts/bench/server.ts";
import { runNode, type NodeRun } from "#tests/support/run-node.ts";

const root = path.resolve(import.meta.dirname, "..");

/** A production environment that starts: secrets, the sandbox gateway, mail off on purpose, a fresh DATA_DIR. */
function productionEnv(overrides: Record<string, string> = {}) {
  const dataDir = mkdtempSync(path.join(tmpdir(), "portal-prod-start-"));
  dataDirs.push(dataDir);
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NODE_ENV: "production",
    PAYMENTS: "sandbox",
    MAIL_DISABLED: "true",
    HOST: "127.0.0.1",
    DATA_DIR: dataDir,
    ...productionSecrets(),
    ...overrides,
  };
  return { env, dataDir };
}

/** Runs `node server/main.ts` to its end, in `cwd` (where it looks for the build). */
const startServer = (env: NodeJS.ProcessEnv, cwd = root) => runNode([path.join(root, "server/main.ts")], { cwd, env });

/** The run stopped with one line on stderr, and wrote nothing in DATA_DIR. */
function expectRefused(run: NodeRun, dataDir: string): string {
  expect(run.code, run.stdout + run.stderr).not.toBe(0);
  const lines = run.stderr.split("\n").filter((line) => line.trim() !== "");
  expect(lines, run.stderr).toHaveLength(1);
  expect(readdirSync(dataDir)).toEqual([]);
  return lines[0]!;
}

const listening: Server[] = [];
const dataDirs: string[] = [];
afterAll(() => {
  listening.forEach((server) => server.close());
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
});

describe("a production start refuses the usual mistakes in one line", () => {
  // Each case starts Node and loads the server's modules: seconds each on a busy machine.
  it("a port in use", { timeout: 60_000 }, async () => {
    const taken = createServer();
    listening.push(taken);
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const port = (taken.address() as { port: number }).port;
    const { env, dataDir } = productionEnv({ PORT: String(port) });
    const line = expectRefused(await startServer(env), dataDir);
    expect(line).toBe(
      `PORT: 127.0.0.1:${port} is already in use (another instance, or another program): set PORT to a free port.`,
    );
  });

  it("a DATABASE_URL to a port nothing listens on, at once", { timeout: 60_000 }, async () => {
    const port = await freePort();
    const { env, dataDir } = productionEnv({
      PORT: String(await freePort()),
      DATABASE_URL: `postgres://portal:secret@127.0.0.1:${port}/portal`,
    });
    const run = await startServer(env);
    const line = expectRefused(run, dataDir);
    expect(line).toBe(
      `DATABASE_URL: cannot connect to PostgreSQL at 127.0.0.1:${port}/portal: connection refused (is PostgreSQL running and listening on that port?).`,
    );
    // Not the outage wait of a running server (a warning a second for 10 s): nothing is up yet to wait for.
    expect(run.stdout).not.toMatch(/connection lost/);
  });

  it(
    "a DATABASE_URL that is not a URL, a PUBLIC_ORIGIN without scheme or with a path, no mail",
    { timeout: 90_000 },
    async () => {
      const cases: [Record<string, string>, RegExp][] = [
        [{ DATABASE_URL: "base" }, /^Invalid configuration: DATABASE_URL: not a PostgreSQL URL/],
        [{ PUBLIC_ORIGIN: "portale.example.it" }, /^Invalid configuration: PUBLIC_ORIGIN: not an origin/],
        [{ PUBLIC_ORIGIN: "https://example.it/portale" }, /^Invalid configuration: PUBLIC_ORIGIN: not an origin/],
        [{ MAIL_DISABLED: "" }, /^No mail in production: set SMTP_URL/],
      ];
      await Promise.all(
        cases.map(async ([overrides, message]) => {
          const { env, dataDir } = productionEnv({ PORT: String(await freePort()), ...overrides });
          expect(expectRefused(await startServer(env), dataDir), JSON.stringify(overrides)).toMatch(message);
        }),
      );
    },
  );

  it("no build, before migrating", { timeout: 60_000 }, async () => {
    const { env, dataDir } = productionEnv({ PORT: String(await freePort()) });
    // A folder with no build/ in it: the server looks for the build where it is started.
    const elsewhere = mkdtempSync(path.join(tmpdir(), "portal-prod-start-"));
    dataDirs.push(elsewhere);
    const line = expectRefused(await startServer(env, elsewhere), dataDir);
    expect(line).toBe("No production build found: run `npm run build` first (outside production `npm start` does it for you).");
  });
});

describe("npm run serve, the process manager's command", () => {
  it("stops the server on SIGTERM (npm passes the signal on), and warns of plain http", { timeout: 120_000 }, async () => {
    const port = await freePort();
    const { env, dataDir } = productionEnv({ PORT: String(port), LOG_LEVEL: "info" });
    // --dev: the Vite dev server in place of a build, which a test run may not have made yet.
    // Its own process group: whatever outlives npm is found and ended after the test.
    const npm = spawn("npm", ["run", "serve", "--", "--dev"], {
      cwd: root,
      env,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    onTestFinished(() => {
      try {
        process.kill(-npm.pid!, "SIGKILL");
      } catch {
        // The group is gone: nothing outlived npm.
      }
    });
    let output = "";
    npm.stdout.on("data", (chunk: Buffer) => (output += chunk));
    npm.stderr.on("data", (chunk: Buffer) => (output += chunk));
    const exited = new Promise<void>((resolve) => npm.on("exit", () => resolve()));
    const answers = async () => {
      try {
        return (await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(2_000) })).status;
      } catch {
        return null;
      }
    };
    for (let tries = 0; (await answers()) !== 200; tries++) {
      expect(npm.exitCode, output).toBeNull();
      expect(tries, output).toBeLessThan(400);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(output).toMatch(/"level":40,[^\n]*"msg":"PUBLIC_ORIGIN is not https: cookies are sent without Secure/);

    npm.kill("SIGTERM");
    await exited; // npm ends as its signal says (143), having passed it on

    // The server went with npm: nothing answers on its port any more.
    for (let tries = 0; (await answers()) !== null; tries++) {
      expect(tries, "the server outlived npm").toBeLessThan(40);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(output).toMatch(/"signal":"SIGTERM"/);
    expect(existsSync(path.join(dataDir, "pglite"))).toBe(true);
  });
});
