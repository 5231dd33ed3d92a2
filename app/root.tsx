import {
  isRouteErrorResponse,
  Links,
  Meta,
  Outlet,
  Scripts,
  ScrollRestoration,
  useLocation,
  useRouteError,
  useRouteLoaderData,
} from "react-router";
import { requestContext, settingsContext } from "./context";
import type { Route } from "./+types/root";
import { Footer } from "./components/footer";
import { Header } from "./components/header";
import { NotFound } from "./components/not-found";
import { ActivationDialog, LogoutDialog, ToastMessage } from "./components/lazy-parts";
import { currentUser, initialsOf } from "./lib/auth.server";
import { layoutFor } from "./lib/layout";
import { toastContext, toastMiddleware } from "./lib/toast.server";
import stylesheet from "./styles/app.css?url";

export const links: Route.LinksFunction = () => [
  { rel: "stylesheet", href: stylesheet },
  { rel: "icon", href: "/favicon.svg", type: "image/svg+xml" },
];

export const middleware: Route.MiddlewareFunction[] = [toastMiddleware];

export async function loader({ request, context }: Route.LoaderArgs) {
  const { links, salesEmail, storefrontLogoutUrl } = context.get(settingsContext);
  const current = await currentUser(request, context);
  return {
    links,
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
  const { pathname, search } = useLocation();
  const layout = layoutFor(pathname);
  const show = new URLSearchParams(search).get("show");
  return (
    <html lang="it">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="theme-color" content="#0b2545" />
        <Meta />
        <Links />
      </head>
      <body className="flex min-h-screen flex-col bg-paper text-ink antialiased">
        <a href="#contenuto" className="skip-link">
          Vai al contenuto
        </a>
        {layout.header !== "none" && data && <Header layout={layout} links={data.links} user={data.user} />}
        <main id="contenuto" className="flex-1">
          {children}
        </main>
        {layout.header !== "none" && data && <Footer links={data.links} />}
        {data?.toast && <ToastMessage toast={data.toast} />}
        {data?.user && show === "userLogout" && <LogoutDialog storefrontLogoutUrl={data.storefrontLogoutUrl} />}
        {data?.user && show === "activateProduct" && <ActivationDialog />}
        <ScrollRestoration />
        <Scripts />
      </body>
    </html>
  );
}

export default function App() {
  return <Outlet />;
}

export function ErrorBoundary() {
  const error = useRouteError();
  const data = useRouteLoaderData<RootData>("root");
  if (isRouteErrorResponse(error) && error.status === 404) return <NotFound />;
  return (
    <section className="mx-auto max-w-2xl px-4 py-16">
      <title>Errore · Novalex Editore</title>
      <h1 className="font-serif text-3xl font-bold text-brand">Unexpected Application Error!</h1>
      <p className="mt-4">Si è verificato un errore imprevisto. Nessun dato è andato perso: riprova tra qualche istante.</p>
      {data?.requestId && (
        <p className="mt-2 text-sm text-muted">
          Se il problema persiste, contatta l'assistenza indicando il codice <code>{data.requestId}</code>.
        </p>
      )}
      {import.meta.env.DEV && error instanceof Error && <pre className="mt-6 overflow-auto text-xs">{error.stack}</pre>}
      <p className="mt-6">
        <a className="link" href="/">
          Torna alla home
        </a>
      </p>
    </section>
  );
}
