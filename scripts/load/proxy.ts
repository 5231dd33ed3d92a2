// The small local proxy of the load-and-faults run: one public origin in front of the portal's
// instances, in a worker thread of its own (so the load's client and the proxy do not share an
// event loop). What it does, as docs/performance.md, "Load and faults", says:
//   - least connections: each request goes to the instance in rotation with the fewest requests in
//     flight (round robin among equals), over keep-alive connections;
//   - an instance that refuses a connection (stopped, or still starting) leaves the rotation and
//     the request goes to another one, whatever its method: a refused connection carried nothing.
//     It comes back when its /readyz answers 200 (checked every 250 ms). A failing /readyz alone
//     (the shared database down) does not take it out: both instances would be out together;
//   - a GET or a HEAD answered 503 (an instance stopping, once its drain is over: it turns the
//     proxy away, server/http/shutdown.ts) goes to another instance, and the instance leaves the
//     rotation until its /readyz answers 200 again, as nginx does with `proxy_next_upstream http_503`;
//   - a request sent on a connection that then closes without an answer (an instance stopping
//     while the request was on its way) is sent again to another instance when it is a GET or a
//     HEAD, which change nothing (its answer then carries `x-load-proxy: resent`); any other method (a form's POST: a payment, an activation) may
//     have been carried out, so it is not repeated: the client gets 502 with `x-load-proxy: cut`,
//     and the proxy counts it, with its instance, time and path: the "lost in flight" requests;
//   - it tells which requests are in flight at each instance (`inFlight`): the run kills an
//     instance with SIGKILL while a payment's POST is in flight at it;
//   - X-Forwarded-For gets the client's address appended, as Debian's nginx does with
//     $proxy_add_x_forwarded_for (the instances run with TRUST_PROXY=1: they believe this proxy's
//     last entry only, never what a client wrote before it), so each virtual customer has an
//     address of its own, as customers do, for the portal's rate limits.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";

type ProxyEvent = {
  /** ms since the proxy started (performance.timeOrigin of the worker ≈ the main thread's). */
  at: number;
  upstream: number;
  kind: "refused" | "turned-away" | "get-retried" | "cut" | "cut-mid-response" | "out" | "in";
  method?: string;
  path?: string;
  error?: string;
};

export type ProxyStats = {
  forwarded: number[];
  answered: number[];
  /** Requests answered 503 because no instance took the connection. */
  noUpstream: number;
  events: ProxyEvent[];
};

type Upstream = {
  port: number;
  agent: http.Agent;
  inRotation: boolean;
  inFlight: number;
  /** The requests in flight at it ("POST /checkout/…"), by a number of the proxy's own. */
  requests: Map<number, string>;
  forwarded: number;
  answered: number;
};

