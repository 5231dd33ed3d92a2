import { EventEmitter } from "node:events";
import type { Request, RequestHandler, Response } from "express";
import { API_MESSAGES, ApiError } from "#server/api/errors.ts";
import { renderErrorPage } from "./error-page.ts";

/**
 * The largest request body accepted, in bytes. The portal's forms and the provider's token
 * requests are a few KB; nothing is uploaded.
 */
export const MAX_BODY_BYTES = 256 * 1024;

/**
 * Refuses request bodies over `maxBytes` with 413 before anything parses them (React Router's
 * `request.formData()` and the identity provider both read the whole body into memory). A
 * declared Content-Length is checked up front; a chunked body is counted as it is read, and the
 * connection is cut once it passes the limit.
 */
export function limitRequestBodies(maxBytes = MAX_BODY_BYTES): RequestHandler {
  return (req, res, next) => {
    const declared = req.headers["content-length"];
    if (declared !== undefined) {
      if (Number(declared) > maxBytes) return refuse(req, res);
      return next(); // Node's parser delivers no more than the declared length
    }
    let received = 0;
    const count = (chunk: Buffer) => {
      received += chunk.length;
      if (received <= maxBytes) return;
      req.off("data", count);
      req.pause();
      if (res.headersSent) {
        req.destroy();
      } else {
        // The body's reader fails when the connection closes, after the client has its answer.
        res.once("finish", () => req.destroy());
        refuse(req, res);
      }
    };
    // Added through EventEmitter, the listener does not start the body flowing (Readable's own
    // `on("data")` would, and chunks would pass before the route's reader is attached): it sees
    // each chunk as that reader reads it.
    EventEmitter.prototype.on.call(req, "data", count);
    next();
  };
}

function refuse(req: Request, res: Response) {
  req.log.warn({ contentLength: req.headers["content-length"] ?? null }, "request body too large");
  res
    .status(413)
    // What is left of the body is never read: the connection ends after this answer.
    .set("Connection", "close")
    .set("Cache-Control", "no-store");
  // The API's clients read JSON, in its error shape (its own smaller limit answers so too); people read the error page.
  if (req.path.startsWith("/api/")) res.json(new ApiError(413, API_MESSAGES.tooLarge));
  else res.type("html").send(renderErrorPage({ status: 413, requestId: String(req.id), nonce: res.locals.cspNonce as string }));
}
