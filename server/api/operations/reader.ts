// reader: where the customer stands in a product, and the address that opens it (spec §7
// userproductsession status and read), for the customer's own products only.
import { z } from "zod";
import { READER_MESSAGES as R } from "../../../shared/reader-messages.ts";
import { ApiError } from "../errors.ts";
import { operation } from "../operation.ts";
import { idList, millis, toMillis } from "./fields.ts";

export const readerOperations = [
  operation({
    module: "reader",
    model: "userproductsession",
    name: "status",
    method: "POST",
    path: "userproductsession/status/",
    refusals: [404],
    summary: "Lo stato di lettura del prodotto (il primo id del corpo).",
    auth: "customer",
    body: idList,
    result: z.object({ status: z.string(), startedreading: millis, ebook_is_expired: z.boolean(), expires: millis }),
    async handle({ body, caller, services }) {
      const status = await services.library.reading.status({ userId: caller!.userId, productId: body[0]! });
      if (!status) throw new ApiError(404, R.noAccess);
      return {
        status: status.status,
        startedreading: toMillis(status.startedReading),
        ebook_is_expired: status.ebookIsExpired,
        expires: toMillis(status.expires),
      };
    },
  }),
  operation({
    module: "reader",
    model: "userproductsession",
    name: "read",
    method: "POST",
    path: "userproductsession/read/",
    refusals: [403, 404],
    summary: "L'indirizzo che apre il prodotto (il primo id del corpo) nel lettore.",
    auth: "customer",
    body: idList,
    result: z.object({ url: z.string() }),
    async handle({ body, caller, services, config }) {
      const opened = await services.library.reading.open({ userId: caller!.userId, productId: body[0]! });
      if (opened.ok) return { url: new URL(opened.url, config.publicOrigin).href };
      if (opened.reason === "expired") throw new ApiError(403, R.accessExpired);
      throw new ApiError(opened.reason === "not_found" ? 404 : 403, R.noAccess);
    },
  }),
];
