// A part of a page that is the same for many customers (the footer, the dashboard's suggestions
// for a profession), rendered to HTML once on the server and reused: see prerender.server.tsx.
// Its components ship no JavaScript, and React does not render them again in the browser.
//
// A document carries the part's HTML once, in the page: the route's data then holds only its id,
// the server render takes the HTML from PrerenderedHtml (filled by entry.server), and hydration
// takes it from the page itself. The data of a client-side navigation holds the HTML.
import { createContext, useContext, useEffect, useState } from "react";
import { useNavigate } from "react-router";

export type Prerendered = {
  /** The id of the element the HTML goes into; it changes with the content. */
  id: string;
  /** Null in a document's data: the document holds the HTML. */
  html: string | null;
};

/** The document's prerendered parts, with their HTML, by id (server render only). */
export const PrerenderedHtml = createContext<ReadonlyMap<string, { html: string }>>(new Map());

/**
 * The HTML of a prerendered part, for `dangerouslySetInnerHTML`. On hydration it is read back
 * from the element the server filled, so the client renders exactly what is there; it is kept
 * while the id (the content) stays the same.
 */
function usePrerenderedHtml(part: Prerendered): string {
  const fromServer = useContext(PrerenderedHtml).get(part.id)?.html;
  const [hydrated] = useState(() => ({
    id: part.id,
    html: part.html ?? fromServer ?? (typeof document === "undefined" ? "" : (document.getElementById(part.id)?.innerHTML ?? "")),
  }));
  if (hydrated.id === part.id) return hydrated.html;
  return part.html ?? fromServer ?? "";
}

/** The element a prerendered part goes into (see usePrerenderedLinks for its links). */
export function PrerenderedElement({
  as: Element,
  part,
  className,
  size,
}: {
  as: "footer" | "ul" | "div";
  part: Prerendered;
  className?: string;
  /** A carousel track's data-size. */
  size?: string;
}) {
  const html = usePrerenderedHtml(part);
  return (
    <Element id={part.id} className={className} data-size={size} data-prerendered="" dangerouslySetInnerHTML={{ __html: html }} />
  );
}

/**
 * Links in prerendered HTML are plain anchors: once the page has hydrated, a click on one of the
 * portal's own is a client-side navigation, as with <Link>. One listener for the whole document
 * (the root layout's), rather than a handler on every part.
 */
export function usePrerenderedLinks() {
  const navigate = useNavigate();
  useEffect(() => {
    function followPortalLink(event: MouseEvent) {
      if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey)
        return;
      const anchor = (event.target as Element | null)?.closest?.("[data-prerendered] a");
      if (!(anchor instanceof HTMLAnchorElement) || anchor.target || anchor.origin !== window.location.origin) return;
      event.preventDefault();
      void navigate(anchor.pathname + anchor.search + anchor.hash);
    }
    document.addEventListener("click", followPortalLink);
    return () => document.removeEventListener("click", followPortalLink);
  }, [navigate]);
}
