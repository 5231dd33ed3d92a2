// Each request counted and timed by the route it matched, never by its raw address: addresses
// carry order ids, tokens and codes, which would make a series per customer (and put them in
// Prometheus). A portal page is named by its React Router pattern (`/checkout/:order`), an API
// operation by its own (the router sets it), the rest by the part of the site it belongs to.
import { timingSafeEqual } from "node:crypto";
import type { RequestHandler } from "express";
import { matchRoutes, type RouteObject, type ServerBuild } from "react-router";
import type { Metrics } from "#server/metrics.ts";

/** A request's route label, set by the handler that knows it better (the API router). */
export const ROUTE_LABEL = "metricsRoute";

/** The build's routes as the nested tree matchRoutes walks. */
function routeTree(build: ServerBuild): RouteObject[] {
  const children = (parentId: string | undefined): RouteObject[] =>
    Object.values(build.routes).flatMap((route): RouteObject[] => {
      if (!route || route.parentId !== parentId) return [];
      const { id, path, caseSensitive } = route;
      return route.index ? [{ id, path, caseSensitive, index: true }] : [{ id, path, caseSensitive, children: children(id) }];
    });
  return children(undefined);
}

/** "/checkout/:order/": the pattern of the page a path shows, as React Router matched it. */
function pagePattern(tree: RouteObject[], pathname: string): string {
  const matches = matchRoutes(tree, pathname) ?? [];
  const parts = matches.map((match) => match.route.path).filter((part): part is string => Boolean(part));
  return `/${parts.join("/")}`.replace(/\/+/g, "/");
}

/** The part of the site a request outside the portal's pages belongs to. */
function siteLabel(path: string): string | null {
  if (path.startsWith("/assets/")) return "/assets/*";
  if (path.startsWith("/oidc/") || path === "/oidc") return "/oidc/*";
  if (path.startsWith("/api/") || path === "/api") return "/api/*";
  if (path === "/healthz" || path === "/readyz" || path === "/metrics") return path;
  return null;
}

/**
 * How many paths' patterns each build remembers. matchRoutes flattens and ranks the whole route
 * tree at every call (0.3 ms on this 2-core machine, a sixth of what a dashboard's answer takes:
 * the bench's metrics part found it), so the pattern of a path asked for again is looked up
 * instead (1 µs); paths with ids in them (`/checkout/<order>/`) come and go, the oldest forgotten
 * first.
 */
const REMEMBERED_PATHS = 1_000;
/** … each up to this long (the portal's own paths are far shorter): at most some 200 KB. */
const REMEMBERED_PATH_LENGTH = 200;

/** Each build's route tree, made once (in development Vite hands a new build after a change), with the patterns of its paths. */
const builds = new WeakMap<ServerBuild, { tree: RouteObject[]; patterns: Map<string, string> }>();
function patternOf(build: ServerBuild, pathname: string): string {
  let known = builds.get(build);
  if (!known) builds.set(build, (known = { tree: routeTree(build), patterns: new Map() }));
  let pattern = known.patterns.get(pathname);
  if (pattern === undefined) {
    pattern = pagePattern(known.tree, pathname);
    if (pathname.length > REMEMBERED_PATH_LENGTH) return pattern; // a made-up path is not kept
    if (known.patterns.size >= REMEMBERED_PATHS) known.patterns.delete(known.patterns.keys().next().value!);
    known.patterns.set(pathname, pattern);
  }
  return pattern;
}

/** Counts and times every answer (`portal_http_requests_total`, `portal_http_request_duration_seconds`). */
export function requestMetrics(metrics: Metrics, build: ServerBuild | (() => Promise<ServerBuild>)): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.once("finish", () => {
      const route = (res.locals[ROUTE_LABEL] as string | undefined) ?? siteLabel(req.path) ?? "/(pages)";
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      metrics.http.requests.inc({ route, method: req.method, status: String(res.statusCode) });
      metrics.http.duration.observe({ route, method: req.method }, seconds);
    });
    if (res.locals[ROUTE_LABEL] !== undefined || siteLabel(req.path)) return next();
    // A portal page (or its data, `.data`): named by the route React Router matches.
    const label = (loaded: ServerBuild) => (res.locals[ROUTE_LABEL] = patternOf(loaded, req.path.replace(/\.data$/, "")));
    if (typeof build !== "function") {
      label(build);
      return next();
    }
    build()
      .then(label, () => undefined)
      .finally(next);
  };
}

/** GET /metrics for the holder of the token (a bearer token, compared in constant time); 404 for anyone else. */
export function metricsEndpoint(metrics: Metrics, token: string): RequestHandler {
  const expected = Buffer.from(`Bearer ${token}`);
  return async (req, res, next) => {
    const given = Buffer.from(req.get("authorization") ?? "");
    // A wrong token gets the same answer as no endpoint: nothing tells a prober it is there.
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return next();
    try {
      const { contentType, body } = await metrics.exposition();
      res.set("Cache-Control", "no-store").type(contentType).send(body);
    } catch (error) {
      next(error);
    }
  };
}
