import type { RequestHandler } from "express";

/** The names of the cookies in a Cookie header. */
const cookieNames = (header: string | undefined) => (header ?? "").split(";").map((part) => part.split("=")[0]!.trim());

/**
 * `Cache-Control: no-store` on every answer to a signed-in browser (one sending the session
 * cookie) and on every answer that sets a cookie, so that neither a shared cache nor the back
 * button of a shared computer keeps a customer's page. Only answers that declare themselves
 * public (a product cover, the same for everyone) keep their caching, and only without a cookie.
 */
export function noStoreForSessions(sessionCookieName: string): RequestHandler {
  return (req, res, next) => {
    const signedIn = cookieNames(req.headers.cookie).includes(sessionCookieName);
    const writeHead = res.writeHead;
    // The route decides its headers as it answers: look at them just before they are sent.
    res.writeHead = function (this: typeof res, ...args: Parameters<typeof writeHead>) {
      const isPublic = /\bpublic\b/i.test(String(res.getHeader("cache-control") ?? ""));
      if (res.hasHeader("set-cookie") || (signedIn && !isPublic)) res.setHeader("Cache-Control", "no-store");
      return writeHead.apply(this, args);
    } as typeof writeHead;
    next();
  };
}
