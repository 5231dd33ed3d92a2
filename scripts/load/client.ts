// The virtual customers' HTTP client: a fetch over node:http with a keep-alive agent of each
// customer's own, bound to an address of its own in 127.0.0.0/8 (the proxy passes it on as
// X-Forwarded-For, so the portal's per-address rate limits see many customers, as they would), and
// every request timed and recorded under its route (ids taken out of the path).
import http from "node:http";
import type { Fetch } from "#scripts/bench/sign-in.ts";

export type Sample = {
  /** "GET /dashboard/", "POST /checkout/:order/", … */
  route: string;
  /** The path itself, its ids in it (no query). */
  path: string;
  status: number;
  ms: number;
  /** ms since the run's epoch, when the request was sent. */
  at: number;
  /** The proxy answered 502 for a request an instance dropped while stopping (not the portal's answer). */
  cut: boolean;
  /** A failure with no answer at all (timeout, reset). */
  error?: string;
  /** A GET the proxy sent again to another instance (its first one's connection closed unanswered). */
  resent?: boolean;
  /** The virtual customer who sent it (none for the run's own requests). */
  customer?: number;
};

/** Which route a path belongs to: its ids, codes and query taken out. */
function routeOf(pathname: string): string {
  return pathname
    .replace(/^\/checkout\/[^/]+/, "/checkout/:order")
    .replace(/^\/create-checkout\/[^/]+/, "/create-checkout/:product")
    .replace(/^\/accedi\/[^/]+/, "/accedi/:interaction")
    .replace(/^\/oidc\/auth\/[^/]+/, "/oidc/auth/:interaction")
    .replace(/^\/oidc\/interaction\/[^/]+/, "/oidc/interaction/:uid")
    .replace(/^\/ricevuta\/[^/]+(\/[^/]+)?/, "/ricevuta/:order$1")
    .replace(/^\/pagamenti\/prova\/3ds\/[^/]+/, "/pagamenti/prova/3ds/:setup");
}

const REQUEST_TIMEOUT_MS = 60_000;
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

export class Recorder {
  readonly samples: Sample[] = [];
  private readonly epoch: number;
  constructor(epoch: number) {
    this.epoch = epoch;
  }
  now() {
    return Date.now() - this.epoch;
  }
  add(sample: Sample) {
    this.samples.push(sample);
  }
}

/**
 * A fetch for one virtual customer: every request to the proxy on 127.0.0.1:`proxyPort` from
 * `localAddress`, whatever host the URL names (the Host header keeps it). It never follows a
 * redirect unless asked (`redirect` other than "manual"), as a browser's manual mode.
 */
export function customerFetch(
  proxyPort: number,
  localAddress: string,
  clock: () => number,
  record: (sample: Sample) => void,
): Fetch & { close(): void } {
  // An idle connection is closed here before the proxy would close it (30 s), as browsers do, so a
  // request is never sent on a connection the proxy is closing at that moment.
  const agent = new http.Agent({ keepAlive: true, maxSockets: 6, localAddress, timeout: 20_000 });
  const once = (url: URL, init: RequestInit): Promise<Response> => {
    const method = (init.method ?? "GET").toUpperCase();
    const headers: Record<string, string> = { host: url.host, "user-agent": "portal-load/1 (virtual customer)" };
    new Headers(init.headers).forEach((value, name) => (headers[name] = value));
    const body =
      init.body === undefined || init.body === null
        ? undefined
        : Buffer.from(init.body instanceof URLSearchParams ? init.body.toString() : String(init.body));
    if (body) {
      headers["content-length"] = String(body.length);
      headers["content-type"] ??= "application/x-www-form-urlencoded";
    }
    const route = `${method} ${routeOf(url.pathname)}`;
    const at = clock();
    const started = performance.now();
    return new Promise<Response>((resolve, reject) => {
      const req = http.request(
        {
          host: "127.0.0.1",
          port: proxyPort,
          method,
          path: url.pathname + url.search,
          headers,
          agent,
          timeout: REQUEST_TIMEOUT_MS,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("error", (error) => {
            record({
              route,
              path: url.pathname,
              status: 0,
              ms: performance.now() - started,
              at,
              cut: true,
              error: error.message,
            });
            reject(error);
          });
          res.on("end", () => {
            const status = res.statusCode ?? 0;
            const cut = res.headers["x-load-proxy"] === "cut";
            const resent = res.headers["x-load-proxy"] === "resent";
            record({ route, path: url.pathname, status, ms: performance.now() - started, at, cut, resent });
            const responseHeaders = new Headers();
            for (let i = 0; i < res.rawHeaders.length; i += 2) responseHeaders.append(res.rawHeaders[i]!, res.rawHeaders[i + 1]!);
            resolve(new Response(NULL_BODY.has(status) ? null : Buffer.concat(chunks), { status, headers: responseHeaders }));
          });
        },
      );
      req.on("timeout", () => req.destroy(new Error(`no answer within ${REQUEST_TIMEOUT_MS / 1000} s`)));
      req.on("error", (error) => {
        record({ route, path: url.pathname, status: 0, ms: performance.now() - started, at, cut: false, error: error.message });
        reject(error);
      });
      req.end(body);
    });
  };
  const customerFetch = async (input: string | URL, init: RequestInit = {}) => {
    let url = new URL(input);
    let response = await once(url, init);
    if (init.redirect === "manual") return response;
    // Followed as a browser does: a GET to the new address, with the same headers.
    for (let hops = 0; hops < 10 && response.status >= 300 && response.status < 400; hops++) {
      const location = response.headers.get("location");
      if (!location) break;
      url = new URL(location, url);
      response = await once(url, { headers: init.headers });
    }
    return response;
  };
  return Object.assign(customerFetch, { close: () => agent.destroy() });
}
