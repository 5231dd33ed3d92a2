// The whole portal over HTTP, as server/main.ts --dev serves it (the app build comes from Vite),
// on a port of its own, with its log lines captured.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import pino from "pino";
import type { ServerBuild } from "react-router";
import { createHttpApp } from "#server/http/app.ts";
import type { Lifecycle } from "#server/http/shutdown.ts";
import { createLogger } from "#server/logger.ts";
import type { Services } from "#server/services.ts";
import { testConfig } from "./config.ts";
import type { TestDatabase } from "./database.ts";
import { createTestServices } from "./services.ts";

export type LogLine = { level: number; msg?: string; err?: { stack?: string }; [key: string]: unknown };

/** pino's number of a level name (e.g. "warn" → 40). */
export const levelOf = (name: pino.Level) => pino.levels.values[name]!;

/** `lifecycle` lets a test stop the portal's instance as SIGTERM does (server/http/shutdown.ts). */
export async function startPortal(
  database: TestDatabase,
  env: Record<string, string> = {},
  { lifecycle }: { lifecycle?: Lifecycle } = {},
) {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const config = testConfig({ PUBLIC_ORIGIN: origin, ...env });

  const lines: LogLine[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const line of chunk.toString().split("\n")) if (line) lines.push(JSON.parse(line) as LogLine);
      callback();
    },
  });
  const log = createLogger("info", sink);
  const services: Services = await createTestServices(database, config);

  const vite = await import("vite");
  const viteServer = await vite.createServer({ server: { middlewareMode: true, hmr: false }, logLevel: "silent" });
  const build = () => viteServer.ssrLoadModule("virtual:react-router/server-build") as Promise<ServerBuild>;
  server.on("request", createHttpApp({ config, services, log, build, lifecycle }));

  return {
    origin,
    config,
    services,
    /** Every log line written so far. */
    lines,
    fetch: (path: string, init?: RequestInit) => fetch(new URL(path, origin), { redirect: "manual", ...init }),
    /** The log lines of the request `response` answered, once its completion is logged. */
    async linesOf(response: Response): Promise<LogLine[]> {
      const id = response.headers.get("x-request-id");
      await response.arrayBuffer().catch(() => undefined);
      const ofRequest = () => lines.filter((line) => (line.req as { id?: string } | undefined)?.id === id);
      // The completion line is written when the server has sent the last byte, a moment later.
      for (let wait = 0; wait < 100 && !ofRequest().some((line) => line.responseTime !== undefined); wait++)
        await new Promise((resolve) => setTimeout(resolve, 20));
      return ofRequest();
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await viteServer.close();
      await services.close();
    },
  };
}

export type Portal = Awaited<ReturnType<typeof startPortal>>;
