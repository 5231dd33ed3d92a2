import type { IncomingMessage, ServerResponse } from "node:http";
import helmet from "helmet";
import type { Config } from "../config.ts";

type Res = ServerResponse & { locals: { cspNonce: string } };

/**
 * Helmet with a strict Content-Security-Policy: scripts run only when they carry this
 * response's nonce (or are loaded by one that does: 'strict-dynamic').
 */
export function securityHeaders(config: Config) {
  const nonce = (_req: IncomingMessage, res: ServerResponse) => `'nonce-${(res as Res).locals.cspNonce}'`;
  const devServer = config.isProduction ? [] : ["ws:", "wss:"];
  return helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: [nonce, "'strict-dynamic'"],
        styleSrc: ["'self'", nonce],
        imgSrc: ["'self'", "data:"],
        fontSrc: ["'self'"],
        connectSrc: ["'self'", ...devServer],
        objectSrc: ["'none'"],
        baseUri: ["'none'"],
        frameAncestors: ["'none'"],
        // The catalogue search form submits to the publisher's main site.
        formAction: ["'self'", config.links.mainSite],
        ...(config.isHttps ? { upgradeInsecureRequests: [] } : {}),
      },
    },
    strictTransportSecurity: config.isHttps ? { maxAge: 63072000, includeSubDomains: true } : false,
    referrerPolicy: { policy: "strict-origin-when-cross-origin" },
    crossOriginEmbedderPolicy: false,
  });
}
