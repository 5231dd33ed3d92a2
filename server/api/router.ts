// The JSON API's Express router (mounted at /api): the operations' routes, bearer tokens, CORS,
// JSON bodies, validation, and the `{result}` / `{error: {code, field?, description}}` answers of §7. A route
// only validates and calls its operation, which calls the same services the pages call.
import express, { type ErrorRequestHandler, type Request, type RequestHandler, type Response } from "express";
import type { z } from "zod";
import { MESSAGES } from "#shared/messages.ts";
import { isStorableText, unstorableTextPath } from "#shared/stored-text.ts";
import type { Config } from "#server/config.ts";
import type { Logger } from "#server/logger.ts";
import type { Services } from "#server/services.ts";
import type { AccessTokens } from "#server/identity/access-tokens.ts";
import { italianIssue } from "#server/lib/italian-issues.ts";
import { API_MESSAGES, ApiError, invalidInput } from "./errors.ts";
import { clientAddress } from "#server/security/client-address.ts";
import { buildManifests } from "./manifest.ts";
import { buildOpenApiDocument } from "./openapi.ts";
import { renderApiDocs } from "./docs-page.ts";
import { routeOf, TOTAL_COUNT_HEADER, type Operation, type PageAnswer } from "./operation.ts";
import { ROUTE_LABEL } from "#server/http/request-metrics.ts";

/** How long anyone may keep the API's documents and its reference lists (they change with a release or an editor's edit). */
const PUBLIC_LIST_CACHE = "public, max-age=300";

/** The API's bodies are small: codes, ids, a checkout's fields. */
const MAX_JSON_BYTES = 64 * 1024;

export type ApiRouterOptions = {
  config: Config;
  services: Services;
  accessTokens: AccessTokens;
  operations: readonly Operation[];
};

/**
 * A string PostgreSQL cannot store (a NUL, a lone surrogate) is the field's 400, whatever the
 * schema: checked here, before any schema, so that no operation can forget it.
 */
function refuseUnstorableText(value: unknown) {
  const path = unstorableTextPath(value);
  if (!path) return;
  const [field] = path;
  // A key that is itself unstorable is not echoed back.
  const named = typeof field === "string" && isStorableText(field);
  if (!named) throw new ApiError(400, MESSAGES.fieldCharacters, { code: "invalid_field" });
  throw new ApiError(400, MESSAGES.fieldCharactersNamed(field), { field });
}

function parsed<S extends z.ZodType | undefined>(schema: S, value: unknown): unknown {
  if (!schema) return undefined;
  refuseUnstorableText(value);
  // The parse's error map words in Italian what the schema leaves to zod; the schema's own messages win.
  const result = schema.safeParse(value, { error: italianIssue });
  if (!result.success) throw invalidInput(result.error);
  return result.data;
}

/**
 * The token of the request's bearer credentials: undefined when it sends none (no Authorization
 * header, or another scheme), "" when they are malformed. The scheme is case-insensitive (RFC 9110
 * §11.1: OAuth clients hand back `token_type: "bearer"`), and extra spaces before the token are let pass.
 */
function bearerOf(req: Request): string | undefined {
  const match = /^bearer(?: +(.*))?$/i.exec(req.get("authorization") ?? "");
  if (!match) return undefined;
  const token = match[1] ?? "";
  return /^[A-Za-z0-9._~+/-]+=*$/.test(token) ? token : "";
}

function sendError(req: Request, res: Response, error: ApiError) {
  if (error.status === 401) {
    // RFC 6750 §3: a request that sent no token is only told to send one; one whose token is bad
    // (malformed, forged, expired, revoked, of an account gone) is told so, and a client refreshes.
    const sent = bearerOf(req) !== undefined;
    res.set("WWW-Authenticate", sent ? 'Bearer realm="api", error="invalid_token"' : 'Bearer realm="api"');
  }
  if (error.retryAfterSeconds !== undefined) res.set("Retry-After", String(error.retryAfterSeconds));
  res.status(error.status).json(error);
}

/** CORS for the configured origins only; other origins get no CORS header, so browsers keep their pages out. */
function corsFor(origins: readonly string[]): RequestHandler {
  const allowed = new Set(origins);
  return (req, res, next) => {
    const origin = req.get("origin");
    if (origin && allowed.has(origin)) {
      res.set({
        "Access-Control-Allow-Origin": origin,
        "Access-Control-Allow-Headers": "Authorization, Content-Type",
        "Access-Control-Allow-Methods": "GET, POST",
        "Access-Control-Max-Age": "600",
        // A browser's script reads only the headers listed here: the 401's challenge, the 429's wait,
        // the validator of cached answers, the id to quote when reporting a problem and a paged list's length.
        "Access-Control-Expose-Headers": `WWW-Authenticate, Retry-After, ETag, X-Request-Id, ${TOTAL_COUNT_HEADER}`,
      });
    }
    res.vary("Origin");
    if (req.method === "OPTIONS") return void res.status(204).end();
    next();
  };
}

/**
 * A POST's body must be JSON (an empty body is no body). A GET's body is not read: no operation
 * takes one (RFC 9110 §9.3.1 gives it no meaning), so it can neither be too large nor malformed,
 * statuses the document does not list for a GET.
 */
