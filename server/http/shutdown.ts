// How an instance stops (docs/operating.md, "Stopping an instance"), from SIGTERM to its exit:
//   1. drain: /readyz answers 503 (a proxy that checks readiness takes the instance out), every
//      other request is served as before, and every response says `Connection: close`, so each
//      keep-alive connection the proxy holds is closed right after an answer the proxy has read,
//      never under a request it is sending;
//   2. turning away: a proxy that does not check readiness (nginx) still sends requests. Closing
//      the listening socket now would reset the connections waiting in its queue, requests already
//      sent on them: nginx sends a POST once, so its client would get a 502. Instead a GET or a
//      HEAD is answered 503, which nginx passes to another instance (proxy_next_upstream http_503)
//      and counts as a failure, leaving the instance out (max_fails=1); any other request is still
//      served. Once no connection has come for QUIET_MS (or after TURN_AWAY_MAX_MS), the proxy has
//      turned away;
//   3. no new connections, the requests in flight finish, and the idle connections are closed: the
//      drain has outlasted the proxy's own idle time for them (nginx's upstream keepalive_timeout,
//      4 s in deploy/nginx/portal.conf), so the proxy no longer uses one;
//   4. the job runner, told at the signal, has finished the jobs it had begun; the pool closes.
// Without a drain (SHUTDOWN_DRAIN_MS=0: development, tests) it stops accepting at once; a second
// signal during the drain (an operator who will not wait) skips what is left of 1 and 2.
// The whole stop is bounded: past SHUTDOWN_TIMEOUT_MS the process logs it and exits.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Express, RequestHandler } from "express";
import type { Logger } from "#server/logger.ts";
import { listenOrExplain } from "#server/preflight.ts";

/** Of the stop's hard limit, what is kept after the requests in flight for closing the pool and the log. */
const CLOSE_RESERVE_MS = 2_000;
/** No new connection for this long: the proxy has turned away. Shorter than nginx's fail_timeout (2 s). */
const QUIET_MS = 500;
/** The longest the instance turns requests away (a proxy sending only POSTs never leaves it out). */
const TURN_AWAY_MAX_MS = 3_000;

/** What the HTTP app reads while the instance stops: `stopping` from the signal, `turningAway` after the drain. */
export type Lifecycle = { stopping: boolean; turningAway: boolean };

export const newLifecycle = (): Lifecycle => ({ stopping: false, turningAway: false });

const STOPPING_TEXT = "Il portale si sta riavviando: riprova tra qualche istante.";

/**
 * First of the app's middleware, before the request log: while the instance stops, each answer
 * closes its connection (the proxy reads that, and sends nothing more on it: no request is ever
 * sent on a connection the instance is closing), and once the drain is over a GET or a HEAD is
 * turned away with 503 for another instance to answer (/healthz excepted: the process is alive).
 */
export function whileStopping(lifecycle: Lifecycle | undefined): RequestHandler {
  return (req, res, next) => {
    if (!lifecycle?.stopping) return next();
    res.setHeader("Connection", "close");
    if (lifecycle.turningAway && (req.method === "GET" || req.method === "HEAD") && req.path !== "/healthz") {
      res.status(503).set({ "Retry-After": "1", "Cache-Control": "no-store" }).type("text/plain").send(STOPPING_TEXT);
      return;
    }
    next();
  };
}

/** Resolves once `server` has had no new connection for `quietMs`, or after `maxMs`, or at `cut`. */
function untilQuiet(server: Server, quietMs: number, maxMs: number, cut: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    let quiet: ReturnType<typeof setTimeout>;
    const done = () => {
      clearTimeout(quiet);
      clearTimeout(max);
      server.off("connection", restart);
      cut.removeEventListener("abort", done);
      resolve();
    };
    const restart = () => {
      clearTimeout(quiet);
      quiet = setTimeout(done, quietMs);
    };
    const max = setTimeout(done, maxMs);
    server.on("connection", restart);
    cut.addEventListener("abort", done);
    restart();
  });
}

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

/** Resolves when `promise` does or when `cut` is aborted, whichever comes first. */
function unlessCut(promise: Promise<void>, cut: AbortSignal): Promise<void> {
  if (cut.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      cut.removeEventListener("abort", done);
      resolve();
    };
    cut.addEventListener("abort", done);
    void promise.then(done);
  });
}

