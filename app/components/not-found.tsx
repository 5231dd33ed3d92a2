import { Link } from "react-router";
import { EDU_PATH, HELP_CENTER_PATH, LANDING_PATH } from "#shared/links.ts";
import { TitledHeading } from "./page-title";

export function NotFound() {
  return (
    <section className="mx-auto max-w-2xl px-4 py-16 text-center">
      <p className="font-serif text-6xl font-bold text-accent">404</p>
      <TitledHeading title="Pagina non trovata" className="mt-4" />
      <p className="mt-4 text-muted">L'indirizzo che hai aperto non esiste o è stato spostato.</p>
      <ul className="mt-8 flex flex-wrap justify-center gap-3">
        <li>
          <Link to={LANDING_PATH} className="button-secondary">
            Scopri le nostre proposte
          </Link>
        </li>
        <li>
          <Link to={EDU_PATH} className="button-outline">
            Offerta EDU
          </Link>
        </li>
        <li>
          <Link to={HELP_CENTER_PATH} className="button-outline">
            Help Center
          </Link>
        </li>
      </ul>
    </section>
  );
}
