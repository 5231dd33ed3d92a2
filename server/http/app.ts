// The Express host: security headers, logging, compression, static files, health checks and
// the React Router handler, beside the identity provider (/oidc) and the JSON API (/api).
import { randomBytes, randomUUID } from "node:crypto";
import path from "node:path";
import { createRequestHandler } from "@react-router/express";
import compression from "compression";
import express, { type ErrorRequestHandler, type RequestHandler } from "express";
import { pinoHttp } from "pino-http";
import { RouterContextProvider, type ServerBuild } from "react-router";
import { API_OPERATIONS } from "#server/api/operations/index.ts";
import { createApiRouter } from "#server/api/router.ts";
import type { Config } from "#server/config.ts";
import { basicAuthorization } from "#server/identity/client-credentials.ts";
import type { ContextKeys } from "#shared/context.ts";
import { publicSettingsOf } from "#server/config.ts";
import type { Logger } from "#server/logger.ts";
import type { Services } from "#server/services.ts";
import { refuseNulInAddress } from "./address-guard.ts";
import { clientAddress } from "#server/security/client-address.ts";
import { limitRequestBodies, MAX_BODY_BYTES } from "./body-limit.ts";
import { renderErrorPage } from "./error-page.ts";
import { redactingSerializers } from "./log-redaction.ts";
import { noStoreForSessions } from "./no-store.ts";
import { sameOriginPosts } from "./same-origin.ts";
import { securityHeaders } from "./security-headers.ts";
import { whileStopping, type Lifecycle } from "./shutdown.ts";
import { limitTokenRequests } from "./token-rate-limit.ts";
import { withinOutageBudget } from "#server/db/reconnecting-pool.ts";
import { PROBE_USER_AGENT } from "#server/identity/own-provider-check.ts";
import { metricsEndpoint, requestMetrics } from "./request-metrics.ts";

export type HttpAppOptions = {
  config: Config;
  services: Services;
  log: Logger;
  /** The React Router server build, or a loader of it (the Vite dev server reloads it). */
  build: ServerBuild | (() => Promise<ServerBuild>);
  /** Middleware placed before the portal (the Vite dev server's). */
  devMiddleware?: RequestHandler;
  /** Directory of the built client assets; absent in development. */
  clientDir?: string;
  /** Whether the instance is stopping (server/http/shutdown.ts); absent: it never does. */
  lifecycle?: Lifecycle;
};

const REQUEST_ID = /^[A-Za-z0-9._-]{8,64}$/;

/** The context keys the app build exports from its server entry (see shared/context.ts). */
async function contextKeysOf(build: HttpAppOptions["build"]): Promise<ContextKeys> {
  const loaded = typeof build === "function" ? await build() : build;
  return loaded.entry.module as unknown as ContextKeys;
}

