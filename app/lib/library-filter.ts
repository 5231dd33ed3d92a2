// The dashboard's filter tabs (spec §2): Tutti, Libri, Corsi, Riviste, each with a count. The
// filter travels in the query string (?filtro=libri), so the tabs are plain links that work
// without JavaScript.
import type { LibraryTypeCode } from "#server/library/types.ts";

const FILTER_PARAM = "filtro";

export type LibraryFilter = "tutti" | "libri" | "corsi" | "riviste";

export type LibraryFilterDefinition = {
  id: LibraryFilter;
  label: string;
  /** The product types the tab shows; null: every type. */
  types: readonly LibraryTypeCode[] | null;
};

export const LIBRARY_FILTERS: readonly LibraryFilterDefinition[] = [
  { id: "tutti", label: "Tutti", types: null },
  { id: "libri", label: "Libri", types: ["ebook", "paper_flex", "paper_hard"] },
  { id: "corsi", label: "Corsi", types: ["corso"] },
  { id: "riviste", label: "Riviste", types: ["rivista"] },
];

const BY_ID = new Map(LIBRARY_FILTERS.map((f) => [f.id, f]));

/** The filter a query value names; anything else (absent, misspelt, other case) shows everything. */
export function parseFilter(value: string | null | undefined): LibraryFilter {
  const found = value == null ? undefined : BY_ID.get(value as LibraryFilter);
  return found ? found.id : "tutti";
}

/** The address of a tab: the filter in the query string. */
export function filterHref(basePath: string, filter: LibraryFilter): string {
  return `${basePath}?${FILTER_PARAM}=${filter}`;
}

function matches(filter: LibraryFilter, typeCode: LibraryTypeCode): boolean {
  const types = BY_ID.get(filter)?.types;
  return types == null || types.includes(typeCode);
}

export function applyFilter<T extends { typeCode: LibraryTypeCode }>(items: readonly T[], filter: LibraryFilter): T[] {
  return items.filter((item) => matches(filter, item.typeCode));
}

export function countByFilter(items: readonly { typeCode: LibraryTypeCode }[]): Record<LibraryFilter, number> {
  const counts: Record<LibraryFilter, number> = { tutti: 0, libri: 0, corsi: 0, riviste: 0 };
  for (const filter of LIBRARY_FILTERS) {
    counts[filter.id] = items.filter((item) => matches(filter.id, item.typeCode)).length;
  }
  return counts;
}
