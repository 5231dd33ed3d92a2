// For component unit tests: the server-rendered markup of an element inside a data router (links
// need a router; a page's heading reads the route's action data), and its text with the tags
// stripped.
import type { ReactElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { createRoutesStub } from "react-router";

export function renderMarkup(element: ReactElement, url = "/"): { html: string; text: string } {
  const Stub = createRoutesStub([{ path: "*", Component: () => element }]);
  const html = renderToStaticMarkup(<Stub initialEntries={[url]} />);
  const text = html
    .replace(/<[^>]+>/g, " ")
    .replace(/&#x27;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, "&")
    .replace(/\s+/g, " ")
    .trim();
  return { html, text };
}
