import { Link } from "react-router";
import { servicesContext } from "#shared/context.ts";
import type { Route } from "./+types/edu";
import { FaqAccordion } from "#app/components/faq.tsx";
import { formatDate, withArticle } from "#shared/format.ts";
import { formatEuro } from "#shared/euro.ts";
import { getUser } from "#app/lib/auth.server.ts";
import { EDU_ACTIVATION_PROMPT_PATH, EDU_PATH, SUBSCRIPTION_PATH, checkoutPath } from "#shared/links.ts";
import { EDU_DISCOUNT_PERCENT, EDU_MONTHS, EDU_PRODUCT_CODE } from "#app/lib/edu.ts";
import { revalidateUnlessNetworkFailed } from "#app/lib/communication-failure.ts";

export async function loader({ request, context }: Route.LoaderArgs) {
  const { content, catalog, library } = context.get(servicesContext);
  const [faq, edu, user] = await Promise.all([
    content.getFaq("edu"),
    catalog.getOfferByCode(EDU_PRODUCT_CODE),
    getUser(request, context),
  ]);
  if (!edu?.monthlyPriceCents) throw new Error(`The ${EDU_PRODUCT_CODE} product is missing from the catalogue`);
  const eduState = user ? await library.dashboard.eduState(user.id) : null;
  return {
    faq,
    monthlyPriceCents: edu.monthlyPriceCents,
    // A customer whose EDU is running cannot buy it again (spec §2 'EDU page'), nor one whose
    // subscription's charge is being retried (they mend it on their subscription's page).
    eduActiveUntil: eduState?.until ?? null,
    pastDue: eduState?.notice?.kind === "past_due",
  };
}

// A form of the header's dialogs may fail on the network here: see lib/communication-failure.
export const shouldRevalidate = revalidateUnlessNetworkFailed;

const EDU_INCLUDES = [
  "Accesso illimitato a tutte le materie EDU",
  "Quiz e test di autovalutazione",
  "Mappe concettuali",
  "Casi pratici",
  "Glossari",
];

function Check() {
  return (
    <span
      aria-hidden="true"
      className="mt-0.5 grid h-5 w-5 shrink-0 place-items-center rounded-full bg-accent text-xs text-white"
    >
      ✓
    </span>
  );
}

