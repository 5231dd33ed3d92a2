import type { RequestHandler } from "express";
import { renderErrorPage } from "./error-page.ts";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * Refuses state-changing requests sent by other sites (cross-site request forgery), on top of
 * the SameSite=Lax cookies: the browser's Origin header must be the portal's own; when a browser
 * sends no Origin, its Sec-Fetch-Site must not say "cross-site".
 */
export function sameOriginPosts(publicOrigin: string): RequestHandler {
  return (req, res, next) => {
    if (SAFE_METHODS.has(req.method)) return next();
    const origin = req.headers.origin;
    const fetchSite = req.headers["sec-fetch-site"];
    const crossSite = origin ? origin !== publicOrigin : fetchSite === "cross-site";
    if (!crossSite) return next();
    req.log.warn({ origin, fetchSite }, "cross-site form post refused");
    res
      .status(403)
      .type("html")
      .send(renderErrorPage({ status: 403, requestId: String(req.id), nonce: res.locals.cspNonce as string }));
  };
}