const HOP_BY_HOP = new Set(["connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "te", "trailer"]);
const IDEMPOTENT = new Set(["GET", "HEAD"]);
/** How long a request waits for an instance to take its connection when none is in rotation. */
const NO_UPSTREAM_WAIT_MS = 10_000;

function runProxy(ports: number[], listenPort: number, epoch: number) {
  const upstreams: Upstream[] = ports.map((port) => ({
    port,
    // Idle connections are closed by the proxy (after 30 s) before an instance would close them
    // (65 s, server/http/shutdown.ts): otherwise a request could be sent on a connection the
    // instance is closing at that very moment, and a POST cut so cannot be sent again.
    agent: new http.Agent({ keepAlive: true, maxSockets: 256, timeout: 30_000 }),
    inRotation: true,
    inFlight: 0,
    requests: new Map<number, string>(),
    forwarded: 0,
    answered: 0,
  }));
  const events: ProxyEvent[] = [];
  let noUpstream = 0;
  let turn = 0;
  let requestNumber = 0;
  const now = () => Date.now() - epoch;
  const event = (e: Omit<ProxyEvent, "at">) => events.push({ at: now(), ...e });

  const setRotation = (index: number, inRotation: boolean) => {
    const u = upstreams[index]!;
    if (u.inRotation === inRotation) return;
    u.inRotation = inRotation;
    event({ upstream: index, kind: inRotation ? "in" : "out" });
  };

  function choose(exclude: Set<number>): number | undefined {
    const candidates = upstreams.map((u, i) => ({ u, i })).filter(({ u, i }) => u.inRotation && !exclude.has(i));
    if (candidates.length === 0) return undefined;
    const least = Math.min(...candidates.map(({ u }) => u.inFlight));
    const tied = candidates.filter(({ u }) => u.inFlight === least);
    return tied[turn++ % tied.length]!.i;
  }

  type Outcome = { kind: "answered" } | { kind: "refused" } | { kind: "turned-away" } | { kind: "reset"; error: string };

  function forward(
    index: number,
    req: http.IncomingMessage,
    body: Buffer,
    res: http.ServerResponse,
    clientIp: string,
    resent: boolean,
  ): Promise<Outcome> {
    const u = upstreams[index]!;
    const headers: http.OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(req.headers))
      if (!HOP_BY_HOP.has(name) && value !== undefined) headers[name] = value;
    const forwarded = req.headers["x-forwarded-for"];
    headers["x-forwarded-for"] = forwarded ? `${String(forwarded)}, ${clientIp}` : clientIp;
    headers["x-forwarded-proto"] = "http";
    if (body.length > 0 || !IDEMPOTENT.has(req.method ?? "GET")) headers["content-length"] = String(body.length);
    return new Promise((resolve) => {
      u.inFlight++;
      u.forwarded++;
      const number = ++requestNumber;
      u.requests.set(number, `${req.method} ${req.url}`);
      let settled = false;
      let responded = false;
      const done = (outcome: Outcome) => {
        if (settled) return;
        settled = true;
        u.inFlight--;
        u.requests.delete(number);
        resolve(outcome);
      };
      const upstreamReq = http.request(
        { host: "127.0.0.1", port: u.port, method: req.method, path: req.url, headers, agent: u.agent },
        (upstreamRes) => {
          responded = true;
          if (upstreamRes.statusCode === 503 && IDEMPOTENT.has(req.method ?? "GET")) {
            upstreamRes.resume();
            upstreamRes.on("end", () => done({ kind: "turned-away" }));
            upstreamRes.on("error", () => done({ kind: "turned-away" }));
            return;
          }
          const raw: string[] = [];
          for (let i = 0; i < upstreamRes.rawHeaders.length; i += 2) {
            if (!HOP_BY_HOP.has(upstreamRes.rawHeaders[i]!.toLowerCase()))
              raw.push(upstreamRes.rawHeaders[i]!, upstreamRes.rawHeaders[i + 1]!);
          }
          if (resent) raw.push("x-load-proxy", "resent");
          res.writeHead(upstreamRes.statusCode ?? 502, raw);
          upstreamRes.on("data", (chunk: Buffer) => res.write(chunk));
          upstreamRes.on("end", () => {
            u.answered++;
            res.end();
            done({ kind: "answered" });
          });
          upstreamRes.on("error", (error) => {
            event({ upstream: index, kind: "cut-mid-response", method: req.method, path: req.url, error: error.message });
            res.destroy();
            done({ kind: "answered" });
          });
          upstreamRes.on("aborted", () => {
            event({ upstream: index, kind: "cut-mid-response", method: req.method, path: req.url, error: "aborted" });
            res.destroy();
            done({ kind: "answered" });
          });
        },
      );
      upstreamReq.on("error", (error: NodeJS.ErrnoException) => {
        if (responded) {
          if (!settled)
            event({ upstream: index, kind: "cut-mid-response", method: req.method, path: req.url, error: error.message });
          res.destroy();
          done({ kind: "answered" });
        } else if (error.code === "ECONNREFUSED") done({ kind: "refused" });
        else done({ kind: "reset", error: error.code ?? error.message });
      });
      upstreamReq.end(body);
    });
  }

  async function handle(req: http.IncomingMessage, res: http.ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const clientIp = (req.socket.remoteAddress ?? "").replace(/^::ffff:/, "");
    const method = req.method ?? "GET";
    const tried = new Set<number>();
    /** A GET sent again after its connection closed unanswered: its answer says so (`x-load-proxy: resent`). */
    let resent = false;
    const deadline = Date.now() + NO_UPSTREAM_WAIT_MS;
    for (;;) {
      let index = choose(tried);
      if (index === undefined) {
        // Every instance refused (or was tried): wait for one to come back, then try them all again.
        if (Date.now() > deadline) break;
        await new Promise((r) => setTimeout(r, 100));
        tried.clear();
        index = choose(tried);
        if (index === undefined) continue;
      }
      tried.add(index);
      const outcome = await forward(index, req, body, res, clientIp, resent);
      if (outcome.kind === "answered") return;
      if (outcome.kind === "refused" || outcome.kind === "turned-away") {
        event({ upstream: index, kind: outcome.kind, method, path: req.url });
        setRotation(index, false);
        continue;
      }
      if (IDEMPOTENT.has(method)) {
        event({ upstream: index, kind: "get-retried", method, path: req.url, error: outcome.error });
        resent = true;
        continue;
      }
      event({ upstream: index, kind: "cut", method, path: req.url, error: outcome.error });
      res.writeHead(502, { "content-type": "text/plain", "x-load-proxy": "cut" });
      res.end(`the instance closed the connection before answering (${outcome.error}); a ${method} is not sent again`);
      return;
    }
    noUpstream++;
    res.writeHead(503, { "content-type": "text/plain", "x-load-proxy": "no-upstream" });
    res.end("no instance took the connection");
  }

  // An instance out of rotation comes back when its /readyz answers 200.
  const probe = (index: number) =>
    new Promise<boolean>((resolve) => {
      const r = http.get(
        { host: "127.0.0.1", port: upstreams[index]!.port, path: "/readyz", agent: false, timeout: 1_000 },
        (res) => {
          res.resume();
          resolve(res.statusCode === 200);
        },
      );
      r.on("error", () => resolve(false));
      r.on("timeout", () => r.destroy());
    });
  const health = setInterval(() => {
    upstreams.forEach((u, i) => {
      if (!u.inRotation) void probe(i).then((ready) => ready && setRotation(i, true));
    });
  }, 250);

  const servers: http.Server[] = [];
  const listen = (host: string) =>
    new Promise<void>((resolve, reject) => {
      const server = http.createServer({ keepAliveTimeout: 30_000 }, (req, res) => {
        handle(req, res).catch((error: unknown) => {
          if (!res.headersSent) res.writeHead(500, { "x-load-proxy": "error" });
          res.end(String(error));
        });
      });
      server.once("error", reject);
      server.listen(listenPort, host, () => {
        servers.push(server);
        resolve();
      });
    });

  return {
    async start() {
      await listen("127.0.0.1");
      // Chromium may try localhost's IPv6 address first; where there is none, 127.0.0.1 is enough.
      await listen("::1").catch(() => undefined);
      return (servers[0]!.address() as AddressInfo).port;
    },
    stats(): ProxyStats {
      return {
        forwarded: upstreams.map((u) => u.forwarded),
        answered: upstreams.map((u) => u.answered),
        noUpstream,
        events: [...events],
      };
    },
    inFlight: () => upstreams.map((u) => [...u.requests.values()]),
    close() {
      clearInterval(health);
      for (const s of servers) {
        s.close();
        s.closeAllConnections();
      }
      for (const u of upstreams) u.agent.destroy();
    },
  };
}

type Message = { type: "stats" | "inFlight"; id: number } | { type: "close" };

if (!isMainThread && (workerData as { proxy?: boolean } | null)?.proxy) {
  const { ports, listenPort, epoch } = workerData as { ports: number[]; listenPort: number; epoch: number };
  const proxy = runProxy(ports, listenPort, epoch);
  const port = await proxy.start();
  parentPort!.postMessage({ type: "listening", port });
  parentPort!.on("message", (message: Message) => {
    if (message.type === "stats") parentPort!.postMessage({ type: "answer", id: message.id, answer: proxy.stats() });
    if (message.type === "inFlight") parentPort!.postMessage({ type: "answer", id: message.id, answer: proxy.inFlight() });
    if (message.type === "close") {
      proxy.close();
      parentPort!.close();
    }
  });
}

export type Proxy = {
  port: number;
  stats(): Promise<ProxyStats>;
  /** The requests in flight at each instance now ("POST /checkout/…"), by instance. */
  inFlight(): Promise<string[][]>;
  close(): Promise<void>;
};

/** Starts the proxy in a worker thread on `listenPort` in front of the instances on `ports`. */
export async function startProxy(ports: number[], listenPort: number, epoch: number): Promise<Proxy> {
  const worker = new Worker(new URL(import.meta.url), { workerData: { proxy: true, ports, listenPort, epoch } });
  let nextId = 0;
  const waiting = new Map<number, (answer: unknown) => void>();
  const port = await new Promise<number>((resolve, reject) => {
    worker.once("error", reject);
    worker.on("message", (message: { type: string; port?: number; id?: number; answer?: unknown }) => {
      if (message.type === "listening") resolve(message.port!);
      if (message.type === "answer") {
        waiting.get(message.id!)?.(message.answer);
        waiting.delete(message.id!);
      }
    });
  });
  const ask = <T>(type: "stats" | "inFlight") => {
    const id = ++nextId;
    const answer = new Promise<T>((resolve) => waiting.set(id, resolve as (answer: unknown) => void));
    worker.postMessage({ type, id });
    return answer;
  };
  return {
    port,
    stats: () => ask<ProxyStats>("stats"),
    inFlight: () => ask<string[][]>("inFlight"),
    async close() {
      worker.postMessage({ type: "close" });
      await new Promise((r) => setTimeout(r, 100));
      await worker.terminate();
    },
  };
}
