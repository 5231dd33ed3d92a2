import {
  isRouteErrorResponse,
  Links,
  redirect,
  Meta,
  Outlet,
  Scripts,
  ScrollRestoration,
  useLocation,
  useMatches,
  useRouteError,
  useRouteLoaderData,
} from "react-router";
import { requestContext, settingsContext } from "#shared/context.ts";
import type { Route } from "./+types/root";
import { FOOTER_CLASS, FooterContent } from "./components/footer";
import { Header } from "./components/header";
import { NotFound } from "./components/not-found";
import { ActivationDialog, LogoutDialog, ToastMessage } from "./components/lazy-parts";
import { currentUser, initialsOf } from "./lib/auth.server";
import { COMMUNICATION_FAILURE } from "#shared/communication-failure.ts";
import { revalidateUnlessNetworkFailed, useCommunicationFailures } from "./lib/communication-failure";
import { MAIN_CONTENT_ID } from "./lib/dialog-focus";
import { formGuardMiddleware } from "./lib/form-guard.server";
import { useFocusHeadingOnNavigation } from "./lib/navigation-focus";
import { chromeOf } from "./lib/page-chrome";
import { prerender } from "./lib/prerender.server";
import { PrerenderedElement, usePrerenderedLinks } from "./lib/prerendered";
import { withRedirect } from "./lib/redirects";
import { toastContext, toastMiddleware } from "./lib/toast.server";
import stylesheet from "./styles/app.css?url";
import { HOME_PATH, LOGIN_PATH } from "#shared/links.ts";
import { documentTitle } from "./components/page-title";

export const links: Route.LinksFunction = () => [{ rel: "icon", href: "/favicon.svg", type: "image/svg+xml" }];

export const middleware: Route.MiddlewareFunction[] = [formGuardMiddleware, toastMiddleware];
export const shouldRevalidate = revalidateUnlessNetworkFailed;

export async function loader({ request, context }: Route.LoaderArgs) {
  const { links, salesEmail, storefrontLogoutUrl, seller } = context.get(settingsContext);
  const current = await currentUser(request, context);
  const url = new URL(request.url);
  // The activation modal is for signed-in customers: anyone else signs in first and comes back
  // to it (spec §2: ?show=activateProduct opens it on any page).
  if (!current && url.searchParams.get("show") === "activateProduct") {
    throw redirect(withRedirect(LOGIN_PATH, url.pathname + url.search));
  }
  return {
    links,
    // The same for everyone: rendered once (links is one object for the server's lifetime).
    footer: prerender(context, { name: "piede", source: links, render: () => <FooterContent links={links} seller={seller} /> }),
    salesEmail,
    storefrontLogoutUrl,
    requestId: context.get(requestContext).id,
    user: current ? { initials: initialsOf(current.user) } : null,
    toast: context.get(toastContext),
  };
}

export type RootData = Awaited<ReturnType<typeof loader>>;

export function Layout({ children }: { children: React.ReactNode }) {
  const data = useRouteLoaderData<RootData>("root");
  const { search } = useLocation();
  const chrome = chromeOf(useMatches());
  const show = new URLSearchParams(search).get("show");
  usePrerenderedLinks();
  useFocusHeadingOnNavigation();
  return (
    <html lang="it">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="theme-color" content="#0b2545" />
        {/* Rendered by React as a stylesheet resource (precedence), so it comes before the
            scripts' modulepreload links in the head: the first paint waits for it alone, not
            for the JavaScript queued ahead of it (issue 30). */}
        <link rel="stylesheet" href={stylesheet} precedence="default" />
        <Meta />
        <Links nonce={documentNonce()} />
      </head>
      <body className="flex min-h-screen flex-col bg-paper text-ink antialiased">
        {/* First in the page: without JavaScript nothing can keep the focus in a dialog, but the first Tab reaches it. */}
        {data?.user && show === "userLogout" && <LogoutDialog storefrontLogoutUrl={data.storefrontLogoutUrl} />}
        {data?.user && show === "activateProduct" && <ActivationDialog />}
        <a href={`#${MAIN_CONTENT_ID}`} className="skip-link" onClick={skipToContent}>
          Vai al contenuto
        </a>
        {/* First in the page after the skip link, so that its close button is a Tab or two away. */}
        {data?.toast && <ToastMessage toast={data.toast} />}
        <CommunicationFailureAlert />
        {chrome.header !== "none" && data && <Header chrome={chrome} links={data.links} user={data.user} />}
        {/* Focusable from a script only: a closing dialog with no opener gives the focus here. */}
        <main id={MAIN_CONTENT_ID} tabIndex={-1} className="flex-1 focus:outline-none">
          {children}
        </main>
        {chrome.header !== "none" && data && <PrerenderedElement as="footer" className={FOOTER_CLASS} part={data.footer} />}
        <ScrollRestoration />
        <Scripts />
      </body>
    </html>
  );
}

