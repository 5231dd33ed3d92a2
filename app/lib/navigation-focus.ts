// After a navigation on the client the browser keeps focus where it was (often on a link that no
// longer exists, which drops it to the top of the page), and a screen reader says nothing. A full
// page load starts at the top and reads the title; this does the same: when the path changes,
// focus goes to the new page's heading. Not on a change of the query (a tab, a filter, a dialog
// of the same page) nor on the reply to a form, which stays on its page (its error summary takes
// focus, page-heading.tsx), unless what had the focus went with the reply (a button that ended
// what it showed, as 'Esci da tutti gli altri'): focus would be nowhere, so the heading takes it.
// Scrolling stays ScrollRestoration's.
import { useEffect, useRef } from "react";
import { useLocation } from "react-router";

export function useFocusHeadingOnNavigation() {
  const { pathname, key } = useLocation();
  const shown = useRef({ pathname, key });
  useEffect(() => {
    const before = shown.current;
    if (before.key === key) return;
    shown.current = { pathname, key };
    const focusLost = document.activeElement === null || document.activeElement === document.body;
    if (before.pathname === pathname && !focusLost) return;
    const heading = document.querySelector<HTMLElement>("main h1");
    if (!heading) return;
    // Focusable by script only: Tab does not stop on it.
    if (!heading.hasAttribute("tabindex")) heading.tabIndex = -1;
    heading.focus({ preventScroll: true });
  }, [pathname, key]);
}
