import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Express } from "express";
import type { Logger } from "../logger.ts";

/** In-flight requests get this long to finish after SIGTERM before connections are cut. */
const SHUTDOWN_GRACE_MS = 10_000;

/**
 * How long an idle keep-alive connection stays open. Longer than the proxy in front keeps one
 * (nginx's upstream keepalive_timeout and cloud load balancers: 60 s), so the proxy is the one that
 * closes it: were it the portal, a proxy could send a request on the connection being closed, and
 * a POST lost so cannot be sent again (Node's default, 5 s, gave one in `npm run load`).
 */
const KEEP_ALIVE_TIMEOUT_MS = 65_000;

/**
 * Stops accepting connections, lets requests in flight finish, and after `graceMs` cuts the
 * connections that are still open. Resolves when the server is closed.
 */
export function closeGracefully(server: Server, { graceMs, log }: { graceMs: number; log: Logger }): Promise<void> {
  return new Promise((resolve, reject) => {
    const force = setTimeout(() => {
      log.warn("grace period over: closing remaining connections");
      server.closeAllConnections();
    }, graceMs);
    force.unref();
    // A keep-alive connection would hold close() open until its client gives up: close each
    // one as soon as it has no request in flight, now or once its last response is sent.
    const reapIdle = setInterval(() => server.closeIdleConnections(), 100);
    server.close((error) => {
      clearTimeout(force);
      clearInterval(reapIdle);
      if (error) reject(error);
      else resolve();
    });
    server.closeIdleConnections();
  });
}

export function listenWithGracefulShutdown(
  app: Express,
  opts: {
    host: string;
    port: number;
    log: Logger;
    onListening: (address: string) => void;
    /** Releases what the server used (database pool, dev server) once it is closed. */
    onClose: () => Promise<void>;
  },
) {
  const server = app.listen(opts.port, opts.host, () => {
    const address = server.address() as AddressInfo;
    opts.onListening(`${address.address}:${address.port}`);
  });
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  // A request's headers may take at most this long; it must outlast the keep-alive time.
  server.headersTimeout = KEEP_ALIVE_TIMEOUT_MS + 1_000;

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    opts.log.info({ signal }, "shutting down: no new connections, finishing requests in flight");
    try {
      // A second of the grace period is kept for closing the pool and flushing logs.
      await closeGracefully(server, { graceMs: SHUTDOWN_GRACE_MS - 1_000, log: opts.log });
      await opts.onClose();
      opts.log.info("stopped");
      process.exit(0);
    } catch (error) {
      opts.log.error({ err: error }, "error while shutting down");
      process.exit(1);
    }
  };
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));
  return server;
}
