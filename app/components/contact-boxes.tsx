import type { ContactBox } from "#server/library/types.ts";
import { SiteLink } from "./site-link";

/** The class of the contact boxes' list (its items are rendered once: see lib/dashboard-boxes.server). */
export const CONTACT_BOXES_CLASS = "grid gap-4 sm:grid-cols-2 lg:grid-cols-4";

/** The dashboard's four ways to reach the publisher (customer care, editors, adoptions, sales): the list's items. */
export function ContactBoxItems({ boxes, headingLevel = 3 }: { boxes: ContactBox[]; headingLevel?: 2 | 3 }) {
  const Heading = `h${headingLevel}` as const;
  return (
    <>
      {boxes.map((box) => (
        <li key={box.title} className="card flex flex-col p-5">
          <Heading className="font-serif text-lg font-bold text-brand">{box.title}</Heading>
          <p className="mt-2 text-sm text-ink/80">{box.description}</p>
          <SiteLink href={box.url} className="link mt-auto pt-4 text-sm">
            {box.cta}
            <span className="sr-only">: {box.title}</span>
          </SiteLink>
        </li>
      ))}
    </>
  );
}
