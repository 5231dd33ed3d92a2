// /mandatory-password/reset/:token — 'Reimposta la password' for accounts migrated from the old
// shop (spec §2, §4): the link comes by e-mail when such a customer tries to sign in (see
// accedi.tsx). Same page as reset-password.tsx; a dead link points to /login/ (signing in sends a
// new link), a signed-in visitor goes to /, and on success the browser goes where the server says:
// /login/, to sign in with the new password.
import type { Route } from "./+types/mandatory-password-reset";
import { requireSignedOut } from "#app/lib/auth.server.ts";
import { ResetPasswordView, type ResetPageText } from "#app/components/password-fields.tsx";
import { readReply } from "#app/lib/form-reply.ts";
import { isResetLinkUsable, resetPageHeaders, submitResetLink } from "#app/lib/password-form.server.ts";
import { HOME_PATH, LOGIN_PATH } from "#shared/links.ts";

const TEXT: ResetPageText = {
  title: "Reimposta la password",
  intro: "Il tuo account proviene dal nostro precedente negozio online: per accedere al nuovo portale scegli una nuova password.",
  submit: "Salva la nuova password",
  expiredText:
    "Il link per impostare la password vale un'ora e si può usare una sola volta. Accedi con la tua email: se serve, ti invieremo un nuovo link.",
  expiredLink: { href: LOGIN_PATH, label: "Accedi" },
};

export const headers = resetPageHeaders;

export async function loader({ request, params, context }: Route.LoaderArgs) {
  await requireSignedOut(request, context, HOME_PATH);
  return { usable: await isResetLinkUsable(context, params.token, "migrated") };
}

export async function action({ request, params, context }: Route.ActionArgs) {
  await requireSignedOut(request, context, HOME_PATH);
  return submitResetLink({ request, context }, params.token, "migrated", LOGIN_PATH);
}

export { clientAction, shouldRevalidate } from "#app/lib/form-route.ts";

export default function MandatoryPasswordReset({ loaderData, actionData }: Route.ComponentProps) {
  return <ResetPasswordView usable={loaderData.usable} reply={readReply(actionData)} text={TEXT} />;
}
