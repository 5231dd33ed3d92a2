// The addresses of /my-products/: the tab (?tab=inattivi) and the page of the purchase history
// (?pagina=2) travel in the query string, so tabs and pages are plain links that work without
// JavaScript.
import { MY_PRODUCTS_PATH } from "#shared/links.ts";

const TAB_PARAM = "tab";
const PAGE_PARAM = "pagina";

export type PurchaseTab = "attivi" | "inattivi";

/** The tab a query value names; anything else shows 'Attivi'. */
export function parseTab(value: string | null): PurchaseTab {
  return value === "inattivi" ? "inattivi" : "attivi";
}

/** The history page a query value names: a whole number from 1; anything else is page 1. */
export function parsePage(value: string | null): number {
  if (value === null || !/^[1-9]\d{0,5}$/.test(value)) return 1;
  return Number(value);
}

/** The address of a tab and history page (the defaults left out). */
export function myProductsHref({ tab, page }: { tab: PurchaseTab; page: number }): string {
  const query = new URLSearchParams();
  if (tab !== "attivi") query.set(TAB_PARAM, tab);
  if (page > 1) query.set(PAGE_PARAM, String(page));
  const search = query.toString();
  return search ? `${MY_PRODUCTS_PATH}?${search}` : MY_PRODUCTS_PATH;
}

export function readLocation(search: string): { tab: PurchaseTab; page: number } {
  const query = new URLSearchParams(search);
  return { tab: parseTab(query.get(TAB_PARAM)), page: parsePage(query.get(PAGE_PARAM)) };
}
