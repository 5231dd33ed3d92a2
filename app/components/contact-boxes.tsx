import type { ContactBox } from "../../server/library/types";
import { SiteLink } from "./site-link";

/** The dashboard's four ways to reach the publisher (customer care, editors, adoptions, sales). */
export function ContactBoxes({ boxes, headingLevel = 3 }: { boxes: ContactBox[]; headingLevel?: 2 | 3 }) {
  const Heading = `h${headingLevel}` as const;
  if (boxes.length === 0) return null;
  return (
    <ul className="grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
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
    </ul>
  );
}
