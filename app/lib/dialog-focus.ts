// Where the focus goes when a dialog closes: back to what opened it (WCAG 2.4.3).
import { useState } from "react";

/** The id of <main>: the skip link's target, and where the focus goes when a dialog had no opener. */
export const MAIN_CONTENT_ID = "contenuto";

/**
 * What had the focus as the dialog first rendered: its opener (the link or button the customer
 * pressed), read before the dialog takes the focus. Null when it opened with the page.
 */
export function useOpener(): HTMLElement | null {
  const [opener] = useState(() => {
    if (typeof document === "undefined") return null;
    const focused = document.activeElement;
    return focused instanceof HTMLElement && focused !== document.body ? focused : null;
  });
  return opener;
}

/**
 * Gives the focus back to the opener. One that can no longer take it (a menu item whose menu
 * closed as the dialog opened) passes it to its menu's button; with neither (the dialog came
 * with the page, or its opener is gone) it goes to the start of the main content.
 */
export function giveFocusBack(opener: HTMLElement | null) {
  const candidates = [opener, opener?.closest("details")?.querySelector("summary"), document.getElementById(MAIN_CONTENT_ID)];
  for (const candidate of candidates) {
    candidate?.focus();
    if (candidate && document.activeElement === candidate) return;
  }
}