export default function EduPage({ loaderData }: Route.ComponentProps) {
  const { faq, monthlyPriceCents } = loaderData;
  const listPrice = (monthlyPriceCents * 100) / (100 - EDU_DISCOUNT_PERCENT);
  return (
    <>
      <title>EDU, la piattaforma di studio per il diritto · Novalex Editore</title>
      <meta
        name="description"
        content={`EDU: ${EDU_MONTHS} mesi di studio a ${formatEuro(monthlyPriceCents)} al mese. Quiz, mappe concettuali, casi pratici e glossari per tutte le materie di diritto.`}
      />

      <section className="bg-brand text-white">
        <div className="mx-auto max-w-7xl px-4 py-14 text-center">
          <p className="text-sm font-semibold uppercase tracking-widest text-gold">Offerta EDU</p>
          <h1 className="mt-3 font-serif text-4xl font-bold md:text-5xl">Studia il diritto con EDU</h1>
          <p className="mx-auto mt-4 max-w-2xl text-lg text-white/85">
            La piattaforma di studio per gli studenti di Giurisprudenza: tutte le materie, con esercizi e strumenti per prepararti
            agli esami.
          </p>
        </div>
      </section>

      <section className="mx-auto -mt-8 grid max-w-5xl gap-6 px-4 md:grid-cols-2" aria-label="Offerte">
        <article className="card relative flex flex-col border-2 border-accent p-8">
          <p className="absolute -top-3 right-6 rounded-full bg-accent px-3 py-1 text-sm font-bold text-white">
            -{EDU_DISCOUNT_PERCENT}%
          </p>
          <h2 className="font-serif text-2xl font-bold text-brand">EDU</h2>
          <p className="mt-1 text-muted">Abbonamento di {EDU_MONTHS} mesi</p>
          <p className="mt-6">
            <span className="text-4xl font-bold text-ink">{formatEuro(monthlyPriceCents)}</span>
            <span className="text-muted">/mese</span>{" "}
            <s className="text-muted" aria-label={`invece di ${formatEuro(listPrice)} al mese`}>
              {formatEuro(listPrice)}
            </s>
          </p>
          <ul className="mt-6 space-y-2 text-sm">
            <li>Pagamento mensile</li>
            <li>Rinnovo automatico dopo {EDU_MONTHS} mesi</li>
            <li>Disdici quando vuoi</li>
          </ul>
          <ul className="mt-6 space-y-2">
            {EDU_INCLUDES.map((item) => (
              <li key={item} className="flex gap-2">
                <Check />
                {item}
              </li>
            ))}
          </ul>
          {loaderData.eduActiveUntil || loaderData.pastDue ? (
            <>
              <a
                href={EDU_PATH}
                aria-disabled="true"
                className="button-primary pointer-events-none mt-8 py-3 text-base opacity-60"
              >
                Acquista ora
              </a>
              <p className="mt-2 text-sm text-muted">
                {loaderData.eduActiveUntil
                  ? `Il tuo abbonamento EDU è attivo fino ${withArticle("al", formatDate(loaderData.eduActiveUntil))}.`
                  : "Il pagamento dell'ultima rata del tuo abbonamento EDU non è riuscito."}{" "}
                <Link to={SUBSCRIPTION_PATH} className="link">
                  Il mio abbonamento
                </Link>
              </p>
            </>
          ) : (
            // A post: opening the order is a change (create-checkout reuses an open one).
            <form method="post" action={checkoutPath(EDU_PRODUCT_CODE)} className="mt-8 flex">
              <button type="submit" className="button-primary w-full py-3 text-base">
                Acquista ora
              </button>
            </form>
          )}
        </article>

        <article className="card flex flex-col p-8">
          <h2 className="font-serif text-2xl font-bold text-brand">eBook+EDU</h2>
          <p className="mt-1 text-muted">Con il manuale che riporta il bollino in copertina</p>
          <p className="mt-6 text-ink/90">
            Hai acquistato un manuale con il bollino <strong>eBook+EDU</strong>? Inserisci il codice stampato nel libro: ricevi
            gratis l'eBook del manuale e {EDU_MONTHS} mesi di EDU.
          </p>
          <ul className="mt-6 space-y-2">
            <li className="flex gap-2">
              <Check />
              eBook del manuale in omaggio
            </li>
            <li className="flex gap-2">
              <Check />
              {EDU_MONTHS} mesi di EDU inclusi
            </li>
            <li className="flex gap-2">
              <Check />
              Accesso dalla data di inserimento del codice
            </li>
          </ul>
          <Link to={EDU_ACTIVATION_PROMPT_PATH} className="button-secondary mt-auto py-3 text-base">
            Attiva il codice
          </Link>
        </article>
      </section>

      <aside className="mx-auto mt-10 max-w-5xl px-4" aria-label="Informazioni">
        <p className="rounded-lg border-l-4 border-gold bg-white p-5 text-sm text-ink/90">
          <strong>Da sapere:</strong> i prezzi sono IVA inclusa. L'abbonamento EDU si paga con carta di credito ogni mese; dopo i
          primi {EDU_MONTHS} mesi si rinnova automaticamente e puoi disdirlo in qualsiasi momento dal tuo account. Con Carta della
          cultura e Carta del merito puoi acquistare i nostri manuali nelle librerie aderenti.
        </p>
      </aside>

      <section className="mx-auto max-w-5xl px-4 py-14" aria-labelledby="domande">
        <h2 id="domande" className="section-title mb-8">
          Domande frequenti
        </h2>
        <FaqAccordion sections={faq} headingLevel={3} />
      </section>
    </>
  );
}
