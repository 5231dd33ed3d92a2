// A page's title and its heading, said once: the browser's title (its tab, its history, what a
// screen reader announces on arrival) and the page's <h1>. The heading shows `children` when it
// says more than the title (a greeting, a question).
import type { ReactNode } from "react";

const SITE_NAME = "Novalex Editore";

export function PageHeading({ title, className, children }: { title: string; className?: string; children?: ReactNode }) {
  return (
    <>
      <title>{`${title} · ${SITE_NAME}`}</title>
      <h1 className={`${className ? `${className} ` : ""}font-serif text-3xl font-bold text-brand`}>{children ?? title}</h1>
    </>
  );
}