export function createHttpApp({ config, services, log, build, devMiddleware, clientDir, lifecycle }: HttpAppOptions) {
  const { metrics } = services;
  const app = express();
  app.disable("x-powered-by");
  app.set("trust proxy", config.trustProxy);

  // First, so that every answer is counted, those of a stopping instance too. Only when Prometheus
  // reads them: an instance nobody scrapes does not time its requests.
  if (config.metrics.token) app.use(requestMetrics(metrics, build));

  // Before the request log: what a stopping instance turns away is not an error of its own.
  app.use(whileStopping(lifecycle));

  app.use(
    pinoHttp({
      logger: log,
      // A proxy's request id is kept so one id follows the request across hops.
      genReqId(req, res) {
        const incoming = req.headers["x-request-id"];
        const id = typeof incoming === "string" && REQUEST_ID.test(incoming) ? incoming : randomUUID();
        res.setHeader("X-Request-Id", id);
        return id;
      },
      customLogLevel(req, res, err) {
        if (err || res.statusCode >= 500) return "error";
        if (res.statusCode >= 400) return "warn";
        // Readiness's own call to the provider (server/identity/own-provider-check.ts).
        if (req.headers["user-agent"] === PROBE_USER_AGENT) return "debug";
        return "info";
      },
      // No code, token or e-mail address of the identity routes' URLs in the log.
      serializers: redactingSerializers,
      // Health probes would drown everything else.
      autoLogging: { ignore: (req) => req.url === "/healthz" || req.url === "/readyz" || req.url === "/metrics" },
    }),
  );

  app.use((_req, res, next) => {
    res.locals.cspNonce = randomBytes(16).toString("base64");
    next();
  });
  app.use(securityHeaders(config));
  app.use(refuseNulInAddress());
  // Before anything reads a body, the identity provider's routes included.
  app.use(limitRequestBodies());
  app.use(compression());

  // Each request spends at most DATABASE_OUTAGE_WAIT_MS waiting for the database to come back.
  app.use((_req, _res, next) => withinOutageBudget(config.database.timeouts.outageWaitMs, next));

  if (config.metrics.token) app.get("/metrics", metricsEndpoint(metrics, config.metrics.token));
  app.get("/healthz", (_req, res) => {
    res.set("Cache-Control", "no-store").json({ status: "ok" });
  });
  /** Why the provider was last unreachable, or null: what readiness last said about it. */
  let providerTrouble: string | null = null;
  app.get("/readyz", async (req, res) => {
    res.set("Cache-Control", "no-store");
    // Unready first: the proxy turns away while the instance still serves (the drain).
    if (lifecycle?.stopping) {
      res.status(503).json({ status: "stopping" });
      return;
    }
    try {
      await services.health.checkDatabase();
    } catch (error) {
      req.log.error({ err: error }, "readiness check failed");
      res.status(503).json({ status: "unavailable", database: "error" });
      return;
    }
    // Every sign-in goes through PUBLIC_ORIGIN to the provider: an instance that cannot is not ready.
    const provider = await services.health.checkOwnProvider();
    // Said when it changes, not at every probe of the balancer (every few seconds).
    const reason = provider.ok ? null : provider.reason;
    if (reason !== providerTrouble) {
      if (reason) req.log.error({ reason }, "readiness: the identity provider is unreachable through PUBLIC_ORIGIN");
      else req.log.info("readiness: the identity provider is reachable again");
      providerTrouble = reason;
    }
    if (provider.ok) {
      res.json({ status: "ok", database: "ok", identityProvider: "ok" });
    } else {
      res.status(503).json({ status: "unavailable", database: "ok", identityProvider: "unreachable", reason: provider.reason });
    }
  });

  app.post(
    "/oidc/token",
    limitTokenRequests({
      rateLimits: services.rateLimits,
      portalAuthorization: basicAuthorization(config.oidc.clientId, config.secrets.oidcClient),
    }),
  );
  // Stripe's notifications: signed, so neither same-origin nor a form; the signature is checked
  // on the exact bytes received.
  const webhooks = services.stripeWebhooks;
  if (webhooks) {
    app.post("/api/webhooks/stripe", express.raw({ type: "application/json", limit: MAX_BODY_BYTES }), async (req, res, next) => {
      try {
        const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
        const answer = await webhooks.handle(body, req.get("stripe-signature"));
        res.status(answer.status).set("Cache-Control", "no-store").type("text/plain").send(answer.body);
      } catch (error) {
        next(error);
      }
    });
  }
  // The identity provider parses its own request bodies and renders its own pages.
  app.use("/oidc", services.identity.provider.callback());
  // The JSON API: bearer tokens, not cookies, so no cross-site check; it answers JSON, never a page.
  app.use("/api", createApiRouter({ config, services, accessTokens: services.apiAccess, operations: API_OPERATIONS }));

  if (devMiddleware) app.use(devMiddleware);
  app.use(sameOriginPosts(config.publicOrigin));
  if (clientDir) {
    // Fingerprinted build output never changes under the same name.
    app.use("/assets", express.static(path.join(clientDir, "assets"), { immutable: true, maxAge: "1y", index: false }));
    app.use(express.static(clientDir, { maxAge: "1h", index: false }));
  }

  // The portal's pages and data, not static files (a signed-in browser sends its cookie for those too).
  app.use(noStoreForSessions(services.auth.sessionCookieName));

  const settings = publicSettingsOf(config);
  app.all(
    "/{*splat}",
    createRequestHandler({
      build,
      mode: config.isProduction ? "production" : "development",
      async getLoadContext(req, res) {
        const keys = await contextKeysOf(build);
        const context = new RouterContextProvider();
        context.set(keys.servicesContext, services);
        context.set(keys.settingsContext, settings);
        context.set(keys.requestContext, {
          id: String(req.id),
          nonce: res.locals.cspNonce as string,
          ip: clientAddress(req),
          log: req.log,
          document: !req.path.endsWith(".data"),
        });
        return context;
      },
    }),
  );

  const handleError: ErrorRequestHandler = (error, req, res, _next) => {
    // Client mistakes caught by Express itself (e.g. a malformed %-escape in the path) keep their 4xx.
    const declared = Number((error as { status?: unknown }).status);
    const status = declared >= 400 && declared < 500 ? declared : 500;
    if (status === 500) req.log.error({ err: error }, "unhandled error");
    else req.log.warn({ err: error }, "bad request");
    if (res.headersSent) return res.end();
    const page = renderErrorPage({ status, requestId: String(req.id), nonce: res.locals.cspNonce as string });
    res.status(status).type("html").send(page);
  };
  app.use(handleError);
  return app;
}
