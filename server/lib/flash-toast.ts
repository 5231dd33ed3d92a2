// Toasts that survive a redirect: an action puts one in a short-lived signed cookie, the next
// page shows it (with or without JavaScript) and clears the cookie.
import { createCookie } from "react-router";

type ToastType = "success" | "info" | "error" | "warning";
export type Toast = { type: ToastType; title: string; message?: string; link?: { href: string; label: string } };

function isToast(value: unknown): value is Toast {
  const t = value as Toast | null;
  return !!t && typeof t.title === "string" && ["success", "info", "error", "warning"].includes(t.type);
}

export function createFlashToasts({ secret, secure }: { secret: string; secure: boolean }) {
  const cookie = createCookie(secure ? "__Host-portal_toast" : "portal_toast", {
    path: "/",
    httpOnly: true,
    sameSite: "lax",
    secure,
    maxAge: 60,
    secrets: [secret],
  });
  return {
    /** The toast this request carries, if any (a tampered cookie reads as none). */
    async read(request: Request): Promise<Toast | null> {
      const value: unknown = await cookie.parse(request.headers.get("cookie"));
      return isToast(value) ? value : null;
    },
    /** Whether the request carries the cookie at all (then the response clears it). */
    isPresent: (request: Request) => (request.headers.get("cookie") ?? "").includes(`${cookie.name}=`),
    set: (toast: Toast) => cookie.serialize(toast),
    clear: () => cookie.serialize("", { maxAge: 0 }),
  };
}
