import type { IncomingMessage, ServerResponse } from "node:http";
import helmet from "helmet";
import type { Config } from "#server/config.ts";

type Res = ServerResponse & { locals: { cspNonce: string } };
type Middleware = (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void) => void;

/**
 * Stripe's origins (its security guide), opened only on the pages that pay and only when Stripe
 * is configured: Stripe.js and its Payment Element's frames, its API, the 3-D Secure frames, and
 * the hosted card page a form post is redirected to (CSP's form-action also governs that redirect).
 * Under 'strict-dynamic' the script hosts matter only to browsers older than CSP 3: for the others
 * the loader, which carries the nonce, admits Stripe.js.
 */
export const STRIPE_CSP = {
  scriptSrc: ["https://js.stripe.com", "https://*.js.stripe.com"],
  frameSrc: ["https://js.stripe.com", "https://*.js.stripe.com", "https://hooks.stripe.com"],
  connectSrc: ["https://api.stripe.com"],
  // The hosted card page, and the bank's 3-D Secure page of a charge made with the customer present.
  formAction: ["https://checkout.stripe.com", "https://hooks.stripe.com"],
} as const;

/**
 * The pages (and their data requests) that may load Stripe.js: the checkout, and the EDU
 * subscription's (its card update, its 'Paga ora').
 */
const STRIPE_PAGES = /^\/(checkout|my-products\/abbonamento)\//;

/**
 * Helmet with a strict Content-Security-Policy: scripts run only when they carry this
 * response's nonce (or are loaded by one that does: 'strict-dynamic').
 */
export function securityHeaders(config: Config): Middleware {
  const nonce = (_req: IncomingMessage, res: ServerResponse) => `'nonce-${(res as Res).locals.cspNonce}'`;
  const devServer = config.isProduction ? [] : ["ws:", "wss:"];
  const withStripe = (stripe: boolean) =>
    helmet({
      contentSecurityPolicy: {
        useDefaults: false,
        directives: {
          defaultSrc: ["'self'"],
          scriptSrc: [nonce, "'strict-dynamic'", ...(stripe ? STRIPE_CSP.scriptSrc : [])],
          styleSrc: ["'self'", nonce],
          imgSrc: ["'self'", "data:"],
          fontSrc: ["'self'"],
          connectSrc: ["'self'", ...devServer, ...(stripe ? STRIPE_CSP.connectSrc : [])],
          ...(stripe ? { frameSrc: [...STRIPE_CSP.frameSrc] } : {}),
          objectSrc: ["'none'"],
          baseUri: ["'none'"],
          frameAncestors: ["'none'"],
          // The catalogue search form submits to the publisher's main site.
          formAction: ["'self'", config.links.mainSite, ...(stripe ? STRIPE_CSP.formAction : [])],
          ...(config.isHttps ? { upgradeInsecureRequests: [] } : {}),
        },
      },
      strictTransportSecurity: config.isHttps ? { maxAge: 63072000, includeSubDomains: true } : false,
      referrerPolicy: { policy: "strict-origin-when-cross-origin" },
      crossOriginEmbedderPolicy: false,
    });
  const plain = withStripe(false);
  if (!config.stripe) return plain;
  const checkout = withStripe(true);
  return (req, res, next) => {
    const path = (req.url ?? "/").split("?")[0]!;
    return (STRIPE_PAGES.test(path) ? checkout : plain)(req, res, next);
  };
}
