// /profile/confirm-email/:token — the link mailed to a new address asked for on /profile/. The
// page checks the link, then asks for a click on 'Conferma' (a POST: a mail scanner that opens
// the link changes nothing). The confirmation needs no session: the link proves the mailbox,
// and the current password was proven when the change was asked for. Once confirmed the page
// says so; a dead link gets 'Ooops. il tuo link è scaduto!'.
import { Form } from "react-router";
import { servicesContext } from "#shared/context.ts";
import type { Route } from "./+types/profile.confirm-email";
import { AlertBox } from "#app/components/form-fields.tsx";
import { readReply } from "#app/lib/form-reply.ts";
import { refuse } from "#app/lib/form-reply.server.ts";
import { MESSAGES } from "#shared/messages.ts";
import { PROFILE_PATH } from "#shared/links.ts";

export function headers() {
  return { "Cache-Control": "no-store", "X-Robots-Tag": "noindex" };
}

export async function loader({ params, context }: Route.LoaderArgs) {
  return { usable: await context.get(servicesContext).emailChanges.isUsable(params.token) };
}

export async function action({ params, context }: Route.ActionArgs) {
  const result = await context.get(servicesContext).emailChanges.confirm(params.token);
  if (result.ok) return { confirmed: true as const };
  // A dead link: the page shows what it shows for one, whatever the loader said before.
  if (result.reason === "invalid") return refuse({ reason: "invalid" }, 410);
  // Telling that the address is taken is safe here: only its mailbox received this link.
  return refuse({ alert: { title: MESSAGES.errorTitle, text: MESSAGES.emailInUse }, reason: "taken" }, 409);
}

export { clientAction, shouldRevalidate } from "#app/lib/form-route.ts";

export default function ConfirmEmail({ loaderData, actionData }: Route.ComponentProps) {
  const confirmed = actionData !== undefined && "confirmed" in actionData;
  const reply = readReply(confirmed ? undefined : actionData);
  const outcome = confirmed ? "changed" : (reply.reason ?? (loaderData.usable ? null : "invalid"));
  return (
    <section className="mx-auto max-w-lg px-4 py-12">
      <title>{`${outcome === "invalid" ? "Link scaduto" : MESSAGES.emailConfirmTitle} · Novalex Editore`}</title>
      <div className="card p-8">
        {outcome === null && (
          <>
            <h1 className="font-serif text-3xl font-bold text-brand">{MESSAGES.emailConfirmTitle}</h1>
            <p className="mt-2 text-muted">{MESSAGES.emailConfirmText}</p>
            <Form method="post" className="mt-6">
              <button type="submit" className="button-primary w-full py-3 text-base">
                Conferma
              </button>
            </Form>
          </>
        )}
        {outcome === "changed" && (
          <>
            <h1 className="font-serif text-3xl font-bold text-brand">{MESSAGES.emailConfirmed}</h1>
            <p role="status" className="mt-4">
              {MESSAGES.emailConfirmedText}
            </p>
            <ToAccount />
          </>
        )}
        {outcome === "taken" && (
          <>
            <h1 className="font-serif text-3xl font-bold text-brand">{MESSAGES.emailConfirmTitle}</h1>
            <AlertBox alert={reply.alert} />
            <ToAccount />
          </>
        )}
        {outcome === "invalid" && (
          <>
            <h1 className="font-serif text-3xl font-bold text-brand">{MESSAGES.linkExpired}</h1>
            <p className="mt-4">{MESSAGES.emailLinkExpiredText}</p>
            <ToAccount />
          </>
        )}
      </div>
    </section>
  );
}

function ToAccount() {
  return (
    <p className="mt-6">
      <a href={PROFILE_PATH} className="button-primary">
        Vai al tuo account
      </a>
    </p>
  );
}
