// /profile/sessions/ — 'Dove hai effettuato l'accesso', the account console's list of the places
// the account is signed in: each session's device and browser, its rough place (from the network
// prefix only), first and last seen; 'Esci da questo dispositivo' for each and 'Esci da tutti gli
// altri'. Beside the browsers it lists the apps signed in with the account (the publisher's app),
// each with 'Esci dall'app'; 'Esci da tutti gli altri' ends those too. It also says that a password change or reset ends the other sessions, and when the last
// one did. Ending a session ends the identity provider's behind it (server/accounts/devices.ts).
import { Form, Link, useLocation } from "react-router";
import { z } from "zod";
import { requestContext, servicesContext } from "#shared/context.ts";
import { CHANGE_PASSWORD_PATH, PROFILE_PATH, SESSIONS_PATH } from "#shared/links.ts";
import { MESSAGES } from "#shared/messages.ts";
import { formatLongDateTime } from "#shared/format.ts";
import type { Route } from "./+types/profile.sessions";
import { AlertBox } from "#app/components/form-fields.tsx";
import { PageHeading } from "#app/components/page-heading.tsx";
import { customerOf } from "#app/lib/customer.server.ts";
import { readReply } from "#app/lib/form-reply.ts";
import { parseForm, refuse } from "#app/lib/form-reply.server.ts";
import { withShow } from "#app/lib/modals.ts";
import { redirectWithToast } from "#app/lib/toast.server.ts";
import { BackLink } from "#app/components/back-link.tsx";

export async function loader({ context }: Route.LoaderArgs) {
  const { user, sessionId } = customerOf(context);
  const { devices } = context.get(servicesContext);
  const [list, apps, lastPasswordChange] = await Promise.all([
    devices.list(user.id, sessionId),
    devices.listApps(user.id),
    devices.lastPasswordChange(user.id),
  ]);
  return { devices: list, apps, lastPasswordChange };
}

const sessionsSchema = z.object({
  intent: z.enum(["end", "end-app", "end-others"]),
  // The session's public id, for "end": the service ends it only if it is one of this account's.
  device: z.string().trim().max(64, MESSAGES.invalidChoice).optional(),
  // The app's grant id, for "end-app": likewise ended only if it is one of this account's.
  app: z.string().trim().max(128, MESSAGES.invalidChoice).optional(),
});

export async function action({ request, context }: Route.ActionArgs) {
  const { user, sessionId } = customerOf(context);
  const { devices } = context.get(servicesContext);
  const { ip } = context.get(requestContext);
  const parsed = await parseForm(request, sessionsSchema);
  // Only a tampered form gets here: the buttons send what the schema wants.
  if (!parsed.ok) return refuse({ alert: { title: MESSAGES.errorTitle, text: MESSAGES.invalidChoice } });
  if (parsed.data.intent === "end-others") {
    await devices.signOutOthers(user.id, sessionId, ip);
    return redirectWithToast(context, SESSIONS_PATH, { type: "success", title: MESSAGES.otherDevicesSignedOut });
  }
  if (parsed.data.intent === "end-app") {
    const ended = await devices.signOutApp(user.id, parsed.data.app ?? "", ip);
    return redirectWithToast(
      context,
      SESSIONS_PATH,
      ended ? { type: "success", title: MESSAGES.appSignedOut } : { type: "error", title: MESSAGES.deviceAlreadySignedOut },
    );
  }
  const ended = await devices.signOut(user.id, parsed.data.device ?? "", sessionId, ip);
  return redirectWithToast(
    context,
    SESSIONS_PATH,
    ended ? { type: "success", title: MESSAGES.deviceSignedOut } : { type: "error", title: MESSAGES.deviceAlreadySignedOut },
  );
}

export { clientAction, shouldRevalidate } from "#app/lib/form-route.ts";

