// /media/copertine/<cover>.svg: a product cover, generated from the catalogue.
import { servicesContext } from "#shared/context.ts";
import type { Route } from "./+types/media.cover";

export async function loader({ params, request, context }: Route.LoaderArgs) {
  const match = /^([a-z0-9-]{1,80})\.svg$/.exec(params.file);
  if (!match) throw new Response("Not Found", { status: 404 });
  const cover = await context.get(servicesContext).catalog.cover(match[1]!);
  if (!cover) throw new Response("Not Found", { status: 404 });

  const headers = new Headers({
    "Content-Type": "image/svg+xml; charset=utf-8",
    // Covers change only with the catalogue; a day of caching, revalidated by ETag.
    "Cache-Control": "public, max-age=86400, stale-while-revalidate=604800",
    ETag: cover.etag,
  });
  if (request.headers.get("if-none-match") === headers.get("ETag")) return new Response(null, { status: 304, headers });
  return new Response(cover.svg, { headers });
}
