import { LIBRARY_FILTERS, filterHref, type LibraryFilter } from "#app/lib/library-filter.ts";
import { TabLinks } from "./tab-links";

/**
 * The filter tabs over the customer's products: links to ?filtro=..., so they work without
 * JavaScript; with it they navigate in place and keep the scroll position. `anchor` (an element
 * id) brings a full page load back to the product list.
 */
export function LibraryTabs({
  counts,
  current,
  basePath,
  anchor,
}: {
  counts: Record<LibraryFilter, number>;
  current: LibraryFilter;
  basePath: string;
  anchor?: string;
}) {
  return (
    <TabLinks
      label="Filtra i tuoi prodotti"
      current={current}
      tabs={LIBRARY_FILTERS.map((filter) => ({
        id: filter.id,
        label: filter.label,
        href: `${filterHref(basePath, filter.id)}${anchor ? `#${anchor}` : ""}`,
        count: counts[filter.id],
      }))}
    />
  );
}
