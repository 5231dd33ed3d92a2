// A rolling restart as docs/operating.md does it (scripts/rolling-restart.ts), through Debian's
// nginx with the shipped deploy/nginx/portal.conf, under a steady stream of GETs and POSTs: two
// production instances (the build, `node server/main.ts`, NODE_ENV=production, the default 5 s
// drain), each restarted in turn. Not one answer may be a 5xx, and no request may fail: a POST that
// nginx had sent to a stopping instance is never sent again, so a connection cut under it would be
// a 502.
import { Agent, request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, productionSecrets } from "#scripts/bench/server.ts";
import { buildIfStale } from "#scripts/build-if-stale.ts";
import { Instance } from "#scripts/load/instances.ts";
import { rollingRestart } from "#scripts/rolling-restart.ts";
import { createTestDatabase, type TestDatabase } from "#tests/support/database.ts";
import { connectionEnv } from "#tests/support/database-location.ts";
import { NGINX_BINARY, startNginx } from "#tests/support/nginx.ts";

// Two instances share one database: PGlite admits one process at a time, so this runs in the
// PostgreSQL project only (DATABASE_URL set, as CI sets it). CI installs nginx (.ci/run).
const onPostgres = process.env.TEST_DATABASE === "postgres";
const runs = onPostgres && (NGINX_BINARY || process.env.CI) ? describe : describe.skip;

/** Clients sending one request after another, each on its keep-alive connection to nginx. */
const CLIENTS = 8;

type Tally = { requests: number; byStatus: Record<string, number>; failed: { method: string; what: string }[] };

runs("a rolling restart through Debian's nginx, under load", () => {
  let database: TestDatabase;
  let nginx: Awaited<ReturnType<typeof startNginx>>;
  const instances: Instance[] = [];

  beforeAll(async () => {
    buildIfStale();
    database = await createTestDatabase();
    const ports = [await freePort(), await freePort()];
    nginx = await startNginx({ upstream: ports.map((port) => `127.0.0.1:${port}`) });
    const env = {
      ...process.env,
      ...productionSecrets(),
      NODE_ENV: "production",
      PAYMENTS: "sandbox",
      SMTP_URL: "",
      MAIL_DISABLED: "true",
      ...connectionEnv(database.connection!),
      PUBLIC_ORIGIN: nginx.origin,
      TRUST_PROXY: "1",
      LOG_LEVEL: "info",
    };
    for (const [index, port] of ports.entries()) instances.push(new Instance(index, port, env));
    await Promise.all(instances.map((instance) => instance.start()));
  }, 180_000);

  afterAll(async () => {
    await Promise.all(instances.map((instance) => instance.destroy()));
    await nginx?.close();
    await database?.destroy();
  });

  /** One request through nginx: its status, or what became of it. */
  function send(agent: Agent, method: "GET" | "POST", tally: Tally) {
    const path = method === "GET" ? "/api/v1/pim/universita/getall/" : "/api/v1/aaa/passwordreset/verify/";
    const body = method === "POST" ? JSON.stringify({ token: "non-un-link-vero" }) : undefined;
    return new Promise<void>((resolve) => {
      const req = request(
        new URL(path, nginx.origin),
        { method, agent, headers: body ? { "content-type": "application/json" } : {} },
        (res) => {
          res.resume();
          res.on("end", () => {
            tally.requests++;
            const key = `${method} ${res.statusCode}`;
            tally.byStatus[key] = (tally.byStatus[key] ?? 0) + 1;
            resolve();
          });
          res.on("error", (error) => {
            tally.failed.push({ method, what: `${(error as NodeJS.ErrnoException).code ?? error.message} mid-answer` });
            resolve();
          });
        },
      );
      req.on("error", (error) => {
        tally.requests++;
        tally.failed.push({ method, what: (error as NodeJS.ErrnoException).code ?? error.message });
        resolve();
      });
      req.end(body);
    });
  }

  it("restarts both instances in turn with no 5xx and no failed request", async () => {
    const tally: Tally = { requests: 0, byStatus: {}, failed: [] };
    let restarting = true;
    const clients = Array.from({ length: CLIENTS }, async (_, client) => {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      for (let i = client; restarting; i++) await send(agent, i % 2 ? "POST" : "GET", tally);
      agent.destroy();
    });

    const stops: { exit: string; ms: number }[] = [];
    const lines: string[] = [];
    await rollingRestart(
      instances.map((instance) => `127.0.0.1:${instance.port}`),
      {
        async restart(address) {
          const instance = instances.find((candidate) => address.endsWith(`:${candidate.port}`))!;
          stops.push(await instance.stop());
          await instance.start();
        },
        report: (line) => lines.push(line),
      },
    );
    restarting = false;
    await Promise.all(clients);

    const fivexx = Object.entries(tally.byStatus).filter(([key]) => / 5\d\d$/.test(key));
    console.info(
      `rolling restart through nginx: ${tally.requests} requests ${JSON.stringify(tally.byStatus)}, ` +
        `${fivexx.reduce((sum, [, n]) => sum + n, 0)} × 5xx, ${tally.failed.length} failed ${JSON.stringify(tally.failed.slice(0, 5))}; ` +
        `stops ${JSON.stringify(stops)}`,
    );
    expect(stops.map((stop) => stop.exit)).toEqual(["exit 0", "exit 0"]);
    expect(lines).toHaveLength(4);
    expect(fivexx).toEqual([]);
    expect(tally.failed).toEqual([]);
    // The stream went on throughout: every restart happened under load.
    expect(tally.byStatus["GET 200"]).toBeGreaterThan(100);
    expect(tally.byStatus["POST 200"]).toBeGreaterThan(100);
  }, 180_000);
});
