import { Agent, createServer, request, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { Writable } from "node:stream";
import express from "express";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createLogger } from "#server/logger.ts";
import { ConfigError } from "#server/config.ts";
import {
  closeGracefully,
  listenWithGracefulShutdown,
  newLifecycle,
  stopperOf,
  stopServing,
  whileStopping,
  type Lifecycle,
} from "./shutdown.ts";

const log = createLogger("silent");
let server: Server;

/** A server whose only page takes `delayMs` to answer. */
async function slowServer(delayMs: number) {
  server = createServer((_req, res) => {
    setTimeout(() => res.end("finito"), delayMs);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}

/** A server that answers at once, behind the app's `whileStopping`. */
async function quickServer(lifecycle: Lifecycle) {
  const app = express()
    .use(whileStopping(lifecycle))
    .all("/{*any}", (_req, res) => void res.send("pronto"));
  server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}

/** `method` `url` through `agent`: the status, the Connection header, and the socket it went on. */
function getVia(url: string, agent: Agent, method = "GET") {
  return new Promise<{ status: number; connection: string | undefined; socket: Socket }>((resolve, reject) => {
    const req = request(url, { agent, method }, (res) => {
      res.resume();
      res.on("end", () => resolve({ status: res.statusCode!, connection: res.headers.connection, socket: req.socket! }));
    });
    req.on("error", reject);
    req.end();
  });
}

/** A drain the test ends itself: the stop's `sleep`, and the release of it. */
function heldDrain() {
  let release = () => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  let started = () => {};
  const begun = new Promise<void>((resolve) => (started = resolve));
  return { sleep: () => (started(), released), begun, release };
}

afterEach(() => {
  vi.useRealTimers();
  server.closeAllConnections();
  server.close();
});

describe("closeGracefully", () => {
  it("finishes the request in flight and refuses new connections", async () => {
    const url = await slowServer(300);
    const inFlight = fetch(url);
    await new Promise((r) => setTimeout(r, 50)); // the request has reached the handler
    const closed = closeGracefully(server, { graceMs: 5_000, log });

    await expect(fetch(url)).rejects.toThrow();
    const response = await inFlight;
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("finito");
    await closed;
    expect(server.listening).toBe(false);
  });

  it("cuts a request that outlives the grace period", async () => {
    const url = await slowServer(60_000);
    const inFlight = fetch(url).then(
      () => "answered",
      () => "cut",
    );
    await new Promise((r) => setTimeout(r, 50));
    const started = Date.now();
    await closeGracefully(server, { graceMs: 200, log });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(await inFlight).toBe("cut");
  });
});

describe("stopServing", () => {
  it("keeps accepting and serving through the drain, closing each connection after its answer, and refuses only after it", async () => {
    const lifecycle = newLifecycle();
    const url = await quickServer(lifecycle);
    const agent = new Agent({ keepAlive: true });
    const before = await getVia(url, agent);
    expect(before.connection).toBe("keep-alive");

    const drain = heldDrain();
    const stopped = stopServing(server, { lifecycle, drainMs: 5_000, graceMs: 5_000, log, sleep: drain.sleep, quietMs: 300 });
    await drain.begun;
    expect(lifecycle.stopping).toBe(true);
    // The connection kept from before is used once more, answered, and closed by the server.
    const onKept = await getVia(url, agent);
    expect(onKept).toMatchObject({ status: 200, connection: "close" });
    expect(onKept.socket).toBe(before.socket);
    // A new connection is still accepted while the drain lasts.
    const fresh = await getVia(url, new Agent({ keepAlive: true }));
    expect(fresh).toMatchObject({ status: 200, connection: "close" });

    drain.release();
    // After the drain: a GET is turned away for another instance to answer, anything else is
    // still served, until no connection has come for a while.
    await vi.waitFor(() => expect(lifecycle.turningAway).toBe(true));
    expect(await getVia(url, new Agent())).toMatchObject({ status: 503, connection: "close" });
    expect(await getVia(url, new Agent(), "POST")).toMatchObject({ status: 200, connection: "close" });
    expect(await getVia(url, new Agent(), "GET").then((answer) => answer.status)).toBe(503);
    await stopped;
    await expect(getVia(url, new Agent())).rejects.toThrow(/ECONNREFUSED/);
  });

  it("without a drain, stops accepting at once and turns nothing away", async () => {
    const lifecycle = newLifecycle();
    const url = await quickServer(lifecycle);
    await stopServing(server, { lifecycle, drainMs: 0, graceMs: 5_000, log });
    expect(lifecycle.turningAway).toBe(false);
    await expect(getVia(url, new Agent())).rejects.toThrow(/ECONNREFUSED/);
  });

  it("closes an idle keep-alive connection only once the drain is over", async () => {
    const lifecycle = newLifecycle();
    const url = await quickServer(lifecycle);
    const { socket } = await getVia(url, new Agent({ keepAlive: true }));
    const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));

    const drain = heldDrain();
    const stopped = stopServing(server, { lifecycle, drainMs: 5_000, graceMs: 5_000, log, sleep: drain.sleep, quietMs: 50 });
    await drain.begun;
    // Whatever the server would do with the idle connection meanwhile, it has had the chance to.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(socket.destroyed).toBe(false);
    drain.release();
    await stopped;
    await closed;
  });
});

