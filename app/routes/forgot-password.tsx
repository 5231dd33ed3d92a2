// /forgot-password/ — request a password link (spec §2, §5, §8): an e-mail field, 'Invia', and
// once a link has been sent 'Rinvia' to send another to the same address. The account's owner
// gets a link to /forgot-password/reset/<token> (valid an hour, usable once) and the page comes
// back with the toast 'Richiesta inviata, controlla la tua casella email'. An address without an
// account gets the alert 'Email non trovata', as the spec asks; requests are limited per client
// address and per target address, and a refused request sends nothing.
import { Form } from "react-router";
import { MINIMAL_CHROME } from "#app/lib/page-chrome.ts";
import { z } from "zod";
import { requestContext, servicesContext } from "#shared/context.ts";
import type { Route } from "./+types/forgot-password";
import { getUser } from "#app/lib/auth.server.ts";
import { MESSAGES } from "#shared/messages.ts";
import { accountFields } from "#shared/account-rules.server.ts";
import { redirectWithToast } from "#app/lib/toast.server.ts";
import { AlertBox, TextField } from "#app/components/form-fields.tsx";
import { readReply } from "#app/lib/form-reply.ts";
import { parseForm, refuse } from "#app/lib/form-reply.server.ts";
import { FORGOT_PASSWORD_PATH, LOGIN_PATH, REGISTER_PATH } from "#shared/links.ts";
import { PageHeading } from "#app/components/page-heading.tsx";

export const handle = MINIMAL_CHROME;

const requestSchema = z.object({
  email: accountFields.email,
});

export function headers() {
  return { "Cache-Control": "no-store" };
}

export async function loader({ request, context }: Route.LoaderArgs) {
  // After a request the page offers 'Rinvia' to the address the link went to (kept in a cookie,
  // never in the URL). Signed-in customers reach this page from 'Cambio password' ("forgot your
  // current one?"): they get the form with their own address.
  const sentTo = await context.get(servicesContext).passwordLinks.sentTo(request);
  const user = sentTo ? null : await getUser(request, context);
  return { email: sentTo ?? user?.email ?? "", sent: sentTo !== null };
}

export async function action({ request, context }: Route.ActionArgs) {
  const { passwordLinks } = context.get(servicesContext);
  const { ip } = context.get(requestContext);
  const parsed = await parseForm(request, requestSchema);
  if (!parsed.ok) return refuse(parsed.reply);
  const { email } = parsed.data;
  const { values } = parsed;
  const result = await passwordLinks.requestReset({ email, ip });
  if (result.ok) {
    return redirectWithToast(
      context,
      FORGOT_PASSWORD_PATH,
      { type: "success", title: MESSAGES.resetRequestSent },
      { headers: { "Set-Cookie": await passwordLinks.rememberSentTo(email) } },
    );
  }
  switch (result.reason) {
    case "rate_limited":
      return refuse(
        {
          alert: {
            title: MESSAGES.tooManyRequests,
            text: `${MESSAGES.tooManyResetRequestsText} ${MESSAGES.retryAfter(result.retryAfterSeconds)}`,
          },
          values,
        },
        429,
      );
    case "unknown_email":
      return refuse(
        {
          alert: {
            title: MESSAGES.emailNotFound,
            text: MESSAGES.emailNotFoundText,
            link: { href: REGISTER_PATH, label: "Crea un account" },
          },
          values,
        },
        404,
      );
    case "mail_failed":
      return refuse({ alert: { title: MESSAGES.communicationError, text: MESSAGES.communicationErrorText }, values }, 503);
  }
}

export { clientAction, shouldRevalidate } from "#app/lib/form-route.ts";

export default function ForgotPassword({ loaderData, actionData }: Route.ComponentProps) {
  const reply = readReply(actionData);
  return (
    <section className="mx-auto max-w-lg px-4 py-12">
      <div className="card p-8">
        <PageHeading title="Password dimenticata">Password dimenticata?</PageHeading>
        <p className="mt-2 text-muted">Scrivi l'email del tuo account: ti invieremo un link per scegliere una nuova password.</p>

        <AlertBox alert={reply.alert} />

        {/* Keyed by the address the page came back with, so that after a send the field shows it. */}
        <Form key={loaderData.email} method="post" noValidate className="mt-6 space-y-5">
          <TextField label="Email" type="email" autoComplete="email" {...reply.field("email", loaderData.email)} />
          <button type="submit" className="button-primary w-full py-3 text-base">
            Invia
          </button>
        </Form>

        {loaderData.sent && (
          <div className="mt-6 rounded-md border border-line bg-paper p-4 text-sm">
            <p>
              Il link vale un'ora e si può usare una sola volta. Non trovi l'email? Controlla anche la posta indesiderata, oppure
              fatti inviare un nuovo link.
            </p>
            <Form method="post" className="mt-3">
              <input type="hidden" name="email" value={loaderData.email} />
              <button type="submit" className="button-outline">
                Rinvia
              </button>
            </Form>
          </div>
        )}

        <p className="mt-6 text-sm">
          Ti sei ricordato la password?{" "}
          <a href={LOGIN_PATH} className="link">
            Accedi
          </a>
        </p>
      </div>
    </section>
  );
}
