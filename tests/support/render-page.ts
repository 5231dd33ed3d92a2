// A route's page rendered on the server from its loader data, as a document request renders it,
// and its text as a reader gets it: for tests that assert what the customer sees.
import { createElement, type ComponentType } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { createStaticHandler, createStaticRouter, StaticRouterProvider, useLoaderData } from "react-router";

/** The page's server-rendered markup for loader data, as a document request renders it. */
export async function render(page: ComponentType<never>, data: unknown, url: string): Promise<string> {
  const Page = page as ComponentType<{ loaderData: unknown }>;
  const handler = createStaticHandler([
    { id: "page", path: "*", loader: () => data, Component: () => createElement(Page, { loaderData: useLoaderData() }) },
  ]);
  const context = await handler.query(new Request(new URL(url, "http://localhost:3000")));
  if (context instanceof Response) throw new Error("render: the stub route answered a Response");
  const router = createStaticRouter(handler.dataRoutes, context);
  return renderToStaticMarkup(createElement(StaticRouterProvider, { router, context, hydrate: false }));
}

/** The page's text as read: tags and drawings (the card brand marks are aria-hidden) left out, spaces collapsed. */
export const decode = (html: string) =>
  html
    .replace(/<svg[\s\S]*?<\/svg>/g, " ")
    // A line-break opportunity, not a space (an e-mail address keeps it: components/email-address).
    .replace(/<wbr\/?>/g, "")
    .replace(/<[^>]+>/g, " ")
    .replace(/&#x27;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, "&")
    // Not \s: the non-breaking space of a euro amount stays.
    .replace(/[ \t\r\n]+/g, " ");
