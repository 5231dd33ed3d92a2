import { createReadableStreamFromReadable } from "@react-router/node";
import { isbot } from "isbot";
import { renderToPipeableStream, type RenderToPipeableStreamOptions } from "react-dom/server";
import {
  isRouteErrorResponse,
  ServerRouter,
  type EntryContext,
  type HandleErrorFunction,
  type RouterContextProvider,
} from "react-router";
import { preloadLazyParts } from "./components/lazy-parts";
import { requestContext } from "../shared/context.ts";
import { prerenderedHtmlContext, type PrerenderedPart } from "./lib/prerender.server";
import { PrerenderedHtml } from "./lib/prerendered";
import { BatchedStream } from "./lib/batched-stream.server";

// The server fills these context entries in for every request (see shared/context.ts).
export { requestContext, servicesContext, settingsContext } from "../shared/context.ts";

export const streamTimeout = 5_000;

/**
 * The scripts' modulepreload links (React Router's <Scripts>, hoisted into the head by React) at a
 * low fetch priority. The page shows without JavaScript; at their default (high) priority a slow
 * link gives the scripts its bandwidth and connections before the first paint, which waits for
 * the stylesheet only (issue 30: on slow 4G the first paint came after ~140 KB of JavaScript).
 * They are still fetched at once, in parallel, and run as soon as they arrive.
 */
export function lowerScriptPriority(shell: string): string {
  return shell.replaceAll('<link rel="modulepreload"', '<link rel="modulepreload" fetchpriority="low"');
}

const NO_PRERENDERED_PARTS: ReadonlyMap<string, PrerenderedPart> = new Map();

// Before the first page is served (see components/lazy-parts.tsx).
await preloadLazyParts();

export default function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  routerContext: EntryContext,
  loadContext: RouterContextProvider,
) {
  if (request.method.toUpperCase() === "HEAD") {
    return new Response(null, { status: responseStatusCode, headers: responseHeaders });
  }
  const { nonce, log } = loadContext.get(requestContext);
  const parts = loadContext.get(prerenderedHtmlContext) ?? NO_PRERENDERED_PARTS;

  return new Promise<Response>((resolve, reject) => {
    let shellRendered = false;
    const userAgent = request.headers.get("user-agent");
    // Crawlers get the complete document at once.
    const readyOption: keyof RenderToPipeableStreamOptions =
      (userAgent && isbot(userAgent)) || routerContext.isSpaMode ? "onAllReady" : "onShellReady";
    let timeoutId: ReturnType<typeof setTimeout> | undefined = setTimeout(() => abort(), streamTimeout + 1000);

    const page = (
      // The HTML of the page's prerendered parts: see lib/prerendered.tsx.
      <PrerenderedHtml.Provider value={parts}>
        <ServerRouter context={routerContext} url={request.url} nonce={nonce} />
      </PrerenderedHtml.Provider>
    );
    const { pipe, abort } = renderToPipeableStream(page, {
      nonce,
      [readyOption]() {
        shellRendered = true;
        const body = new BatchedStream(
          () => {
            clearTimeout(timeoutId);
            timeoutId = undefined;
          },
          parts.values(),
          lowerScriptPriority,
        );
        responseHeaders.set("Content-Type", "text/html; charset=utf-8");
        pipe(body);
        resolve(new Response(createReadableStreamFromReadable(body), { headers: responseHeaders, status: responseStatusCode }));
      },
      onShellError(error: unknown) {
        reject(error);
      },
      onError(error: unknown) {
        responseStatusCode = 500;
        if (shellRendered) log.error({ err: error }, "error while streaming a page");
      },
    });
  });
}

/**
 * Whether React Router refused this request as cross-site: it runs no action whose Origin is not
 * the request's own, and reports the refusal here as an error.
 */
function isRefusedCrossSiteAction(request: Request): boolean {
  const origin = request.headers.get("origin");
  if (request.method === "GET" || request.method === "HEAD" || !origin) return false;
  try {
    return new URL(origin).origin !== new URL(request.url).origin;
  } catch {
    return true; // not a URL (e.g. "null"): refused too
  }
}

/**
 * Errors of loaders, actions and rendering, logged with the request id. Aborted requests are not
 * errors; a refused cross-site request, and any answer of the router's that is the client's fault
 * (a POST to a page that has no action: 405), are warnings, without a stack.
 */
export const handleError: HandleErrorFunction = (error, { request, context }) => {
  if (request.signal.aborted) return;
  const { log } = context.get(requestContext);
  if (isRefusedCrossSiteAction(request)) log.warn({ origin: request.headers.get("origin") }, "cross-site action refused");
  else if (isRouteErrorResponse(error) && error.status < 500)
    log.warn({ status: error.status, method: request.method }, "request refused by the router");
  else log.error({ err: error }, "error in a route");
};
