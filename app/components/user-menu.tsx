import { useEffect, useRef } from "react";
import { Link, useLocation } from "react-router";
import { withShow } from "../lib/modals";
import {
  CHANGE_PASSWORD_PATH,
  DASHBOARD_PATH,
  HELP_CENTER_PATH,
  MY_PRODUCTS_PATH,
  PREFERENCES_PATH,
  PROFILE_PATH,
} from "../../shared/links.ts";

/** User menu auto-close (spec §9: 3000 ms). */
const USER_MENU_AUTO_CLOSE_MS = 3000;

type MenuItem = { label: string; to: string };

/** On / and /dashboard/ the menu is short; elsewhere it lists every account page (spec §2). */
function userMenuItems(pathname: string, search: string): MenuItem[] {
  const logout = { label: "Esci", to: withShow(pathname, search, "userLogout") };
  const account = { label: "Il mio account", to: PROFILE_PATH };
  if (pathname === "/" || pathname === "/dashboard" || pathname === DASHBOARD_PATH) return [account, logout];
  return [
    account,
    { label: "I miei acquisti", to: MY_PRODUCTS_PATH },
    { label: "Preferenze", to: PREFERENCES_PATH },
    { label: "Attiva prodotto", to: withShow(pathname, search, "activateProduct") },
    { label: "Help Center", to: HELP_CENTER_PATH },
    { label: "Cambio password", to: CHANGE_PASSWORD_PATH },
    logout,
  ];
}

/**
 * How long the menu has been open, in ms: app.css runs a stopwatch animation on the open menu,
 * which starts when it opens whether the scripts have loaded or not. 0 if the browser cannot say.
 */
export function openFor(details: Element): number {
  const stopwatch = details.getAnimations?.().find((a) => (a as CSSAnimation).animationName === "user-menu-stopwatch");
  const elapsed = stopwatch?.currentTime;
  return typeof elapsed === "number" ? elapsed : 0;
}

/**
 * The header's user button: a <details> menu, so it opens without JavaScript. With JavaScript
 * it also closes 3 seconds after it opened (also when that was before the scripts loaded) or
 * on a click elsewhere.
 */
export function UserMenu({ initials, dark }: { initials: string; dark: boolean }) {
  const { pathname, search } = useLocation();
  const menu = useRef<HTMLDetailsElement>(null);

  useEffect(() => {
    const details = menu.current;
    if (!details) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const close = () => details.removeAttribute("open");
    const onToggle = () => {
      clearTimeout(timer);
      if (details.open) timer = setTimeout(close, Math.max(0, USER_MENU_AUTO_CLOSE_MS - openFor(details)));
    };
    const onOutsideClick = (event: MouseEvent) => {
      if (details.open && !details.contains(event.target as Node)) close();
    };
    details.addEventListener("toggle", onToggle);
    document.addEventListener("click", onOutsideClick);
    // Opened before the scripts loaded: its toggle event is gone, the rest of its time is not.
    onToggle();
    return () => {
      clearTimeout(timer);
      details.removeEventListener("toggle", onToggle);
      document.removeEventListener("click", onOutsideClick);
    };
  }, []);

  // A navigation closes the menu; hydration is not one (the menu may have been opened before).
  const shownFor = useRef(pathname + search);
  useEffect(() => {
    if (shownFor.current === pathname + search) return;
    shownFor.current = pathname + search;
    menu.current?.removeAttribute("open");
  }, [pathname, search]);

  return (
    <details ref={menu} className="disclosure user-menu">
      <summary
        className={`grid h-10 w-10 cursor-pointer list-none place-items-center rounded-full font-semibold ${dark ? "bg-white text-brand" : "bg-brand text-white"}`}
        aria-label="Menu utente"
      >
        {initials}
      </summary>
      <nav aria-label="Menu utente" className="disclosure-panel right-0 w-56">
        <ul className="flex flex-col gap-1">
          {userMenuItems(pathname, search).map((item) => (
            <li key={item.label}>
              <Link to={item.to} className="block rounded px-3 py-2 text-ink hover:bg-paper">
                {item.label}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
    </details>
  );
}
