// A page's title and its heading, said once: the browser's title (its tab, its history, what a
// screen reader announces on arrival) and the page's <h1>. The heading shows `children` when it
// says more than the title (a greeting, a question). A page with a form uses PageHeading
// (page-heading.tsx), which adds what a refusal needs; this is the part every page loads (the
// root's 404 page is one), so it stays small.
import type { ReactNode } from "react";

const SITE_NAME = "Novalex Editore";

/** The document title of a page, and of a page showing a refusal. */
export function documentTitle(title: string, refused = false) {
  return `${refused ? "Errore: " : ""}${title} · ${SITE_NAME}`;
}

export function TitledHeading({
  title,
  className,
  refused = false,
  children,
}: {
  title: string;
  className?: string;
  refused?: boolean;
  children?: ReactNode;
}) {
  return (
    <>
      <title>{documentTitle(title, refused)}</title>
      <h1 className={`${className ? `${className} ` : ""}font-serif text-3xl font-bold text-brand`}>{children ?? title}</h1>
    </>
  );
}
