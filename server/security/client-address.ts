// The client's address, scheme and host as TRUST_PROXY allows reading them: Express works them
// out from the connection and the X-Forwarded-* headers of the proxies it trusts (its
// `trust proxy`, set from config.trustProxy in app.ts). Everything that needs the client's
// address (rate limits, audit rows, a session's network) reads it here, the identity provider
// included, so no code can read a header that a client wrote itself.
import type { IncomingMessage } from "node:http";
import type { Request } from "express";

/** An incoming request, as Express has seen it (its `ip`, `protocol` and `host`) when it has. */
type SeenByExpress = IncomingMessage & Partial<Pick<Request, "ip" | "protocol" | "host">>;

/** What a Koa request object holds: the Node request it wraps. */
type KoaRequest = { req: IncomingMessage };

/** The client's address: Express's, or the connection's for a request Express did not route. */
export function clientAddress(req: IncomingMessage): string {
  return (req as SeenByExpress).ip ?? req.socket.remoteAddress ?? "";
}

/**
 * Makes a Koa app mounted in the Express app (the identity provider) take the client's address,
 * the scheme (whether a cookie may be Secure) and the host (its own URLs) from Express, instead of
 * trusting X-Forwarded-* by its own, all-or-nothing `proxy` setting, which takes the left-most
 * address a client may have written.
 */
export function readRequestsAsExpress(app: { request: object }): void {
  Object.defineProperties(app.request, {
    ip: {
      get(this: KoaRequest) {
        return clientAddress(this.req);
      },
      // Koa assigns it for tests only; the address stays Express's.
      set() {},
      configurable: true,
    },
    protocol: {
      get(this: KoaRequest) {
        const req = this.req as SeenByExpress;
        return req.protocol ?? ("encrypted" in req.socket && req.socket.encrypted ? "https" : "http");
      },
      configurable: true,
    },
    host: {
      get(this: KoaRequest) {
        const req = this.req as SeenByExpress;
        return req.host ?? req.headers.host ?? "";
      },
      configurable: true,
    },
  });
}