export default function Sessions({ loaderData, actionData }: Route.ComponentProps) {
  const { devices, apps, lastPasswordChange } = loaderData;
  const reply = readReply(actionData);
  const { pathname, search } = useLocation();
  const others = devices.filter((device) => !device.current).length + apps.length;
  return (
    <section className="mx-auto max-w-3xl px-4 py-10">
      <BackLink to={PROFILE_PATH}>Il mio account</BackLink>
      <PageHeading title="Dove hai effettuato l'accesso" className="mt-4" />
      <p className="mt-3">
        Questi sono i dispositivi e le app in cui il tuo account è aperto. Se non riconosci un accesso, esci da quel dispositivo e{" "}
        <Link to={CHANGE_PASSWORD_PATH} className="link">
          cambia la password
        </Link>
        .
      </p>
      <p className="mt-2 text-sm text-muted">
        Quando cambi o reimposti la password esci da tutti gli altri dispositivi.
        {lastPasswordChange && <> L'ultima volta è successo il {formatLongDateTime(lastPasswordChange)}.</>}
      </p>

      <AlertBox alert={reply.alert} />

      <ul className="mt-6 space-y-4" aria-label="Accessi al tuo account">
        {devices.map((device) => (
          <li key={device.id} className="card p-5" aria-labelledby={`device-${device.id}`}>
            <div className="flex flex-wrap items-baseline justify-between gap-2">
              <h2 id={`device-${device.id}`} className="font-serif text-lg font-bold text-brand">
                {device.device}
              </h2>
              {device.current && (
                <span className="rounded bg-brand px-2 py-0.5 text-xs font-semibold text-white">Questo dispositivo</span>
              )}
            </div>
            <dl className="mt-3 grid gap-x-4 gap-y-1 text-sm sm:grid-cols-[max-content_1fr]">
              <Place place={device.place} network={device.network} />
              <dt className="font-semibold">Primo accesso</dt>
              <dd>{formatLongDateTime(device.firstSeenAt)}</dd>
              <dt className="font-semibold">Ultima attività</dt>
              <dd>{formatLongDateTime(device.lastSeenAt)}</dd>
            </dl>
            {device.current ? (
              // This browser signs out the usual way: the confirmation, then the identity provider.
              <Link to={withShow(pathname, search, "userLogout")} className="button-outline mt-4">
                Esci da questo dispositivo
              </Link>
            ) : (
              <Form method="post" className="mt-4">
                <input type="hidden" name="device" value={device.id} />
                <button
                  type="submit"
                  name="intent"
                  value="end"
                  className="button-outline"
                  aria-describedby={`device-${device.id}`}
                >
                  Esci da questo dispositivo
                </button>
              </Form>
            )}
          </li>
        ))}
      </ul>

      {apps.length > 0 && (
        <>
          <h2 className="mt-8 font-serif text-xl font-bold text-brand">App</h2>
          <ul className="mt-4 space-y-4" aria-label="App collegate al tuo account">
            {apps.map((app) => (
              <li key={app.id} className="card p-5" aria-labelledby={`app-${app.id}`}>
                <h3 id={`app-${app.id}`} className="font-serif text-lg font-bold text-brand">
                  {app.app}
                </h3>
                <dl className="mt-3 grid gap-x-4 gap-y-1 text-sm sm:grid-cols-[max-content_1fr]">
                  <Place place={app.place} network={app.network} />
                  <dt className="font-semibold">Primo accesso</dt>
                  <dd>{formatLongDateTime(app.signedInAt)}</dd>
                  <dt className="font-semibold">Ultimo utilizzo</dt>
                  <dd>{formatLongDateTime(app.lastUsedAt)}</dd>
                </dl>
                <Form method="post" className="mt-4">
                  <input type="hidden" name="app" value={app.id} />
                  <button
                    type="submit"
                    name="intent"
                    value="end-app"
                    className="button-outline"
                    aria-describedby={`app-${app.id}`}
                  >
                    Esci dall'app
                  </button>
                </Form>
              </li>
            ))}
          </ul>
        </>
      )}

      {others > 0 && (
        <Form method="post" className="mt-6">
          <button type="submit" name="intent" value="end-others" className="button-primary">
            Esci da tutti gli altri
          </button>
        </Form>
      )}

      <p className="mt-8 text-xs text-muted">
        Il luogo è stimato dalla rete da cui è stato fatto l'accesso, non dall'indirizzo esatto, che non conserviamo. Paesi
        secondo i dati IP2Location LITE (
        <a href="https://lite.ip2location.com" className="link">
          lite.ip2location.com
        </a>
        ).
      </p>
    </section>
  );
}

/** Where a browser or an app signed in from, roughly: the country or local network, and the network's prefix. */
function Place({ place, network }: { place: string | null; network: string | null }) {
  return (
    <>
      <dt className="font-semibold">Luogo approssimativo</dt>
      <dd>
        {place ?? "Sconosciuto"}
        {network && <span className="text-muted"> (rete {network})</span>}
      </dd>
    </>
  );
}
