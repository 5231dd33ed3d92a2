import type { Toast } from "../../server/lib/flash-toast";

// Toasts close by themselves after 5000 ms (spec §9: the .toast-auto-close animation in
// app.css, so it works without JavaScript), except warnings, which wait for the user.

const STYLES: Record<Toast["type"], string> = {
  success: "border-green-700 bg-green-50 text-green-900",
  info: "border-brand bg-brand-light text-brand",
  error: "border-accent bg-white text-accent-dark",
  warning: "border-gold bg-amber-50 text-ink",
};

/**
 * One toast, rendered by the server: success at the top centre, the others top right (spec §9).
 * Closing needs no JavaScript: a CSS animation hides it after 5 s, and the close control is a
 * checkbox label that hides it through :has().
 */
export function ToastMessage({ toast }: { toast: Toast }) {
  const position = toast.type === "success" ? "left-1/2 -translate-x-1/2" : "right-4";
  const autoClose = toast.type === "warning" ? "" : "toast-auto-close";
  return (
    <div
      role={toast.type === "error" || toast.type === "warning" ? "alert" : "status"}
      className={`toast fixed top-4 z-50 w-[calc(100%-2rem)] max-w-sm rounded-lg border-l-4 p-4 shadow-lg ${position} ${STYLES[toast.type]} ${autoClose}`}
    >
      <div className="flex items-start gap-3">
        <div className="flex-1">
          <p className="font-semibold">{toast.title}</p>
          {toast.message && <p className="mt-1 text-sm">{toast.message}</p>}
          {toast.link && (
            <a href={toast.link.href} className="link mt-1 inline-block text-sm">
              {toast.link.label}
            </a>
          )}
        </div>
        <label className="cursor-pointer text-lg leading-none" title="Chiudi">
          <input type="checkbox" className="sr-only" />
          <span aria-hidden="true">×</span>
          <span className="sr-only">Chiudi</span>
        </label>
      </div>
    </div>
  );
}
