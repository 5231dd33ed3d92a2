// /profile/preferences/ — 'Preferenze' (spec §2, §3, §8): privacy settings, the marketing consent
// (accept_marketing), the personalisation consent shown disabled (accept_customize) and the way
// to delete the account.
import { Form, Link, redirect } from "react-router";
import { z } from "zod";
import { servicesContext, settingsContext } from "#shared/context.ts";
import type { Route } from "./+types/profile.preferences";
import { AlertBox } from "#app/components/form-fields.tsx";
import { customerOf } from "#app/lib/customer.server.ts";
import { readReply } from "#app/lib/form-reply.ts";
import { parseForm, refuse } from "#app/lib/form-reply.server.ts";
import { MESSAGES } from "#shared/messages.ts";
import { redirectWithToast } from "#app/lib/toast.server.ts";
import {
  DATA_EXPORT_PATH,
  DELETE_ACCOUNT_PATH,
  LOGIN_PATH,
  PREFERENCES_PATH,
  PROFILE_PATH,
  SESSIONS_PATH,
} from "#shared/links.ts";
import { PageHeading } from "#app/components/page-heading.tsx";
import { BackLink } from "#app/components/back-link.tsx";

export async function loader({ context }: Route.LoaderArgs) {
  const { user } = customerOf(context);
  const profile = await context.get(servicesContext).profiles.get(user.id);
  if (!profile) throw redirect(LOGIN_PATH);
  return {
    acceptMarketing: profile.acceptMarketing,
    acceptCustomize: profile.acceptCustomize,
    privacyUrl: `${context.get(settingsContext).links.shop}/privacy`,
  };
}

// An unticked checkbox is not sent: absent means no consent.
const preferencesSchema = z.object({ acceptMarketing: z.literal("on").optional() });

/** 'Errore' with the description (spec §8). */
const errorAlert = (text: string) => ({ title: MESSAGES.errorTitle, text });

export async function action({ request, context }: Route.ActionArgs) {
  const { user } = customerOf(context);
  const parsed = await parseForm(request, preferencesSchema);
  // Only a tampered form gets here: the checkbox has no message of its own.
  if (!parsed.ok) return refuse({ alert: errorAlert(MESSAGES.profileInvalid) });
  const result = await context
    .get(servicesContext)
    .profiles.updatePreferences(user.id, { acceptMarketing: parsed.data.acceptMarketing === "on" });
  if (!result.ok) return refuse({ alert: errorAlert(MESSAGES.accountNotFound) }, 404);
  return redirectWithToast(context, PREFERENCES_PATH, { type: "success", title: MESSAGES.preferencesUpdated });
}

export { clientAction, shouldRevalidate } from "#app/lib/form-route.ts";

export default function Preferences({ loaderData, actionData }: Route.ComponentProps) {
  const reply = readReply(actionData);
  return (
    <section className="mx-auto max-w-3xl px-4 py-10">
      <BackLink to={PROFILE_PATH}>Il mio account</BackLink>
      <PageHeading title="Preferenze" className="mt-4" />

      <AlertBox alert={reply.alert} />

      <Form method="post" className="card mt-6 space-y-6 p-6 md:p-8">
        <div>
          <h2 className="font-serif text-xl font-bold text-brand">Impostazioni privacy</h2>
          <p className="mt-2 text-sm">
            Novalex Editore tratta i tuoi dati personali per gestire il tuo account, i prodotti che acquisti o attivi e
            l'assistenza, nel rispetto del Regolamento (UE) 2016/679 (GDPR). Qui scegli come possiamo contattarti. Puoi cambiare
            idea in qualsiasi momento.{" "}
            <a href={loaderData.privacyUrl} className="link">
              Leggi l'informativa sulla privacy
            </a>
          </p>
        </div>

        <fieldset className="space-y-4">
          <legend className="sr-only">Consensi</legend>
          <label className="flex items-start gap-3">
            <input
              type="checkbox"
              name="acceptMarketing"
              defaultChecked={loaderData.acceptMarketing}
              aria-describedby="acceptMarketing-hint"
              className="mt-1 h-4 w-4"
            />
            <span>
              <span className="block font-semibold">Comunicazioni commerciali</span>
              <span id="acceptMarketing-hint" className="block text-sm text-muted">
                Acconsento a ricevere newsletter, novità editoriali e offerte di Novalex Editore.
              </span>
            </span>
          </label>
          <label className="flex items-start gap-3">
            <input
              type="checkbox"
              disabled
              checked={loaderData.acceptCustomize}
              readOnly
              aria-describedby="acceptCustomize-hint"
              className="mt-1 h-4 w-4"
            />
            <span>
              <span className="block font-semibold text-muted">Personalizzazione dei contenuti</span>
              <span id="acceptCustomize-hint" className="block text-sm text-muted">
                Acconsento all'analisi delle mie preferenze per ricevere contenuti e offerte personalizzati. Per modificare questo
                consenso scrivi al servizio clienti.
              </span>
            </span>
          </label>
        </fieldset>

        <button type="submit" className="button-primary px-6 py-3 text-base">
          Salva
        </button>
      </Form>

      <div className="card mt-6 p-6 md:p-8">
        <h2 className="font-serif text-xl font-bold text-brand">I tuoi dati</h2>
        <p className="mt-2 text-sm">
          Scarica in un file JSON tutto ciò che conserviamo su di te: profilo, consensi, accessi, ordini e pagamenti (senza i dati
          delle carte), prodotti, letture e messaggi che ti abbiamo inviato. Puoi vedere{" "}
          <Link to={SESSIONS_PATH} className="link">
            dove hai effettuato l'accesso
          </Link>
          .
        </p>
        {/* A document post: the answer is a file the browser saves, not a page of the app. */}
        <Form method="post" action={DATA_EXPORT_PATH} reloadDocument className="mt-4">
          <button type="submit" className="button-outline">
            Scarica i tuoi dati
          </button>
        </Form>
      </div>

      <div className="card mt-6 p-6 md:p-8">
        <h2 className="font-serif text-xl font-bold text-brand">Cancellazione account</h2>
        <p className="mt-2 text-sm">
          Puoi cancellare il tuo account e i tuoi dati personali. L'operazione non può essere annullata.
        </p>
        <Link to={DELETE_ACCOUNT_PATH} className="button-outline mt-4">
          Cancella il tuo account
        </Link>
      </div>
    </section>
  );
}
