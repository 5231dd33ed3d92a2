// Builds the context a loader or action receives, over real services and a test database.
import { RouterContextProvider } from "react-router";
import type { Config } from "#server/config.ts";
import { requestContext, servicesContext, settingsContext } from "#shared/context.ts";
import { publicSettingsOf } from "#server/config.ts";
import { createLogger } from "#server/logger.ts";
import type { Services } from "#server/services.ts";
import { testConfig } from "./config.ts";

export function createRouterContext(services: Services, config: Config = testConfig()) {
  const context = new RouterContextProvider();
  context.set(servicesContext, services);
  context.set(settingsContext, publicSettingsOf(config));
  context.set(requestContext, {
    id: "test-request",
    nonce: "test-nonce",
    ip: "203.0.113.7",
    log: createLogger("silent"),
    document: true,
  });
  return context;
}

/** Arguments for calling a route's loader directly. */
export function loaderArgs<P extends Record<string, string | undefined>>(services: Services, url: string, params: P = {} as P) {
  const absolute = new URL(url, "http://localhost:3000");
  return { request: new Request(absolute), url: absolute, params, context: createRouterContext(services), pattern: "" };
}

type RouteModule = { loader?: (args: never) => unknown; action?: (args: never) => unknown };

/** A route module's loader or action, called as React Router calls it, with a context over these services. */
export function callRoute(
  { services, config }: { services: Services; config: Config },
  route: RouteModule,
  kind: "loader" | "action",
  request: Request,
  params: Record<string, string>,
) {
  return route[kind]!({
    request,
    params,
    context: createRouterContext(services, config),
    url: new URL(request.url),
    pattern: "",
  } as never);
}
