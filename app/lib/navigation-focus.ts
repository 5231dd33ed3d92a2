// After a navigation on the client the browser keeps focus where it was (often on a link that no
// longer exists, which drops it to the top of the page), and a screen reader says nothing. A full
// page load starts at the top and reads the title; this does the same: when the path changes,
// focus goes to the new page's heading. Not on a change of the query (a tab, a filter, a dialog
// of the same page) nor on the reply to a form, which stays on its page (its error summary takes
// focus, page-heading.tsx). Scrolling stays ScrollRestoration's.
import { useEffect, useRef } from "react";
import { useLocation } from "react-router";

export function useFocusHeadingOnNavigation() {
  const { pathname } = useLocation();
  const shown = useRef(pathname);
  useEffect(() => {
    if (shown.current === pathname) return;
    shown.current = pathname;
    const heading = document.querySelector<HTMLElement>("main h1");
    if (!heading) return;
    // Focusable by script only: Tab does not stop on it.
    if (!heading.hasAttribute("tabindex")) heading.tabIndex = -1;
    heading.focus({ preventScroll: true });
  }, [pathname]);
}