describe("a stop", () => {
  it("is bounded: past its hard limit it logs and exits, whatever it was waiting for", async () => {
    const lines: { msg?: string; level: number }[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        for (const line of chunk.toString().split("\n"))
          if (line) lines.push(JSON.parse(line) as { msg?: string; level: number });
        callback();
      },
    });
    const lifecycle = newLifecycle();
    await quickServer(lifecycle);
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval"] });
    const exits: number[] = [];
    let closing = () => {};
    const closeBegun = new Promise<void>((resolve) => (closing = resolve));
    let jobsTold = false;
    const stop = stopperOf(server, {
      lifecycle,
      shutdown: { drainMs: 0, timeoutMs: 20_000 },
      log: createLogger("info", sink),
      onStopping: () => (jobsTold = true),
      // A close handler that never returns (the pool waiting on a stuck client).
      onClose: () => (closing(), new Promise<void>(() => {})),
      exit: (code) => void exits.push(code),
    });
    void stop("SIGTERM");
    expect(jobsTold).toBe(true);
    await closeBegun;
    vi.advanceTimersByTime(19_999);
    expect(exits).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(exits).toEqual([1]);
    expect(lines.at(-1)).toMatchObject({ level: 50, msg: "the stop took longer than SHUTDOWN_TIMEOUT_MS: exiting now" });
    // A second signal starts no second stop.
    await stop("SIGINT");
    expect(exits).toEqual([1]);
  });
});

describe("a stop cut short", () => {
  it("skips what is left of the drain at a second signal, and still finishes the request in flight", async () => {
    const lifecycle = newLifecycle();
    const url = await slowServer(200);
    const arrived = new Promise((resolve) => server.once("request", resolve));
    let exit = (_code: number) => {};
    const exited = new Promise<number>((resolve) => (exit = resolve));
    // A drain that never ends by itself: only the second signal ends it.
    const drain = heldDrain();
    const stop = stopperOf(server, {
      lifecycle,
      shutdown: { drainMs: 60_000, timeoutMs: 120_000 },
      log,
      sleep: drain.sleep,
      onClose: async () => {},
      exit,
    });
    const inFlight = getVia(url, new Agent());
    await arrived;
    void stop("SIGTERM");
    await drain.begun;
    void stop("SIGINT");
    expect((await inFlight).status).toBe(200);
    expect(await exited).toBe(0);
    await expect(getVia(url, new Agent())).rejects.toThrow(/ECONNREFUSED/);
  });
});

describe("listening", () => {
  it("on a port taken meanwhile, fails with one line naming the setting", async () => {
    const url = await slowServer(0);
    const port = Number(new URL(url).port);
    await expect(
      listenWithGracefulShutdown(express(), {
        host: "127.0.0.1",
        port,
        lifecycle: newLifecycle(),
        shutdown: { drainMs: 0, timeoutMs: 1_000 },
        log,
        onListening: () => {},
        onClose: async () => {},
      }),
    ).rejects.toThrow(
      new ConfigError(
        `PORT: 127.0.0.1:${port} is already in use (another instance, or another program): set PORT to a free port.`,
      ),
    );
  });
});
