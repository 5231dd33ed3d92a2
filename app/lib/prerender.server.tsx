// Renders a part that is the same for many customers once, and reuses its HTML while its source
// data is the same object (the services' caches hand out one object until the content changes)
// and, for a part that depends on the time (the 'Novità' badge), while it is recent enough.
import { createHash } from "node:crypto";
import type { ReactElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { createContext, MemoryRouter, type RouterContextProvider } from "react-router";
import { requestContext } from "#shared/context.ts";
import type { Prerendered } from "./prerendered";

/** How long a rendering may be reused for a later `now` (the services cache content as long). */
const RENDERING_MAX_AGE_MS = 60_000;

/** A part's HTML, and its bytes, encoded once for every document that holds it. */
export type PrerenderedPart = { html: string; bytes: Buffer };

const renderings = new WeakMap<object, PrerenderedPart & { id: string; at: number }>();

/** The parts a document holds, by id: entry.server hands them to the render. */
export const prerenderedHtmlContext = createContext<Map<string, PrerenderedPart> | null>(null);

/**
 * The part `name` rendered from `source` (links inside render as plain anchors), at `now` when
 * what it shows depends on the time. In a document's data the HTML is left out and given to the
 * server render instead: the page carries it once.
 */
export function prerender(
  context: Readonly<RouterContextProvider>,
  { name, source, now, render }: { name: string; source: object; now?: Date; render: () => ReactElement },
): Prerendered {
  let rendering = renderings.get(source);
  if (!rendering || (now && Math.abs(now.getTime() - rendering.at) > RENDERING_MAX_AGE_MS)) {
    const html = renderToStaticMarkup(<MemoryRouter>{render()}</MemoryRouter>);
    const id = `${name}-${createHash("sha256").update(html).digest("base64url").slice(0, 12)}`;
    rendering = { html, bytes: Buffer.from(html), id, at: now?.getTime() ?? 0 };
    renderings.set(source, rendering);
  }
  if (!context.get(requestContext).document) return { id: rendering.id, html: rendering.html };
  let documentParts = context.get(prerenderedHtmlContext);
  if (!documentParts) context.set(prerenderedHtmlContext, (documentParts = new Map()));
  documentParts.set(rendering.id, rendering);
  return { id: rendering.id, html: null };
}
