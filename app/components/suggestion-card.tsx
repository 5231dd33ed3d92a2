import { formatEuro } from "#shared/euro.ts";
import type { Suggestion } from "#server/library/types.ts";
import { NEW_BADGE, isNew } from "#app/lib/product-state.ts";
import { ProductCover } from "./product-cover";
import { SiteLink } from "./site-link";

/** Course cards carry fixed placeholder details (spec §9): the catalogue has no such fields. */
const COURSE_FORMAT_PLACEHOLDER = "Aula + Streaming";
const COURSE_LESSONS_PLACEHOLDER = "29 Lezioni, 24 Esercitazioni";
const SUGGESTION_CTA = "Scopri";

/** A product suggested in 'Libri per te', 'Riviste per te', 'Corsi per te': its page on the shop. */
export function SuggestionCard({
  suggestion,
  now,
  headingLevel = 3,
}: {
  suggestion: Suggestion;
  now: Date;
  headingLevel?: 2 | 3 | 4;
}) {
  const Heading = `h${headingLevel}` as const;
  return (
    <article className="card flex w-full flex-col p-4">
      <ProductCover cover={suggestion.cover} className="mx-auto max-w-32" />
      <div className="mt-4 flex flex-wrap items-center gap-2">
        <p className="kicker">{suggestion.typeName}</p>
        {isNew(suggestion.pubdate, now) && <p className="badge-new">{NEW_BADGE}</p>}
      </div>
      <Heading className="mt-1 font-serif text-base font-bold leading-snug text-brand">{suggestion.name}</Heading>
      {suggestion.shortAuthors && <p className="text-sm text-ink/80">{suggestion.shortAuthors}</p>}
      {suggestion.typeCode === "corso" && (
        <ul className="mt-2 space-y-0.5 text-sm text-muted">
          <li>{COURSE_FORMAT_PLACEHOLDER}</li>
          <li>{COURSE_LESSONS_PLACEHOLDER}</li>
        </ul>
      )}
      <div className="mt-auto flex items-center justify-between gap-2 pt-4">
        <p className="text-lg font-bold text-ink">{formatEuro(suggestion.priceCents)}</p>
        <SiteLink href={suggestion.buyLink} className="button-outline">
          {SUGGESTION_CTA}
          <span className="sr-only">: {suggestion.name}</span>
        </SiteLink>
      </div>
    </article>
  );
}
