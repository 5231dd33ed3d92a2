// /dev/orologio — development only (404 in production): moves the portal's clock forward and
// runs the background jobs due at the new time, to watch the EDU subscription's months being
// charged, the renewal notice, retries and endings happen (docs/features.md, "Moving the clock").
// Every service takes its time from this clock, sessions included: a jump of more than a week ends
// them, as it would for a customer away that long.
import { Form } from "react-router";
import { z } from "zod";
import type { Route } from "./+types/dev.clock";
import { servicesContext, settingsContext } from "#shared/context.ts";
import { formatEuro } from "#shared/euro.ts";
import { DAY_MS } from "#shared/subscription.ts";
import { getUser } from "#app/lib/auth.server.ts";
import { parseForm, refuse } from "#app/lib/form-reply.server.ts";
import { redirectWithToast } from "#app/lib/toast.server.ts";
import { PageHeading } from "#app/components/page-heading.tsx";
import { DEV_CLOCK_PATH } from "#shared/links.ts";

const dateTime = new Intl.DateTimeFormat("it-IT", { dateStyle: "short", timeStyle: "short", timeZone: "Europe/Rome" });

export function headers() {
  return { "Cache-Control": "no-store", "X-Robots-Tag": "noindex" };
}

function devClockOf(context: Route.LoaderArgs["context"]) {
  const services = context.get(servicesContext);
  if (context.get(settingsContext).isProduction || !services.devClock) throw new Response("Not Found", { status: 404 });
  return { services, devClock: services.devClock };
}

export async function loader({ context }: Route.LoaderArgs) {
  const { services, devClock } = devClockOf(context);
  const report = await services.subscriptions.report();
  const rows = (list: typeof report.due) =>
    list.map((r) => ({
      key: `${r.subscriptionId}:${r.number}`,
      subscriptionId: r.subscriptionId,
      number: r.number,
      status: `${r.status} / ${r.periodStatus}`,
      dueAt: dateTime.format(r.dueAt),
      nextAttemptAt: r.nextAttemptAt ? dateTime.format(r.nextAttemptAt) : "—",
      tries: r.tries,
      amount: formatEuro(r.amountCents),
      lastError: r.lastError ?? "",
    }));
  return {
    now: dateTime.format(services.clock()),
    offsetDays: Math.round((devClock.offsetMs() / DAY_MS) * 10) / 10,
    due: rows(report.due),
    pastDue: rows(report.pastDue),
    failed: rows(report.failed),
  };
}

const schema = z.object({
  days: z.coerce.number().int().min(0).max(400).optional(),
  /** What the sandbox's bank does from now on with the signed-in customer's saved card. */
  card: z.enum(["succeeds", "declined", "authentication_required"]).optional(),
});

export async function action({ request, context }: Route.ActionArgs) {
  const { services, devClock } = devClockOf(context);
  const parsed = await parseForm(request, schema);
  if (!parsed.ok) return refuse(parsed.reply);
  if (parsed.data.card) {
    const user = await getUser(request, context);
    const setupId = user && (await services.subscriptions.savedCardOf(user.id));
    const changed = setupId && services.sandbox ? await services.sandbox.simulateSavedCard(setupId, parsed.data.card) : false;
    return redirectWithToast(context, DEV_CLOCK_PATH, {
      type: changed ? "info" : "error",
      title: changed ? "Carta aggiornata per le prossime rate" : "Nessun abbonamento in corso con la carta di prova",
    });
  }
  const days = parsed.data.days ?? 0;
  if (days > 0) devClock.advance(days * DAY_MS);
  const done = await services.jobs.runDue();
  const summary = Object.entries(done)
    .map(([work, n]) => `${work}: ${n}`)
    .join(", ");
  return redirectWithToast(context, DEV_CLOCK_PATH, {
    type: "info",
    title: days > 0 ? `Orologio avanti di ${days} giorni` : "Lavori eseguiti",
    message: summary || "Nessun lavoro da fare.",
  });
}

type Row = Route.ComponentProps["loaderData"]["due"][number];

function Table({ title, rows }: { title: string; rows: Row[] }) {
  return (
    <section className="mt-8">
      <h2 className="section-title">
        {title} ({rows.length})
      </h2>
      {rows.length > 0 ? (
        <table className="mt-3 w-full text-left text-sm">
          <thead>
            <tr>
              <th>Abbonamento</th>
              <th>Mese</th>
              <th>Stato</th>
              <th>Scadenza</th>
              <th>Prossimo tentativo</th>
              <th>Tentativi</th>
              <th>Importo</th>
              <th>Ultimo errore</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.key} className="border-t border-line">
                <td className="font-mono text-xs">{r.subscriptionId.slice(0, 8)}</td>
                <td>{r.number}</td>
                <td>{r.status}</td>
                <td>{r.dueAt}</td>
                <td>{r.nextAttemptAt}</td>
                <td>{r.tries}</td>
                <td>{r.amount}</td>
                <td>{r.lastError}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p className="mt-3 text-muted">Nessuno.</p>
      )}
    </section>
  );
}

export default function DevClock({ loaderData }: Route.ComponentProps) {
  const { now, offsetDays, due, pastDue, failed } = loaderData;
  return (
    <div className="mx-auto max-w-6xl px-4 py-8">
      <p className="kicker">Solo in sviluppo</p>
      <PageHeading title="Orologio di sviluppo" className="mt-1">
        Orologio del portale
      </PageHeading>
      <p className="mt-3">
        Ora del portale: <strong>{now}</strong> ({offsetDays > 0 ? `${offsetDays} giorni avanti` : "l'ora di sistema"}). Ogni
        servizio usa quest'ora, sessioni comprese: un salto di oltre una settimana chiede di accedere di nuovo.
      </p>
      <Form method="post" className="mt-6 flex flex-wrap gap-3">
        {[1, 7, 30].map((days) => (
          <button key={days} type="submit" name="days" value={days} className="button-primary">
            Avanti di {days === 1 ? "1 giorno" : `${days} giorni`}
          </button>
        ))}
        <button type="submit" name="days" value={0} className="button-outline">
          Esegui ora i lavori dovuti
        </button>
      </Form>
      <Form method="post" className="mt-6 flex flex-wrap items-end gap-3">
        <label className="text-sm">
          Le prossime rate del mio abbonamento (carta di prova)
          <select name="card" className="field mt-1" defaultValue="declined">
            <option value="succeeds">vanno a buon fine</option>
            <option value="declined">sono rifiutate dalla banca</option>
            <option value="authentication_required">chiedono l'autenticazione (Paga ora)</option>
          </select>
        </label>
        <button type="submit" className="button-outline">
          Applica
        </button>
      </Form>
      <Table title="Rate da addebitare ora" rows={due} />
      <Table title="Abbonamenti con pagamento non riuscito" rows={pastDue} />
      <Table title="Rate non pagate dopo tutti i tentativi" rows={failed} />
    </div>
  );
}
