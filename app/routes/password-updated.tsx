// /forgot-password/password-updated — the confirmation after a reset by link (spec §2, §4):
// 'Password aggiornata' with an 'Accedi' link to the sign-in.
import { MESSAGES } from "#shared/messages.ts";
import { MINIMAL_CHROME } from "#app/lib/page-chrome.ts";
import { LOGIN_PATH } from "#shared/links.ts";
import { PageHeading } from "#app/components/page-heading.tsx";

export const handle = MINIMAL_CHROME;

export default function PasswordUpdated() {
  return (
    <section className="mx-auto max-w-lg px-4 py-12">
      <div className="card p-8">
        <PageHeading title="Password aggiornata">{MESSAGES.passwordUpdated}</PageHeading>
        <p className="mt-4">
          La tua nuova password è attiva. Per sicurezza abbiamo chiuso le sessioni aperte del tuo account: accedi con la nuova
          password.
        </p>
        <p className="mt-6">
          <a href={LOGIN_PATH} className="button-primary">
            Accedi
          </a>
        </p>
      </div>
    </section>
  );
}
