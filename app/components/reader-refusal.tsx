import { Link } from "react-router";
import { READER_MESSAGES } from "#shared/reader-messages.ts";
import { withShow } from "#app/lib/modals.ts";
import { DASHBOARD_PATH } from "#shared/links.ts";
import { PageHeading } from "./page-heading";

/** The reader's 403 page: the product is not the customer's (nothing of it is shown). */
export function ReaderRefusal() {
  return (
    <section className="mx-auto max-w-2xl px-4 py-16 text-center">
      <p className="font-serif text-6xl font-bold text-accent">403</p>
      <PageHeading title={READER_MESSAGES.noAccess} className="mt-4" />
      <p className="mt-4 text-muted">{READER_MESSAGES.noAccessText}</p>
      <ul className="mt-8 flex flex-wrap justify-center gap-3">
        <li>
          <Link to={DASHBOARD_PATH} className="button-secondary">
            Torna alla dashboard
          </Link>
        </li>
        <li>
          <Link to={withShow(DASHBOARD_PATH, "", "activateProduct")} className="button-outline">
            Attiva prodotto
          </Link>
        </li>
      </ul>
    </section>
  );
}