const parseJson = express.json({ limit: MAX_JSON_BYTES, strict: false });
const jsonBodies: RequestHandler = (req, res, next) => {
  if (req.method !== "POST") return next();
  const hasBody = Number(req.get("content-length") ?? 0) > 0 || req.get("transfer-encoding") !== undefined;
  if (hasBody && !req.is("application/json")) return next(new ApiError(415, API_MESSAGES.notJson));
  parseJson(req, res, next);
};

export function createApiRouter({ config, services, accessTokens, operations }: ApiRouterOptions) {
  // Not strict: every address answers with and without its trailing slash, for GET and POST alike,
  // because §7's rule ("any path part from ':' on is replaced by the supplied parameter") gives
  // `…/verify_codiceattivazione/<code>` while the manifests' urls end in '/'. Serving both beats a
  // redirect: a 308 costs a GET a round trip and makes a POST resend its body.
  const router = express.Router({ strict: false });
  router.use(corsFor(config.api.corsOrigins));
  router.use(jsonBodies);

  // Built on the first request that wants them (the JSON Schemas of every operation), not at start-up.
  let documents: { manifests: ReturnType<typeof buildManifests>; openapi: ReturnType<typeof buildOpenApiDocument> } | null = null;
  const built = () =>
    (documents ??= {
      manifests: buildManifests(operations, config.publicOrigin),
      openapi: buildOpenApiDocument(operations, config.publicOrigin),
    });
  const publicDocument = (res: Response) => res.set("Cache-Control", PUBLIC_LIST_CACHE);
  router.get("/manifest.json", (_req, res) => void publicDocument(res).json(built().manifests.root));
  router.get("/v1/:module/manifest.json", (req, res, next) => {
    const { byModule } = built().manifests;
    if (!Object.hasOwn(byModule, req.params.module)) return next();
    publicDocument(res).json(byModule[req.params.module]);
  });
  router.get("/openapi.json", (_req, res) => void publicDocument(res).json(built().openapi));
  router.get("/docs/", (_req, res) => {
    publicDocument(res)
      .type("html")
      .send(renderApiDocs(operations, { nonce: res.locals.cspNonce as string }));
  });

  for (const op of operations) {
    const path = routeOf(op).slice("/api".length);
    const method = op.method === "GET" ? "get" : "post";
    router[method](path, async (req, res, next) => {
      res.locals[ROUTE_LABEL] = routeOf(op);
      try {
        let caller = null;
        if (op.auth === "customer") {
          const token = bearerOf(req);
          caller = token ? await accessTokens.verify(token) : null;
          if (!caller) throw new ApiError(401, API_MESSAGES.unauthorized);
        }
        const context = {
          params: parsed(op.params, req.params),
          query: parsed(op.query, req.query),
          // A POST without a body is an empty object to its schema (e.g. 'check hub' polling).
          body: parsed(op.body, req.body === undefined ? {} : req.body),
          caller,
          ip: clientAddress(req),
          services,
          config,
          log: req.log as Logger,
        };
        const answer = await op.handle(context as never);
        // A paged list's handler answers its page and the list's length; the length goes in a header,
        // so the answer stays §7's `{result}`.
        const { page, total } = op.paged ? (answer as PageAnswer<unknown>) : { page: answer, total: undefined };
        const result = op.result.parse(page);
        if (total !== undefined) res.set(TOTAL_COUNT_HEADER, String(total));
        if (op.redirect) return res.redirect(302, String(result));
        // Express answers a GET with its ETag, and 304 to a request that already holds it.
        res.set("Cache-Control", op.publicCache ? PUBLIC_LIST_CACHE : "no-store").json({ result });
      } catch (error) {
        next(error);
      }
    });
  }

  // Known paths with another method, then unknown paths: JSON, never the portal's pages. An unknown
  // address has a message of its own, so a client tells a wrong address from an object not found.
  const routes = operations.map(
    (op) =>
      new RegExp(
        `^${routeOf(op)
          .slice("/api".length)
          .replace(/:[^/]+/g, "[^/]+")
          .replace(/\/$/, "/?")}$`,
      ),
  );
  router.all("/{*rest}", (req, _res, next) => {
    const known = routes.some((route) => route.test(req.path));
    next(
      known
        ? new ApiError(405, API_MESSAGES.noOperation)
        : new ApiError(404, API_MESSAGES.unknownAddress, { code: "unknown_address" }),
    );
  });

  const handleError: ErrorRequestHandler = (error, req, res, _next) => {
    if (error instanceof ApiError) {
      req.log.warn({ status: error.status, description: error.description }, "API call refused");
      return sendError(req, res, error);
    }
    // A '%' that decodes to nothing in the path (Express decodes its parameters): the address is at fault, not a body.
    if (error instanceof URIError) return sendError(req, res, new ApiError(400, API_MESSAGES.badEscape, { code: "bad_address" }));
    const status = Number((error as { status?: unknown }).status);
    if (status === 413) return sendError(req, res, new ApiError(413, API_MESSAGES.tooLarge));
    if (status === 400 && (error as { type?: string }).type === "entity.parse.failed") {
      return sendError(req, res, new ApiError(400, API_MESSAGES.invalidJson, { code: "invalid_json" }));
    }
    if (status >= 400 && status < 500)
      return sendError(req, res, new ApiError(400, API_MESSAGES.invalidJson, { code: "invalid_json" }));
    req.log.error({ err: error }, "API call failed");
    res.status(500).json({ error: { code: "server_error", description: API_MESSAGES.internal } });
  };
  router.use(handleError);
  return router;
}
