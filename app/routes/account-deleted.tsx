// /profile/delete-user/confermata/ — after 'Conferma' on /profile/delete-user/ (spec §2, §4
// "Delete account"): the modal 'Cancellazione utente confermata', whose 'Home Page' button goes
// to /. The deletion has signed the visitor out; anyone still signed in has deleted nothing and
// goes back to the deletion page.
import { redirect } from "react-router";
import type { Route } from "./+types/account-deleted";
import { ModalDialog } from "#app/components/modal-dialog.tsx";
import { getUser } from "#app/lib/auth.server.ts";
import { MESSAGES } from "#shared/messages.ts";
import { ACCOUNT_DELETED_DIALOG_ID, DELETE_ACCOUNT_PATH, HOME_PATH } from "#shared/links.ts";
import { PageHeading } from "#app/components/page-heading.tsx";

export async function loader({ request, context }: Route.LoaderArgs) {
  if (await getUser(request, context)) throw redirect(DELETE_ACCOUNT_PATH);
  return null;
}

export default function AccountDeleted() {
  return (
    <section className="mx-auto max-w-2xl px-4 py-12">
      <PageHeading title={MESSAGES.deleteUserConfirmed}>Account cancellato</PageHeading>
      <p className="mt-3">Il tuo account è stato cancellato.</p>
      <ModalDialog id={ACCOUNT_DELETED_DIALOG_ID} labelledBy="deleted-title" describedBy="deleted-text">
        <h2 id="deleted-title" className="font-serif text-2xl font-bold text-brand">
          {MESSAGES.deleteUserConfirmed}
        </h2>
        <p id="deleted-text" className="mt-3">
          Il tuo account e i tuoi dati personali sono stati cancellati. Grazie per essere stato con noi.
        </p>
        <div className="mt-6 flex justify-end">
          <a href={HOME_PATH} className="button-primary" autoFocus>
            Home Page
          </a>
        </div>
      </ModalDialog>
    </section>
  );
}
