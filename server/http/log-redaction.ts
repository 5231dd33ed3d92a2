// What the request log (pino-http) keeps of URLs. The identity routes carry codes, tokens, states
// and sometimes e-mail addresses in their query strings (the provider's /oidc/*, the sign-in
// callback /oauthcb, the login screen /accedi/*), in requests and in the redirects that lead
// there: those query strings never reach a log line.
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from "node:http";

const IDENTITY_ROUTE = /^\/(?:oidc|oauthcb|accedi)(?:[/._-]|$)/;

/** `url` (a path or an absolute address) with its query and fragment replaced when it is an identity route's. */
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
  return (IDENTITY_ROUTE.test(pathname) ? `${url.slice(0, cut)}?[redacted]` : url) as T;
}

type SerializedRequest = { url?: string; query?: unknown; headers?: IncomingHttpHeaders };
type SerializedResponse = { headers?: OutgoingHttpHeaders };

/** pino-http's serializers, given what pino's standard ones made of the request and response. */
export const redactingSerializers = {
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
