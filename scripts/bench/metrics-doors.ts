// The production server of the bench's metrics part (scripts/bench.ts, part 5): one process that
// answers on two ports with the same services, database and build behind both, counting and
// timing its requests and serving /metrics on the first (PORT, METRICS_TOKEN set) and not on the
// second (METRICS_FREE_PORT), and its heap on a third (METRICS_HEAP_PORT, below). Two server
// processes alike differ from each other by a tenth and more on this machine whatever their
// settings (an A/A run of two servers without metrics gave 0.88, every round below 1), more than
// the 3 % to be measured; two doors of one process differ less (below). Started as server/main.ts
// is, with the environment of a production instance.
import { createServer, type Server } from "node:http";
import path from "node:path";
import { PerformanceObserver, type PerformanceEntry } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { getHeapStatistics } from "node:v8";
import type { ServerBuild } from "react-router";
import { loadConfig } from "#server/config.ts";
import { configuredDatabase, openDatabase, prepareEmbeddedFolder } from "#server/db/client.ts";
import { prepareDatabase } from "#server/db/prepare.ts";
import { createHttpApp } from "#server/http/app.ts";
import { createLogger } from "#server/logger.ts";
import { createMetrics } from "#server/metrics.ts";
import { createServices } from "#server/services.ts";

const config = loadConfig();
const freePort = Number(process.env.METRICS_FREE_PORT);
const heapPort = Number(process.env.METRICS_HEAP_PORT);
if (!config.metrics.token || !freePort || !heapPort)
  throw new Error("METRICS_TOKEN, METRICS_FREE_PORT and METRICS_HEAP_PORT must be set");
const log = createLogger(config.logLevel);
const metrics = createMetrics({ process: true });
if (!config.database.url) await prepareEmbeddedFolder(config.database.pgliteDir);
const database = await openDatabase(configuredDatabase(config.database, { ownThread: true, metrics }));
await prepareDatabase(database, config, log);
const services = await createServices({ config, database, log, startBackgroundWork: true, metrics });
const build = (await import(pathToFileURL(path.resolve("build/server/index.js")).href)) as ServerBuild;
const clientDir = path.resolve("build/client");

// Two doors alike in all but the metrics still differ in a process, by as much as 0.1 ms a
// request one way or the other (the JIT's doing): the bench starts several processes and makes
// the door without metrics first in every other one (METRICS_DOOR_WITHOUT_FIRST).
const withMetrics = { port: config.port, config };
const without = { port: freePort, config: { ...config, metrics: { token: null } } };
const listening = (server: Server, port: number) =>
  new Promise<Server>((resolve) => server.listen(port, config.host, () => resolve(server)));
const doors = (process.env.METRICS_DOOR_WITHOUT_FIRST === "true" ? [without, withMetrics] : [withMetrics, without]).map(
  ({ port, config: doorConfig }) =>
    listening(createServer(createHttpApp({ config: doorConfig, services, log, build, clientDir })), port),
);
const servers = await Promise.all(doors);

// The heap as the bench reads it before and after each timed request (scripts/bench/metrics-cost.ts):
// the bytes in use, whose growth is what the request allocated when no collection fell in it, and
// the collections so far with the main thread's time in them.
const collector = { collections: 0, ns: 0 };
const count = (entries: PerformanceEntry[]) => {
  collector.collections += entries.length;
  for (const entry of entries) collector.ns += entry.duration * 1e6;
};
const collections = new PerformanceObserver((list) => count(list.getEntries()));
collections.observe({ entryTypes: ["gc"] });
const heap = createServer((_req, res) => {
  count(collections.takeRecords()); // those not yet handed to the observer
  res.end(JSON.stringify({ used: getHeapStatistics().used_heap_size, ...collector }));
});
servers.push(await listening(heap, heapPort));

process.once("SIGTERM", () => {
  for (const server of servers) server.closeAllConnections();
  void Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))))
    .then(() => services.close())
    .then(() => database.close())
    .finally(() => process.exit(0));
});
