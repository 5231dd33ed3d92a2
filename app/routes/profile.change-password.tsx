// /profile/change-password/ — 'Cambio password' / 'Modifica Password' (spec §2, §5, §8): the
// current password, the new one and its confirmation, and a link to /forgot-password/. A wrong
// current password counts as a failed sign-in of the account, and while the sign-in is locked
// the password is not even checked, so this page cannot be used to guess it. On success only
// this browser stays signed in (the portal's other sessions and the identity provider's other
// sessions and grants end), and the page comes back with the toast 'Password aggiornata'.
import { Form, useLocation } from "react-router";
import { z } from "zod";
import { requestContext, servicesContext } from "#shared/context.ts";
import type { Route } from "./+types/profile.change-password";
import { customerOf, signInFirst } from "#app/lib/customer.server.ts";
import { MESSAGES } from "#shared/messages.ts";
import { PASSWORD_CHANGE_REFUSALS, type PasswordChangeRefusal } from "#shared/profile-messages.ts";
import { withRetryAfter, type Refusal } from "#shared/refusals.ts";
import { redirectWithToast } from "#app/lib/toast.server.ts";
import { AlertBox } from "#app/components/form-fields.tsx";
import { NewPasswordFields, PasswordInput } from "#app/components/password-fields.tsx";
import { readReply } from "#app/lib/form-reply.ts";
import { parseForm, refuse, secret } from "#app/lib/form-reply.server.ts";
import { newPasswordSchema } from "#app/lib/password-form.server.ts";
import { CHANGE_PASSWORD_PATH, FORGOT_PASSWORD_PATH, PROFILE_PATH } from "#shared/links.ts";
import { PageHeading } from "#app/components/page-heading.tsx";
import { BackLink } from "#app/components/back-link.tsx";

const changeSchema = () =>
  newPasswordSchema({
    currentPassword: secret(z.string().min(1, MESSAGES.currentPasswordRequired).max(200, MESSAGES.currentPasswordWrong)),
  });

export const loader = signInFirst;

export async function action({ request, context }: Route.ActionArgs) {
  const { user, sessionId } = customerOf(context);
  const { ip } = context.get(requestContext);
  const checked = await parseForm(request, changeSchema());
  if (!checked.ok) return refuse(checked.reply);
  const { currentPassword, password } = checked.data;
  // The reason tells the page whether the current password is the field to mark; the message
  // and the status are the table's, the API's too.
  const failed = (reason: PasswordChangeRefusal, { message, status }: Refusal) =>
    refuse({ alert: { title: MESSAGES.passwordChangeFailed, text: message }, reason, values: checked.values }, status);

  const result = await context
    .get(servicesContext)
    .passwordChanges.change({ user, keep: { sessionId }, currentPassword, newPassword: password, ip });
  if (!result.ok) {
    const refusal = PASSWORD_CHANGE_REFUSALS[result.reason];
    return failed(result.reason, result.reason === "locked" ? withRetryAfter(refusal, result.retryAfterSeconds) : refusal);
  }
  return redirectWithToast(context, CHANGE_PASSWORD_PATH, { type: "success", title: MESSAGES.passwordUpdated });
}

export { clientAction, shouldRevalidate } from "#app/lib/form-route.ts";

export default function ChangePassword({ actionData }: Route.ComponentProps) {
  const reply = readReply(actionData);
  const currentPasswordRejected = reply.reason === "wrong_password" || reply.reason === "locked";
  // A new page after each change: the fields start empty again (with JavaScript too).
  const { key } = useLocation();
  return (
    <section className="mx-auto max-w-3xl px-4 py-10">
      <BackLink to={PROFILE_PATH}>Il mio account</BackLink>
      <PageHeading title="Cambio password" className="mt-4" />

      <AlertBox alert={reply.alert} id="change-password-alert" />

      <Form key={key} method="post" noValidate className="card mt-6 max-w-xl space-y-5 p-6 md:p-8">
        <h2 className="font-serif text-xl font-bold text-brand">Modifica Password</h2>
        <PasswordInput
          name="currentPassword"
          label="Password attuale"
          autoComplete="current-password"
          error={reply.error("currentPassword")}
          invalid={currentPasswordRejected}
          describedBy={currentPasswordRejected ? ["change-password-alert"] : []}
        />
        <NewPasswordFields reply={reply} />
        <div className="flex flex-wrap items-center gap-4">
          <button type="submit" className="button-primary px-6 py-3 text-base">
            Salva
          </button>
          <a href={FORGOT_PASSWORD_PATH} className="link text-sm">
            Password dimenticata?
          </a>
        </div>
      </Form>
    </section>
  );
}
