// /leggi/:productId/apri — where 'Inizia a leggere' and 'Continua a leggere' post (spec §4, §7
// 'a read call returning the open address'). The reading session starts or resumes and the
// browser goes to the reader: the external one when configured, otherwise /leggi/<id>/. A
// customer without valid access goes back to the dashboard with an error toast.
import { redirect } from "react-router";
import type { Route } from "./+types/reader.open";
import { servicesContext } from "#shared/context.ts";
import { customerOf } from "#app/lib/customer.server.ts";
import { READER_MESSAGES } from "#shared/reader-messages.ts";
import { redirectWithToast } from "#app/lib/toast.server.ts";
import { DASHBOARD_PATH, readerPath } from "#shared/links.ts";

/** Opening is a state change, so a GET (a bookmark, a reload) only shows the reader. */
export function loader({ params }: Route.LoaderArgs) {
  return redirect(readerPath(params.productId));
}

export async function action({ params, context }: Route.ActionArgs) {
  const { user } = customerOf(context);
  const result = await context.get(servicesContext).library.reading.open({ userId: user.id, productId: params.productId });
  if (result.ok) return redirect(result.url);
  if (result.reason === "not_found") throw new Response("Not Found", { status: 404 });
  return redirectWithToast(
    context,
    DASHBOARD_PATH,
    result.reason === "expired"
      ? { type: "error", title: READER_MESSAGES.accessExpired, message: READER_MESSAGES.accessExpiredText }
      : { type: "error", title: READER_MESSAGES.noAccess, message: READER_MESSAGES.noAccessText },
  );
}

export { clientAction, shouldRevalidate } from "#app/lib/form-route.ts";

/**
 * Never rendered (the loader always redirects). It makes this a page route rather than a
 * resource route, so a post for an unknown product gets the portal's 404 page, not bare text.
 */
export default function ReaderOpen() {
  return null;
}
