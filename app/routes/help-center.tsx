import { servicesContext } from "#shared/context.ts";
import type { Route } from "./+types/help-center";
import { FaqAccordion } from "#app/components/faq.tsx";
import { revalidateUnlessNetworkFailed } from "#app/lib/communication-failure.ts";

export async function loader({ context }: Route.LoaderArgs) {
  return { faq: await context.get(servicesContext).content.getFaq("help-center") };
}

// A form of the header's dialogs may fail on the network here: see lib/communication-failure.
export const shouldRevalidate = revalidateUnlessNetworkFailed;

export default function HelpCenter({ loaderData }: Route.ComponentProps) {
  return (
    <>
      <title>Help Center · Novalex Editore</title>
      <meta
        name="description"
        content="Risposte alle domande più frequenti su account, attivazione dei prodotti, lettura degli eBook e acquisti."
      />
      <section className="bg-brand text-white">
        <div className="mx-auto max-w-4xl px-4 py-12">
          <h1 className="font-serif text-4xl font-bold">Help Center</h1>
          <p className="mt-3 text-lg text-white/85">Come possiamo aiutarti? Qui trovi le risposte alle domande più frequenti.</p>
        </div>
      </section>
      <div className="mx-auto max-w-4xl px-4 py-12">
        <FaqAccordion sections={loaderData.faq} />
      </div>
    </>
  );
}
