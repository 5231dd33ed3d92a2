import { Link } from "react-router";
import { LIBRARY_FILTERS, filterHref, type LibraryFilter } from "../lib/library-filter";

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
    <nav aria-label="Filtra i tuoi prodotti">
      <ul className="flex flex-wrap gap-x-1 border-b border-line">
        {LIBRARY_FILTERS.map((filter) => {
          const active = filter.id === current;
          return (
            <li key={filter.id}>
              <Link
                to={`${filterHref(basePath, filter.id)}${anchor ? `#${anchor}` : ""}`}
                preventScrollReset
                aria-current={active ? "page" : undefined}
                className={`-mb-px inline-flex items-center gap-2 border-b-2 px-3 py-2 text-sm font-semibold ${
                  active ? "border-accent text-brand" : "border-transparent text-muted hover:border-line hover:text-brand"
                }`}
              >
                {filter.label}
                <span
                  className={`rounded-full px-2 py-0.5 text-xs ${active ? "bg-accent text-white" : "bg-brand-light text-brand"}`}
                >
                  {counts[filter.id]}
                </span>
              </Link>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
