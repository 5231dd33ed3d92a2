import { Link, useLocation } from "react-router";
import type { PublicSettings } from "#shared/context.ts";
import type { PageChrome } from "#app/lib/page-chrome.ts";
import { withShow } from "#app/lib/modals.ts";
import { HelpIcon, KeyIcon, MenuIcon, SearchIcon } from "./icons";
import { Logo } from "./logo";
import { UserMenu } from "./lazy-parts";
import { ACTIVATION_PROMPT_PATH, EDU_PATH, HELP_CENTER_PATH, HOME_PATH, LOGIN_PATH } from "#shared/links.ts";

type Links = PublicSettings["links"];

/** The publisher's catalogue sections, shown in the top strip and the mobile menu. */
function sectionLinks(links: Links) {
  return [
    { label: "Università", href: `${links.mainSite}/universita` },
    { label: "Professionali", href: `${links.mainSite}/professionali` },
    { label: "Enti e biblioteche", href: `${links.mainSite}/enti-biblioteche` },
    { label: "Novità", href: `${links.mainSite}/novita` },
    { label: "Riviste", href: `${links.mainSite}/riviste` },
  ];
}

/**
 * 'Inserisci codice' opens the activation modal for a signed-in customer, and leads a visitor
 * to the page that asks them to sign in first (spec §2).
 */
function useActivationHref(signedIn: boolean): string {
  const { pathname, search } = useLocation();
  return signedIn ? withShow(pathname, search, "activateProduct") : ACTIVATION_PROMPT_PATH;
}

/** Pages of the portal offered in the mobile menu, after the catalogue sections. */
function portalLinks(activationHref: string) {
  return [
    { label: "Offerta EDU", href: EDU_PATH },
    { label: "Inserisci codice", href: activationHref },
    { label: "Help Center", href: HELP_CENTER_PATH },
  ];
}

function SearchForm({ links, id }: { links: Links; id: string }) {
  return (
    <form action={`${links.mainSite}/catalogsearch/result/`} method="get" role="search" className="flex w-full">
      <label htmlFor={id} className="sr-only">
        Cerca nel catalogo
      </label>
      <input
        id={id}
        name="q"
        type="search"
        required
        placeholder="Cerca titolo, autore, ISBN…"
        className="min-w-0 flex-1 rounded-l-md border border-muted bg-white px-3 py-2 text-sm text-ink placeholder:text-muted"
      />
      <button type="submit" className="rounded-r-md bg-accent px-3 text-white hover:bg-accent-dark">
        <SearchIcon />
        <span className="sr-only">Cerca</span>
      </button>
    </form>
  );
}

export type HeaderUser = { initials: string };

export function Header({ chrome, links, user }: { chrome: PageChrome; links: Links; user: HeaderUser | null }) {
  const activationHref = useActivationHref(user !== null);
  if (chrome.header === "minimal") {
    return (
      <header className="border-b border-line bg-white">
        <div className="mx-auto flex h-16 max-w-7xl items-center px-4">
          <Link to={HOME_PATH} aria-label="Novalex Editore, vai alla home">
            <Logo />
          </Link>
        </div>
      </header>
    );
  }

  const sections = sectionLinks(links);
  const dark = chrome.dark;
  return (
    <header className={dark ? "bg-brand text-white" : "border-b border-line bg-white"}>
      {chrome.topStrip && (
        <nav aria-label="Sezioni del catalogo" className="hidden bg-brand-dark text-sm text-white md:block">
          <ul className="mx-auto flex max-w-7xl gap-6 px-4 py-1.5">
            {sections.map((s) => (
              <li key={s.label}>
                <a href={s.href} className="opacity-90 hover:underline hover:opacity-100">
                  {s.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
      )}
      <div className="relative mx-auto flex h-16 max-w-7xl items-center gap-2 px-3 sm:gap-3 sm:px-4">
        <details className="disclosure md:hidden">
          <summary className={`icon-button ${dark ? "text-white" : "text-brand"}`}>
            <MenuIcon />
            <span className="sr-only">Menu</span>
          </summary>
          <nav aria-label="Menu principale" className="disclosure-panel left-0 w-64">
            <ul className="flex flex-col gap-1">
              {[...sections, ...portalLinks(activationHref)].map((item) => (
                <li key={item.label}>
                  {item.href.startsWith("/") ? (
                    <Link to={item.href} className="block rounded px-3 py-2 text-ink hover:bg-paper">
                      {item.label}
                    </Link>
                  ) : (
                    <a href={item.href} className="block rounded px-3 py-2 text-ink hover:bg-paper">
                      {item.label}
                    </a>
                  )}
                </li>
              ))}
            </ul>
          </nav>
        </details>

        <Link to={HOME_PATH} aria-label="Novalex Editore, vai alla home" className="shrink-0">
          <Logo inverted={dark} />
        </Link>

        <div className="mx-4 hidden max-w-md flex-1 lg:block">
          <SearchForm links={links} id="ricerca-catalogo" />
        </div>

        <div className="ml-auto flex items-center gap-1 sm:gap-2">
          {/* Its panel is placed against the header's row, not the toggle (which sits left of
              the other buttons): anchored to the toggle, it reached past the left edge of a phone. */}
          <details className="disclosure static lg:hidden">
            <summary className={`icon-button ${dark ? "text-white" : "text-brand"}`}>
              <SearchIcon />
              <span className="sr-only">Mostra la ricerca</span>
            </summary>
            <div className="disclosure-panel top-15 right-3 w-[calc(100%-1.5rem)] max-w-sm sm:right-4 sm:w-[calc(100%-2rem)]">
              <SearchForm links={links} id="ricerca-catalogo-mobile" />
            </div>
          </details>
          <Link
            to={activationHref}
            className={`button-outline hidden sm:inline-flex ${dark ? "border-white text-white hover:bg-white hover:text-brand" : ""}`}
          >
            <KeyIcon className="h-4 w-4" />
            Inserisci codice
          </Link>
          <Link to={HELP_CENTER_PATH} className={`icon-button ${dark ? "text-white" : "text-brand"}`} title="Help Center">
            <HelpIcon />
            <span className="sr-only">Help Center</span>
          </Link>
          {user ? (
            <UserMenu initials={user.initials} dark={dark} />
          ) : (
            // Sign-in leaves the single-page app for the identity provider: a full page load.
            <a href={LOGIN_PATH} className="button-primary">
              Accedi
            </a>
          )}
        </div>
      </div>
    </header>
  );
}
