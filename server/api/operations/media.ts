// media: a product's cover by its key (spec §7 media resource download: the client only builds
// the address, and uses it as an image's source).
import { z } from "zod";
import { coverPath } from "#shared/links.ts";
import { operationsOf } from "#server/api/operation.ts";

const { publicOperation } = operationsOf("media");

export const mediaOperations = [
  publicOperation({
    model: "resource",
    name: "download",
    method: "GET",
    path: "resource/download/:resource/",
    summary: "La copertina con questa chiave (un rinvio all'immagine).",
    params: z.object({ resource: z.string().regex(/^[a-z0-9-]{1,80}$/, "Risorsa non trovata") }),
    redirect: true,
    result: z.string(),
    handle: async ({ params }) => coverPath(params.resource),
  }),
];