/**
 * 'Vai al contenuto' focuses the main content itself: with JavaScript the router would take the
 * change of the address's fragment for a navigation and drop the reply on the page (a refused
 * form's errors). Without JavaScript the link does it.
 */
function skipToContent(event: React.MouseEvent<HTMLAnchorElement>) {
  event.preventDefault();
  document.getElementById(MAIN_CONTENT_ID)?.focus();
}

/** The alert after a form submission that never reached the server (see lib/communication-failure). */
function CommunicationFailureAlert() {
  const failures = useCommunicationFailures();
  if (failures === 0) return null;
  // Keyed by the count: each new failure shows the alert again.
  return (
    <ToastMessage
      key={failures}
      toast={{ type: "error", title: COMMUNICATION_FAILURE.title, message: COMMUNICATION_FAILURE.text }}
    />
  );
}

export default function App() {
  return <Outlet />;
}

/**
 * The CSP nonce, on the client. The server renders it on every link and script; browsers then
 * hide the attribute (it reads "") but keep the property. Without it on the client, hydration
 * would see nonce="" against no nonce and warn. On the server React Router adds it itself.
 */
function documentNonce(): string | undefined {
  if (typeof document === "undefined") return undefined;
  return document.querySelector<HTMLScriptElement>("script[nonce]")?.nonce || undefined;
}

/** Bad request, body too large, not a form. */
const REFUSED_REQUEST_STATUSES = new Set([400, 413, 415]);

export function ErrorBoundary() {
  const error = useRouteError();
  const data = useRouteLoaderData<RootData>("root");
  if (isRouteErrorResponse(error) && error.status === 404) return <NotFound />;
  // A request the server could not take (not a form, malformed, too large): spec §8's
  // "network or parse failure" message, and nothing was changed.
  if (isRouteErrorResponse(error) && REFUSED_REQUEST_STATUSES.has(error.status)) {
    return (
      <ErrorPage title={COMMUNICATION_FAILURE.title} pageTitle="Errore di comunicazione">
        <p className="mt-4">{COMMUNICATION_FAILURE.text}</p>
      </ErrorPage>
    );
  }
  return (
    // The heading is the spec's (§2: the router's error screen reads it); what it means, in Italian, follows.
    <ErrorPage title="Unexpected Application Error!" pageTitle="Errore">
      <p className="mt-4">Si è verificato un errore imprevisto. Nessun dato è andato perso: riprova tra qualche istante.</p>
      {data?.requestId && (
        <p className="mt-2 text-sm text-muted">
          Se il problema persiste, contatta l'assistenza indicando il codice <code>{data.requestId}</code>.
        </p>
      )}
      {import.meta.env.DEV && error instanceof Error && <pre className="mt-6 overflow-auto text-xs">{error.stack}</pre>}
    </ErrorPage>
  );
}

/** The root's error pages: a heading, what happened, and the way home. */
function ErrorPage({ title, pageTitle, children }: { title: string; pageTitle: string; children: React.ReactNode }) {
  return (
    <section className="mx-auto max-w-2xl px-4 py-16">
      <title>{documentTitle(pageTitle)}</title>
      <h1 className="font-serif text-3xl font-bold text-brand">{title}</h1>
      {children}
      <p className="mt-6">
        <a className="link" href={HOME_PATH}>
          Torna alla home
        </a>
      </p>
    </section>
  );
}
