import { useEffect, useRef } from "react";
import { Link, useLocation } from "react-router";
import { withShow } from "#app/lib/modals.ts";
import {
  CHANGE_PASSWORD_PATH,
  DASHBOARD_PATH,
  HELP_CENTER_PATH,
  HOME_PATH,
  href,
  MY_PRODUCTS_PATH,
  PREFERENCES_PATH,
  PROFILE_PATH,
} from "#shared/links.ts";

/** User menu auto-close (spec §9: 3000 ms). */
const USER_MENU_AUTO_CLOSE_MS = 3000;

type MenuItem = { label: string; to: string };

/** Where the menu is short: the home page and the dashboard, reached with its slash or without. */
const SHORT_MENU_PATHS: readonly string[] = [HOME_PATH, DASHBOARD_PATH, href("/dashboard")];

/** On / and /dashboard/ the menu is short; elsewhere it lists every account page (spec §2). */
function userMenuItems(pathname: string, search: string): MenuItem[] {
  const logout = { label: "Esci", to: withShow(pathname, search, "userLogout") };
  const account = { label: "Il mio account", to: PROFILE_PATH };
  if (SHORT_MENU_PATHS.includes(pathname)) return [account, logout];
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
 * it also closes by itself 3 seconds after it opened (also when that was before the scripts
 * loaded) or after the pointer left it, but never while the pointer or the keyboard's focus is
 * inside it: someone Tabbing through its items or reading them keeps it open. Escape closes it
 * and gives the focus back to its button; so does a click elsewhere (without the focus).
 */
export function UserMenu({ initials, dark }: { initials: string; dark: boolean }) {
  const { pathname, search } = useLocation();
  const menu = useRef<HTMLDetailsElement>(null);

  useEffect(() => {
    const details = menu.current;
    if (!details) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    // A click opens the menu and focuses its button too, but only focus the keyboard moved (the
    // one a browser shows) says that someone is going through the items.
    let pointerInside = details.matches(":hover");
    let focusInside = details.querySelector(":focus-visible") !== null;
    const close = () => details.removeAttribute("open");
    /** Closes the menu `ms` from now, unless it is in use (then leaving it calls this again). */
    const closeLater = (ms: number) => {
      clearTimeout(timer);
      if (details.open && !pointerInside && !focusInside) timer = setTimeout(close, ms);
    };
    const onToggle = () => closeLater(Math.max(0, USER_MENU_AUTO_CLOSE_MS - openFor(details)));
    const onPointer = (event: PointerEvent) => {
      pointerInside = event.type === "pointerenter";
      closeLater(USER_MENU_AUTO_CLOSE_MS);
    };
    const onFocusIn = (event: FocusEvent) => {
      focusInside = (event.target as Element).matches(":focus-visible");
      closeLater(USER_MENU_AUTO_CLOSE_MS);
    };
    const onFocusOut = (event: FocusEvent) => {
      // Moving between its items is no leaving: the focusin that follows says where focus is.
      if (details.contains(event.relatedTarget as Node | null)) return;
      focusInside = false;
      closeLater(USER_MENU_AUTO_CLOSE_MS);
    };
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key !== "Escape" || !details.open) return;
      event.preventDefault();
      close();
      details.querySelector("summary")?.focus();
    };
    const onOutsideClick = (event: MouseEvent) => {
      if (details.open && !details.contains(event.target as Node)) close();
    };
    details.addEventListener("toggle", onToggle);
    details.addEventListener("pointerenter", onPointer);
    details.addEventListener("pointerleave", onPointer);
    details.addEventListener("focusin", onFocusIn);
    details.addEventListener("focusout", onFocusOut);
    details.addEventListener("keydown", onKeyDown);
    document.addEventListener("click", onOutsideClick);
    // Opened before the scripts loaded: its toggle event is gone, the rest of its time is not.
    onToggle();
    return () => {
      clearTimeout(timer);
      details.removeEventListener("toggle", onToggle);
      details.removeEventListener("pointerenter", onPointer);
      details.removeEventListener("pointerleave", onPointer);
      details.removeEventListener("focusin", onFocusIn);
      details.removeEventListener("focusout", onFocusOut);
      details.removeEventListener("keydown", onKeyDown);
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
