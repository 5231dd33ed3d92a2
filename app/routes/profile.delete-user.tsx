// /profile/delete-user/ — account deletion (spec §2, §4 "Delete account"): a warning, 'Annulla'
// and 'Conferma'. Conferma erases the personal data, ends every session (portal and identity
// provider) and goes to the confirmation, which a signed-out visitor sees (account-deleted.tsx):
// the modal 'Cancellazione utente confermata', whose 'Home Page' button goes to /.
import { Form, Link, redirect, useNavigation } from "react-router";
import { ACCOUNT_DELETED_DIALOG_ID, ACCOUNT_DELETED_PATH, PREFERENCES_PATH } from "#shared/links.ts";
import { requestContext, servicesContext } from "#shared/context.ts";
import type { Route } from "./+types/profile.delete-user";
import { AlertBox } from "#app/components/form-fields.tsx";
import { customerOf, signInFirst } from "#app/lib/customer.server.ts";
import { readReply } from "#app/lib/form-reply.ts";
import { refuse } from "#app/lib/form-reply.server.ts";
import { MESSAGES } from "#shared/messages.ts";
import { PageHeading } from "#app/components/page-heading.tsx";
import { BackLink } from "#app/components/back-link.tsx";

export const loader = signInFirst;

export async function action({ context }: Route.ActionArgs) {
  const { user } = customerOf(context);
  const services = context.get(servicesContext);
  const { ip, log } = context.get(requestContext);
  const result = await services.profiles.deleteAccount(user.id, { ip });
  if (!result.ok) return refuse({ alert: { title: MESSAGES.errorTitle, text: MESSAGES.deleteUserFailed } }, 409);
  try {
    // After the commit: the provider's sessions, grants and tokens of the account end too.
    await services.identity.revokeAccount(user.id);
  } catch (error) {
    // The account is deleted and can no longer sign in; the leftovers expire by themselves.
    log.error({ err: error, userId: user.id }, "revoking the identity provider's grants of a deleted account failed");
  }
  log.info({ userId: user.id }, "account deleted");
  const headers = new Headers();
  headers.append("Set-Cookie", await context.get(servicesContext).auth.clearSessionCookie());
  // To its dialog: without JavaScript the page's first Tab then starts there, not behind it.
  return redirect(`${ACCOUNT_DELETED_PATH}#${ACCOUNT_DELETED_DIALOG_ID}`, { headers });
}

export { clientAction, shouldRevalidate } from "#app/lib/form-route.ts";

export default function DeleteUser({ actionData }: Route.ComponentProps) {
  const navigation = useNavigation();
  const deleting = navigation.state === "submitting" && navigation.formMethod?.toUpperCase() === "POST";
  const reply = readReply(actionData);

  return (
    <section className="mx-auto max-w-2xl px-4 py-12">
      <BackLink to={PREFERENCES_PATH}>Preferenze</BackLink>
      <div className="card mt-4 p-6 md:p-8">
        <PageHeading title="Cancella account" />
        <AlertBox alert={reply.alert} />
        <div id="delete-warning" className="mt-4 space-y-3 rounded-md border-l-4 border-accent bg-accent/5 p-4">
          <p className="font-semibold text-accent-dark">Attenzione: la cancellazione è definitiva e non può essere annullata.</p>
          <ul className="list-disc space-y-1 pl-5 text-sm">
            <li>I tuoi dati personali (nome, cognome, email, cellulare e profilo) saranno cancellati.</li>
            <li>Non potrai più accedere ai tuoi ebook, corsi, riviste e all'abbonamento EDU.</li>
            <li>Sarai disconnesso da tutti i dispositivi.</li>
            <li>Gli ordini e i pagamenti già effettuati resteranno registrati in forma anonima, come richiesto dalla legge.</li>
          </ul>
          <p className="text-sm">Potrai registrarti di nuovo in futuro con la stessa email.</p>
        </div>
        <Form method="post" className="mt-6 flex flex-wrap justify-end gap-3">
          <Link to={PREFERENCES_PATH} className="button-outline">
            Annulla
          </Link>
          <button type="submit" className="button-primary" disabled={deleting} aria-describedby="delete-warning">
            {deleting ? "Cancellazione in corso…" : "Conferma"}
          </button>
        </Form>
      </div>
    </section>
  );
}
