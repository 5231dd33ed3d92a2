// /forgot-password/reset/:token and /forgot-password/:token (the earlier address): a new password
// through the e-mailed link (spec §2, §4 "Password reset", §5, §8). The page checks the link
// first: a live one gets the form, a dead one 'Ooops. il tuo link è scaduto!'. Signed-in
// visitors are sent away. On success every session of the account ends, the portal's and the
// identity provider's, and the browser goes to /forgot-password/password-updated.
import type { Route } from "./+types/reset-password";
import { MINIMAL_CHROME } from "#app/lib/page-chrome.ts";
import { ResetPasswordView, type ResetPageText } from "#app/components/password-fields.tsx";
import { readReply } from "#app/lib/form-reply.ts";
import { requireSignedOut } from "#app/lib/auth.server.ts";
import { isResetLinkUsable, resetPageHeaders, submitResetLink } from "#app/lib/password-form.server.ts";
import { FORGOT_PASSWORD_PATH, PASSWORD_UPDATED_PATH } from "#shared/links.ts";

export const handle = MINIMAL_CHROME;

const TEXT: ResetPageText = {
  title: "Nuova password",
  intro: "Scegli la nuova password del tuo account.",
  submit: "Salva la nuova password",
  expiredText:
    "Il link per reimpostare la password vale un'ora e si può usare una sola volta. Richiedine un altro: ti arriverà per email.",
  expiredLink: { href: FORGOT_PASSWORD_PATH, label: "Richiedi un nuovo link" },
};

export const headers = resetPageHeaders;

export async function loader({ request, params, context }: Route.LoaderArgs) {
  await requireSignedOut(request, context);
  return { usable: await isResetLinkUsable(context, params.token, "reset") };
}

export async function action({ request, params, context }: Route.ActionArgs) {
  await requireSignedOut(request, context);
  return submitResetLink({ request, context }, params.token, "reset", PASSWORD_UPDATED_PATH);
}

export { clientAction, shouldRevalidate } from "#app/lib/form-route.ts";

export default function ResetPassword({ loaderData, actionData }: Route.ComponentProps) {
  return <ResetPasswordView usable={loaderData.usable} reply={readReply(actionData)} text={TEXT} />;
}
