// What the request log (pino-http) keeps of URLs. The identity routes carry codes, tokens, states
// and sometimes e-mail addresses in their query strings (the provider's /oidc/*, the sign-in
// callback /oauthcb, the login screen /accedi/*), in requests and in the redirects that lead
// there: those query strings never reach a log line. Stripe.js comes back to the checkout with
// the SetupIntent's client secret in the address (setup_intent_client_secret): its value never
// reaches a log line either, in the request's address or in a later request's Referer.
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from "node:http";
import { logSerializers } from "#server/logger.ts";

const IDENTITY_ROUTE = /^\/(?:oidc|oauthcb|accedi)(?:[/._-]|$)/;
/** Stripe.js's return parameters that hold an intent's client secret. */
const CLIENT_SECRET_PARAM = /([?&](?:setup_intent|payment_intent)_client_secret=)[^&#]*/g;

/**
 * `url` (a path or an absolute address) with its query and fragment replaced when it is an
 * identity route's, and with a client secret's value replaced anywhere.
 */
export function redactUrl<T extends string | undefined>(url: T): T {
  if (!url) return url;
  const cut = url.search(/[?#]/);
  if (cut === -1) return url;
  let pathname: string;
  try {
    pathname = new URL(url, "http://portal.invalid").pathname;
  } catch {
    pathname = "/oidc"; // unreadable: treat it as sensitive
  }
  if (IDENTITY_ROUTE.test(pathname)) return `${url.slice(0, cut)}?[redacted]` as T;
  return url.replace(CLIENT_SECRET_PARAM, "$1[redacted]") as T;
}

type SerializedRequest = { url?: string; query?: unknown; headers?: IncomingHttpHeaders };
type SerializedResponse = { headers?: OutgoingHttpHeaders };

/** pino-http's serializers, given what pino's standard ones made of the request and response. */
export const redactingSerializers = {
  // pino-http puts its own in place of the logger's: the logger's is given back.
  err: logSerializers.err,
  req(req: SerializedRequest) {
    const url = redactUrl(req.url);
    const referer = redactUrl(req.headers?.referer);
    if (url === req.url && referer === req.headers?.referer) return req;
    return {
      ...req,
      url,
      query: url === req.url ? req.query : "[redacted]",
      // The headers are the request's own object: copied, not changed.
      headers: { ...req.headers, referer },
    };
  },
  res(res: SerializedResponse) {
    const location = res.headers?.location;
    if (typeof location !== "string" || redactUrl(location) === location) return res;
    return { ...res, headers: { ...res.headers, location: redactUrl(location) } };
  },
};
