import { timingSafeEqual } from "node:crypto";
import type { RequestHandler } from "express";
import type { RateLimits } from "#server/security/rate-limits.ts";
import { clientAddress } from "#server/security/client-address.ts";

/**
 * Rate limit of the identity provider's token endpoint, per client address. The portal's own
 * token requests (every sign-in and every refresh, for all customers) come from the portal's
 * address: they are recognised by the portal's credentials and never counted, or a busy hour
 * would refuse refreshes and end customers' sessions.
 */
export function limitTokenRequests({
  rateLimits,
  portalAuthorization,
}: {
  rateLimits: Pick<RateLimits, "checkTokenRequest">;
  /** The Authorization header the portal sends (see identity/client-credentials.ts). */
  portalAuthorization: string;
}): RequestHandler {
  const expected = Buffer.from(portalAuthorization);
  const isPortal = (authorization: string | undefined) => {
    const actual = Buffer.from(authorization ?? "");
    return actual.length === expected.length && timingSafeEqual(actual, expected);
  };

  return async (req, res, next) => {
    if (isPortal(req.headers.authorization)) return next();
    const result = await rateLimits.checkTokenRequest(clientAddress(req));
    if (result.ok) return next();
    req.log.warn({ limit: result.limit }, "token request rate limited");
    res
      .status(429)
      .set("Retry-After", String(result.retryAfterSeconds))
      .set("Cache-Control", "no-store")
      .json({ error: "invalid_request", error_description: "too many requests, try again later" });
  };
}
