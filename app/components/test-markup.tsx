// For component unit tests: the server-rendered markup of an element inside a router (links need
// one), and its text with the tags stripped.
import type { ReactElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { MemoryRouter } from "react-router";

export function renderMarkup(element: ReactElement, url = "/"): { html: string; text: string } {
  const html = renderToStaticMarkup(<MemoryRouter initialEntries={[url]}>{element}</MemoryRouter>);
  const text = html
    .replace(/<[^>]+>/g, " ")
    .replace(/&#x27;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, "&")
    .replace(/\s+/g, " ")
    .trim();
  return { html, text };
}
