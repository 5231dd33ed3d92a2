// What a product card of the dashboard shows for an owned product (spec §4 'Product button
// state'): pure, so the card, the unit tests and the browser tests share one definition.
import { NEW_BADGE_WINDOW_MS, READABLE_TYPE_CODES } from "#shared/library-constants.ts";
import { readerOpenPath, readerPath } from "#shared/links.ts";
import { formatDate } from "#shared/format.ts";
import type { LibraryItem, LibraryTypeCode } from "#server/library/types.ts";

// The spec's strings, exported so tests (unit and browser) look for the very same text.
export const START_READING = "Inizia a leggere";
export const CONTINUE_READING = "Continua a leggere";
export const SUPPLEMENTARY_CONTENT = "Contenuti aggiuntivi";
export const BUY_AGAIN = "Acquista di nuovo";
export const ACCESS_EXPIRED = "Accesso scaduto";
export const OPEN_COURSE = "Accedi al corso";
export const OPEN_JOURNAL = "Vai alla rivista";
export const NEW_BADGE = "Novità";
const ACCESS_UNTIL_PREFIX = "Accedi fino al";

/** 'Accedi fino al 12/03/2026' (day in Europe/Rome). */
export function accessUntilLabel(expiresAt: Date): string {
  return `${ACCESS_UNTIL_PREFIX} ${formatDate(expiresAt)}`;
}

/** Ebooks and paper books with digital access: the products the built-in reader opens. */
function isReadable(typeCode: LibraryTypeCode): boolean {
  return (READABLE_TYPE_CODES as readonly string[]).includes(typeCode);
}

/** Expired if the server says so, or if the end of access has passed since the server looked. */
export function isExpired(item: Pick<LibraryItem, "expired" | "expiresAt">, now: Date): boolean {
  return item.expired || (item.expiresAt !== null && item.expiresAt.getTime() < now.getTime());
}

/**
 * 'Novità' (spec §4, §9: 7 days): the spec's gloss "future or very recent dates qualify" is the
 * rule, read as the distance from the publication to now: any future date, and a date less than
 * 7 days ago. Taken literally, "pubdate − now < 7 days" would mark every old title as new. No
 * date: no badge.
 */
export function isNew(pubdate: Date | null, now: Date): boolean {
  if (pubdate === null) return false;
  return now.getTime() - pubdate.getTime() < NEW_BADGE_WINDOW_MS;
}

/**
 * A button of the card: a POST form (opening the reader records the session), the reader itself
 * (a page of its own, reached by a full document navigation), or a link to another page or site.
 */
export type ProductButton =
  | { kind: "post"; label: string; action: string }
  | { kind: "reader"; label: string; href: string }
  | { kind: "link"; label: string; href: string };

/**
 * What the card shows, by state:
 * - `expired`: ebook or paper whose access is over: supplementary content, buy again, and the badge;
 * - `not-started` / `started`: ebook or paper, 'Inizia a leggere' / 'Continua a leggere';
 * - `course`: 'Accedi al corso'; `journal`: 'Vai alla rivista';
 * - `none`: nothing to open (a journal without a link, a course without a platform id).
 */
export type ProductActions = {
  state: "expired" | "not-started" | "started" | "course" | "journal" | "none";
  /** 'Accesso scaduto', or null. */
  badge: string | null;
  buttons: ProductButton[];
  /** 'Accedi fino al dd/mm/yyyy' while access lasts and has an end; otherwise null. */
  accessUntil: string | null;
};

type ActionItem = Pick<LibraryItem, "productId" | "typeCode" | "expired" | "expiresAt" | "reading" | "externalUrl" | "buyLink">;

export function productActions(item: ActionItem, now: Date): ProductActions {
  const expired = isExpired(item, now);
  const accessUntil = item.expiresAt !== null && !expired ? accessUntilLabel(item.expiresAt) : null;
  const base = { badge: null, accessUntil };

  if (isReadable(item.typeCode)) {
    if (expired) {
      return {
        state: "expired",
        badge: ACCESS_EXPIRED,
        accessUntil: null,
        buttons: [
          { kind: "reader", label: SUPPLEMENTARY_CONTENT, href: readerPath(item.productId) },
          { kind: "link", label: BUY_AGAIN, href: item.buyLink },
        ],
      };
    }
    const started = item.reading !== null;
    return {
      ...base,
      state: started ? "started" : "not-started",
      buttons: [{ kind: "post", label: started ? CONTINUE_READING : START_READING, action: readerOpenPath(item.productId) }],
    };
  }

  // Courses and journals live on other platforms, which decide access themselves; the spec gives
  // them one button whatever the expiry (only books get the expired state).
  if (item.externalUrl !== null) {
    const course = item.typeCode === "corso";
    return {
      ...base,
      state: course ? "course" : "journal",
      buttons: [{ kind: "link", label: course ? OPEN_COURSE : OPEN_JOURNAL, href: item.externalUrl }],
    };
  }
  return { ...base, state: "none", buttons: [] };
}
