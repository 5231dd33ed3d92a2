// No loader: this route is also the benchmark's floor for a React Router page.
import { Link, useLocation, useRouteLoaderData } from "react-router";
import type { ChromeHandle } from "#app/lib/page-chrome.ts";
import type { RootData } from "#app/root.tsx";
import { KeyIcon } from "#app/components/icons.tsx";
import { activationPageFor } from "#app/lib/activation-pages.ts";
import { withShow } from "#app/lib/modals.ts";
import { withRedirect } from "#app/lib/redirects.ts";
import { LOGIN_PATH, REGISTER_PATH } from "#shared/links.ts";
import { PageHeading } from "#app/components/page-heading.tsx";

export const handle: ChromeHandle = { chrome: { topStrip: false } };

export default function ActivationPrompt() {
  const location = useLocation();
  const page = activationPageFor(location.pathname);
  const current = location.pathname + location.search;
  const signedIn = Boolean(useRouteLoaderData<RootData>("root")?.user);
  return (
    <section className="mx-auto max-w-3xl px-4 py-16">
      <div className="card p-8 md:p-12">
        <span aria-hidden="true" className="grid h-14 w-14 place-items-center rounded-full bg-brand-light text-brand">
          <KeyIcon className="h-7 w-7" />
        </span>
        <PageHeading title={page.title} className="mt-6" />
        <p className="mt-4 text-lg text-ink/85">{page.text}</p>
        {signedIn ? (
          <div className="mt-8">
            <Link
              to={withShow(location.pathname, location.search, "activateProduct")}
              className="button-primary px-6 py-3 text-base"
            >
              Attiva prodotto
            </Link>
          </div>
        ) : (
          <>
            <p className="mt-6 text-ink/85">
              Per attivare il prodotto accedi al tuo account. Se non ne hai ancora uno, registrati: bastano pochi minuti.
            </p>
            <div className="mt-8 flex flex-wrap gap-3">
              <a href={withRedirect(LOGIN_PATH, current)} className="button-primary px-6 py-3 text-base">
                Accedi
              </a>
              <a href={withRedirect(REGISTER_PATH, current)} className="button-outline px-6 py-3 text-base">
                Registrati
              </a>
            </div>
          </>
        )}
      </div>
    </section>
  );
}
