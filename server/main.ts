// Start-up: configuration → database (migrate, seed) → services → HTTP host. Stops gracefully.
//   node server/main.ts         serves the production build in ./build
//   node server/main.ts --dev   serves through the Vite dev server (hot reload)
import { existsSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { ServerBuild } from "react-router";
import { ConfigError, loadConfig } from "./config.ts";
import { configuredDatabase, openDatabase, prepareEmbeddedFolder } from "./db/client.ts";
import { holdDataDir } from "./db/pglite-owner.ts";
import { prepareDatabase } from "./db/prepare.ts";
import { createHttpApp } from "./http/app.ts";
import { createLogger } from "./logger.ts";
import { createServices } from "./services.ts";
import { createMetrics } from "./metrics.ts";
import { createShiftableClock } from "./lib/clock.ts";
import { checkTaxRegime } from "./invoices/tax-regime.ts";
import { listenWithGracefulShutdown, newLifecycle } from "./http/shutdown.ts";
import { preflight, warnAboutProduction } from "./preflight.ts";

const dev = process.argv.includes("--dev");

async function main() {
  const generated: string[] = [];
  const config = loadConfig({ onGeneratedSecrets: (names, file) => generated.push(`${names.join(", ")} → ${file}`) });
  const log = createLogger(config.logLevel);
  if (generated.length) log.warn({ secrets: generated }, "generated development secrets (set them in production)");
  warnAboutProduction(config, log);
  // Before anything is written: a taken port or an unreachable database stops here, in one line.
  await preflight(config);
  const serverBuild = path.resolve("build/server/index.js");
  if (!dev && !existsSync(serverBuild))
    throw new ConfigError(
      "No production build found: run `npm run build` first (outside production `npm start` does it for you).",
    );
  if (!config.invoicing.seller) {
    log.error(
      { missing: config.invoicing.missing },
      "e-invoices are refused until the seller's data is configured (docs/e-invoices.md)",
    );
  }

  const metrics = createMetrics({ process: true });
  // The embedded database is one process's: this one claims it first (a second portal on the same
  // DATA_DIR stops here), and hands operators' `backup` its snapshots (server/db/pglite-owner.ts).
  if (!config.database.url) await prepareEmbeddedFolder(config.database.pgliteDir);
  const hold = config.database.url ? null : await holdDataDir(config.dataDir, "portal");
  const database = await openDatabase(
    configuredDatabase(config.database, {
      ownThread: true,
      onConnectionError: (error) => log.warn({ err: error }, "PostgreSQL connection lost (replaced, or waited for)"),
      metrics,
    }),
  );
  await prepareDatabase(database, config, log);
  if (config.invoicing.seller) await checkTaxRegime(database.db, config.invoicing.seller);
  // Outside production the clock can be moved forward (/dev/orologio) to see renewals happen.
  const devClock = config.isProduction ? null : createShiftableClock(path.join(config.dataDir, "clock-offset.json"));
  if (devClock?.offsetMs())
    log.warn({ offsetMs: devClock.offsetMs() }, "the clock runs ahead of the system's (moved at /dev/orologio)");
  const services = await createServices({ config, database, log, devClock, startBackgroundWork: true, metrics });
  hold?.serveSnapshots({
    snapshot: database.snapshot!,
    async onSnapshot({ actor, file }, bytes) {
      await services.audit.record("database_backed_up", { actor, details: { file, bytes, format: "PGlite dumpDataDir" } });
      log.info({ actor, bytes }, "backup taken for an operator");
    },
  });

  let build: ServerBuild | (() => Promise<ServerBuild>);
  let devMiddleware;
  let clientDir: string | undefined;
  let closeDevServer = async () => {};
  if (dev) {
    const vite = await import("vite");
    const viteServer = await vite.createServer({ server: { middlewareMode: true } });
    devMiddleware = viteServer.middlewares;
    build = () => viteServer.ssrLoadModule("virtual:react-router/server-build") as Promise<ServerBuild>;
    closeDevServer = () => viteServer.close();
  } else {
    build = (await import(pathToFileURL(serverBuild).href)) as ServerBuild;
    clientDir = path.resolve("build/client");
  }

  const lifecycle = newLifecycle();
  const app = createHttpApp({ config, services, log, build, devMiddleware, clientDir, lifecycle });
  const close = async () => {
    await closeDevServer();
    await services.close();
    await database.close();
    await hold?.close();
  };
  await listenWithGracefulShutdown(app, {
    host: config.host,
    port: config.port,
    log,
    lifecycle,
    shutdown: config.shutdown,
    // The jobs under way finish while the server drains; the runner claims no more.
    onStopping: () => services.jobs.requestStop(),
    onListening: (address) => {
      log.info(
        { address, origin: config.publicOrigin, database: database.kind, mode: dev ? "dev" : "build" },
        `portal listening on ${config.publicOrigin}`,
      );
      // Sign-ins reach the provider through PUBLIC_ORIGIN; readiness keeps asking (server/http/app.ts).
      void services.health.checkOwnProvider().then((reach) => {
        if (!reach.ok)
          log.error({ reason: reach.reason }, "sign-ins will fail: the identity provider is unreachable through PUBLIC_ORIGIN");
      });
    },
    onClose: close,
  }).catch(async (error: unknown) => {
    // The port was taken after the preflight: the jobs begun meanwhile finish before the exit.
    await close();
    throw error;
  });
}

main().catch((error) => {
  if (error instanceof ConfigError) {
    console.error(`\n${error.message}\n`);
  } else {
    console.error(error);
  }
  process.exit(1);
});
