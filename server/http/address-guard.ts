import type { RequestHandler } from "express";
import { API_MESSAGES, ApiError } from "#server/api/errors.ts";
import { renderErrorPage } from "./error-page.ts";

/**
 * Refuses an address holding a NUL character (%00), in its path or its query: no id, code or
 * token of the portal has one, and PostgreSQL refuses it in text, so it could only turn a lookup
 * into a server error. The client's fault: a 400, logged as a warning. (Services check the shape
 * of every id they are given too: this is the net under them.)
 */
export function refuseNulInAddress(): RequestHandler {
  return (req, res, next) => {
    if (!/%00/.test(req.originalUrl)) return next();
    req.log.warn("address with a NUL character refused");
    res.status(400).set("Cache-Control", "no-store");
    // The API's clients read JSON, in its error shape; people read the error page.
    if (req.path.startsWith("/api/")) res.json(new ApiError(400, API_MESSAGES.badAddress, { code: "bad_address" }));
    else res.type("html").send(renderErrorPage({ status: 400, requestId: String(req.id), nonce: res.locals.cspNonce as string }));
  };
}
