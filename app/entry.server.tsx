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
import { requestContext } from "#shared/context.ts";
import { prerenderedHtmlContext, type PrerenderedPart } from "./lib/prerender.server";
import { PrerenderedHtml } from "./lib/prerendered";
import { BatchedStream } from "./lib/batched-stream.server";

// The server fills these context entries in for every request (see shared/context.ts).
export { requestContext, servicesContext, settingsContext } from "#shared/context.ts";

export const streamTimeout = 5_000;

/** The id of the hydration's module script, kept unrun until the first paint. */
const BOOT_ID = "avvio-script";
/** How long one task of the start may run before it lets the page's other work through (ms). */
const BOOT_SLICE_MS = 2;
// What React Router and React write: sought as bytes, so that the page (tens of KB, its
// prerendered parts encoded once) is neither decoded nor encoded again for every request.
const MODULE_PRELOAD = Buffer.from('<link rel="modulepreload"');
const MODULE_TYPE = Buffer.from(' type="module"');
const SCRIPT_OPEN = Buffer.from("<script");
const SCRIPT_CLOSE = Buffer.from("</script>");

/**
 * The script that starts the hydration at the first frame after the first paint. Each preload
 * asked for is work on the page's main thread (a request set up); two dozen at once made one task
 * of 30 ms on this machine, 120 ms on a phone 4 × slower, which blocked the page. So it asks for
 * them a few milliseconds at a time, each slice its own task, then starts the module script.
 */
function startAfterFirstPaint(modules: string[]): string {
  return (
    `requestAnimationFrame(function(){setTimeout(function(){` +
    `var modules=${JSON.stringify(modules).replaceAll("<", "\\u003c")},next=0;` +
    `(function ask(){var until=performance.now()+${BOOT_SLICE_MS};` +
    `for(;next<modules.length&&performance.now()<until;next++){` +
    `var link=document.createElement("link");link.rel="modulepreload";link.href=modules[next];document.head.appendChild(link)}` +
    `if(next<modules.length)return setTimeout(ask);` +
    `var boot=document.createElement("script");boot.type="module";boot.textContent=document.getElementById("${BOOT_ID}").textContent;` +
    `document.body.appendChild(boot)})()})})`
  );
}

/**
 * The scripts wait for the first paint (issue 30). Every page shows without JavaScript, and on a
 * slow link the scripts fetched with the page (React Router's modulepreload links and its module
 * script, ~140 KB) shared the link with the stylesheet the first paint waits for: on slow 4G the
 * first paint came after them. So the shell leaves the page with its stylesheet alone: the module
 * script is kept as text, and a small script runs it, and asks for the modules it needs in
 * parallel, at the first frame after the first paint. Without a match (a React Router that writes
 * them otherwise) the shell is left as it is: the page is slower to paint, never broken.
 */
export function deferScriptsPastFirstPaint(shell: Buffer): Buffer {
  const typeAt = shell.indexOf(MODULE_TYPE);
  const scriptAt = typeAt < 0 ? -1 : shell.lastIndexOf(SCRIPT_OPEN, typeAt);
  const codeAt = scriptAt < 0 ? -1 : shell.indexOf(">", scriptAt) + 1;
  const endAt = codeAt <= typeAt ? -1 : shell.indexOf(SCRIPT_CLOSE, codeAt);
  if (endAt < 0) return shell;
  const nonce = / nonce="[^"]*"/.exec(shell.toString("utf8", scriptAt, codeAt))?.[0] ?? "";
  // The preloads (all in the head, before the script) are cut out; their modules are asked for later.
  const kept: Buffer[] = [];
  const modules: string[] = [];
  let from = 0;
  for (let at = shell.indexOf(MODULE_PRELOAD); at >= 0 && at < scriptAt; at = shell.indexOf(MODULE_PRELOAD, from)) {
    const end = shell.indexOf("/>", at) + 2;
    const href = / href="([^"]+)"/.exec(shell.toString("utf8", at, end))?.[1];
    if (href) modules.push(href);
    kept.push(shell.subarray(from, at));
    from = end;
  }
  return Buffer.concat([
    ...kept,
    shell.subarray(from, scriptAt),
    Buffer.from(`<script${nonce} type="text/plain" id="${BOOT_ID}">`),
    shell.subarray(codeAt, endAt),
    Buffer.from(`</script><script${nonce}>${startAfterFirstPaint(modules)}</script>`),
    shell.subarray(endAt + SCRIPT_CLOSE.length),
  ]);
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
          deferScriptsPastFirstPaint,
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