/**
 * Drains (the lifecycle says stopping for `drainMs` while the server still serves), then closes
 * the server gracefully. `sleep` waits out the drain (tests pass their own); `cut` skips what is
 * left of the drain and of the turning away.
 */
export async function stopServing(
  server: Server,
  opts: {
    lifecycle: Lifecycle;
    drainMs: number;
    graceMs: number;
    log: Logger;
    sleep?: (ms: number) => Promise<void>;
    quietMs?: number;
    cut?: AbortSignal;
  },
): Promise<void> {
  const { lifecycle, drainMs, log, sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms)) } = opts;
  const cut = opts.cut ?? new AbortController().signal;
  lifecycle.stopping = true;
  if (drainMs > 0) {
    log.info({ drainMs }, "stopping: /readyz answers 503 while the proxy turns away; still serving");
    await unlessCut(sleep(drainMs), cut);
    if (!cut.aborted) {
      lifecycle.turningAway = true;
      await untilQuiet(server, opts.quietMs ?? QUIET_MS, TURN_AWAY_MAX_MS, cut);
    }
  }
  log.info("no new connections: finishing the requests in flight");
  await closeGracefully(server, { graceMs: opts.graceMs, log });
}

type StopOptions = {
  lifecycle: Lifecycle;
  /** config.shutdown: the drain, and the hard limit of the whole stop. */
  shutdown: { drainMs: number; timeoutMs: number };
  log: Logger;
  /** Called at the signal (the job runner stops at the end of the jobs under way). */
  onStopping?: () => void;
  /** Releases what the server used (database pool, dev server) once it is closed. */
  onClose: () => Promise<void>;
  exit?: (code: number) => void;
  sleep?: (ms: number) => Promise<void>;
};

/**
 * The stop of `server` at a signal: once, bounded by the hard limit, ending with `exit`. A second
 * signal skips what is left of the drain; the requests in flight still finish.
 */
export function stopperOf(server: Server, opts: StopOptions): (signal: string) => Promise<void> {
  const { lifecycle, shutdown, log, exit = (code) => process.exit(code) } = opts;
  let stopping = false;
  const hurry = new AbortController();
  return async (signal) => {
    if (stopping) {
      if (!hurry.signal.aborted) {
        log.warn({ signal }, "a second signal: the drain is cut short");
        hurry.abort();
      }
      return;
    }
    stopping = true;
    const hardLimit = setTimeout(() => {
      log.error({ signal, timeoutMs: shutdown.timeoutMs }, "the stop took longer than SHUTDOWN_TIMEOUT_MS: exiting now");
      exit(1);
    }, shutdown.timeoutMs);
    log.info({ signal, drainMs: shutdown.drainMs }, "shutting down");
    try {
      opts.onStopping?.();
      await stopServing(server, {
        lifecycle,
        drainMs: shutdown.drainMs,
        graceMs: Math.max(0, shutdown.timeoutMs - shutdown.drainMs - TURN_AWAY_MAX_MS - CLOSE_RESERVE_MS),
        log,
        sleep: opts.sleep,
        cut: hurry.signal,
      });
      await opts.onClose();
      clearTimeout(hardLimit);
      log.info("stopped");
      exit(0);
    } catch (error) {
      clearTimeout(hardLimit);
      log.error({ err: error }, "error while shutting down");
      exit(1);
    }
  };
}

/**
 * Serves `app` on host:port and stops it at SIGTERM or SIGINT. Rejects with a one-line ConfigError
 * when it cannot listen.
 */
export async function listenWithGracefulShutdown(
  app: Express,
  opts: StopOptions & {
    host: string;
    port: number;
    onListening: (address: string) => void;
  },
): Promise<Server> {
  const server = createServer(app);
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  // A request's headers may take at most this long; it must outlast the keep-alive time.
  server.headersTimeout = KEEP_ALIVE_TIMEOUT_MS + 1_000;
  await listenOrExplain(server, opts.host, opts.port);
  const address = server.address() as AddressInfo;
  opts.onListening(`${address.address}:${address.port}`);
  const stop = stopperOf(server, opts);
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));
  return server;
}
