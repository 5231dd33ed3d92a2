// The dashboard's suggestions ('Libri per te', 'Riviste per te', 'Corsi per te') are the same for
// everyone of a profession: their cards are rendered once per cached list (see prerender.server).
import type { RouterContextProvider } from "react-router";
import type { Suggestion } from "#server/library/types.ts";
import { CarouselItems } from "#app/components/carousel.tsx";
import { SuggestionCard } from "#app/components/suggestion-card.tsx";
import { prerender } from "./prerender.server";
import type { Prerendered } from "./prerendered";

export type SuggestionCarousel = { prerendered: Prerendered; count: number };

/** A list's carousel items, or null when the section is not shown (not for the profession, or empty). */
export function suggestionCarousel(
  context: Readonly<RouterContextProvider>,
  name: string,
  list: Suggestion[] | null,
  now: Date,
): SuggestionCarousel | null {
  if (!list || list.length === 0) return null;
  const prerendered = prerender(context, {
    name,
    source: list,
    now,
    render: () => (
      <CarouselItems>
        {list.map((suggestion) => (
          <SuggestionCard key={suggestion.productId} suggestion={suggestion} now={now} />
        ))}
      </CarouselItems>
    ),
  });
  return { prerendered, count: list.length };
}
