// reader: where the customer stands in a product, and the address that opens it (spec §7
// userproductsession status and read), for the customer's own products only. A product the
// caller never had and one that is not read here (unknown, a course) get the same 404 from both
// calls, so the API says nothing about products the caller has no access to; an access that
// ended is the caller's own to know (status: ebook_is_expired; read: 403 'Accesso scaduto').
import { z } from "zod";
import { READER_MESSAGES as R } from "#shared/reader-messages.ts";
import { API_MESSAGES, ApiError } from "#server/api/errors.ts";
import { operationsOf } from "#server/api/operation.ts";
import { millis, oneId, toMillis } from "./fields.ts";

const { customerOperation } = operationsOf("reader");

const notFound = () => new ApiError(404, API_MESSAGES.notFound);

export const readerOperations = [
  customerOperation({
    model: "userproductsession",
    name: "status",
    method: "POST",
    path: "userproductsession/status/",
    refusals: [404],
    summary: "Lo stato di lettura del prodotto (il corpo: un elenco con il suo solo id).",
    body: oneId,
    result: z.object({ status: z.string(), startedreading: millis, ebook_is_expired: z.boolean(), expires: millis }),
    async handle({ body, caller, services }) {
      const status = await services.library.reading.status({ userId: caller.userId, productId: body[0]! });
      if (!status) throw notFound();
      return {
        status: status.status,
        startedreading: toMillis(status.startedReading),
        ebook_is_expired: status.ebookIsExpired,
        expires: toMillis(status.expires),
      };
    },
  }),
  customerOperation({
    model: "userproductsession",
    name: "read",
    method: "POST",
    path: "userproductsession/read/",
    refusals: [403, 404],
    summary: "L'indirizzo che apre il prodotto nel lettore (il corpo: un elenco con il suo solo id).",
    body: oneId,
    result: z.object({ url: z.string() }),
    async handle({ body, caller, services, config }) {
      const opened = await services.library.reading.open({ userId: caller.userId, productId: body[0]! });
      if (opened.ok) return { url: new URL(opened.url, config.publicOrigin).href };
      if (opened.reason === "expired") throw new ApiError(403, R.accessExpired);
      throw notFound();
    },
  }),
];
