// Business constants of the library (spec §9), shared by the services and the pages.

/** The EDU subscription product (spec §3: code abbonamentoedu). */
export const EDU_PRODUCT_CODE = "abbonamentoedu";
/** Length of the EDU offer, and what an eBook+EDU cover tag adds to EDU. */
export const EDU_MONTHS = 6;
/** Free access granted by an activation code: 6 months from code entry. */
export const ACTIVATION_ACCESS_MONTHS = 6;
/** 'Novità' badge: pubdate − now below 7 days. */
export const NEW_BADGE_WINDOW_MS = 604_800_000;
/** Suggestion carousels: at most this many books, journals and courses each. */
export const SUGGESTION_LIMIT = 20;
/** The dashboard asks whether the user has active orders with this limit. */
export const ACTIVE_ORDERS_LIMIT = 2;

/**
 * `months` calendar months after `from`, in UTC; a day the target month lacks becomes its
 * last day (31 August + 6 months = 28 or 29 February), as customers count months.
 */
export function addMonths(from: Date, months: number): Date {
  const result = new Date(from);
  const day = result.getUTCDate();
  result.setUTCDate(1);
  result.setUTCMonth(result.getUTCMonth() + months);
  const lastDay = new Date(Date.UTC(result.getUTCFullYear(), result.getUTCMonth() + 1, 0)).getUTCDate();
  result.setUTCDate(Math.min(day, lastDay));
  return result;
}

/**
 * The product types read in the reader: eBooks and paper books with digital access (a paper
 * book reaches the dashboard only through its code, which gives the digital edition).
 */
export const READABLE_TYPE_CODES = ["ebook", "paper_flex", "paper_hard"] as const;

/**
 * The only section of an eBook a customer whose access has expired still sees (spec §4), hence
 * the status of their reading session (spec §3; see readingStatus in reading.ts).
 */
export const NO_CHAPTER_STATUS = "Contenuti aggiuntivi";
