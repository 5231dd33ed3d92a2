// /profile/data/ — 'Scarica i tuoi dati': a POST answered with a JSON file of everything the portal
// holds about the customer (server/accounts/data-export.ts), downloaded by the browser where the
// form was (Preferenze). Throttled: too many downloads go back there with a toast. A GET changes
// nothing and goes to Preferenze.
import { redirect } from "react-router";
import { requestContext, servicesContext } from "#shared/context.ts";
import { LOGIN_PATH, PREFERENCES_PATH } from "#shared/links.ts";
import { MESSAGES } from "#shared/messages.ts";
import type { Route } from "./+types/profile.data";
import { customerOf } from "#app/lib/customer.server.ts";
import { redirectWithToast } from "#app/lib/toast.server.ts";

export function loader() {
  return redirect(PREFERENCES_PATH);
}

export async function action({ context }: Route.ActionArgs) {
  const { user } = customerOf(context);
  const { ip } = context.get(requestContext);
  const result = await context.get(servicesContext).dataExports.download(user.id, ip);
  if (result.ok) {
    return new Response(result.json, {
      headers: {
        "Content-Type": "application/json; charset=utf-8",
        "Content-Disposition": `attachment; filename="${result.fileName}"`,
        "Cache-Control": "no-store",
      },
    });
  }
  if (result.reason === "not_found") throw redirect(LOGIN_PATH);
  return redirectWithToast(context, PREFERENCES_PATH, {
    type: "error",
    title: MESSAGES.dataExportTooMany,
    message: MESSAGES.retryAfter(result.retryAfterSeconds),
  });
}
