import { useId } from "react";
import type { Toast } from "#server/lib/flash-toast.ts";

// Success and info toasts close by themselves after 5000 ms (spec §9: the .toast-auto-close
// animation in app.css, so it works without JavaScript), and wait while the pointer or the focus
// is on them. Warnings wait for the user (spec §4), and so do errors: a message about something
// that went wrong is never taken away before it has been read.
const AUTO_CLOSING: ReadonlySet<Toast["type"]> = new Set(["success", "info"]);

const STYLES: Record<Toast["type"], string> = {
  success: "border-green-700 bg-green-50 text-green-900",
  info: "border-brand bg-brand-light text-brand",
  error: "border-accent bg-white text-accent-dark",
  warning: "border-gold bg-amber-50 text-ink",
};

/**
 * One toast, rendered by the server: success at the top centre, the others top right (spec §9).
 * It is a non-modal <dialog open> so that its close button needs no JavaScript: a button of a
 * form with method="dialog" closes the dialog it is in. The live region is the element around it.
 */
export function ToastMessage({ toast }: { toast: Toast }) {
  const titleId = useId();
  const position = toast.type === "success" ? "left-1/2 -translate-x-1/2" : "right-4";
  const autoClose = AUTO_CLOSING.has(toast.type) ? "toast-auto-close" : "";
  return (
    <div
      role={toast.type === "error" || toast.type === "warning" ? "alert" : "status"}
      className={`toast fixed top-4 z-50 w-[calc(100%-2rem)] max-w-sm ${position} ${autoClose}`}
    >
      <dialog
        open
        aria-labelledby={titleId}
        className={`relative w-full rounded-lg border-l-4 p-4 shadow-lg ${STYLES[toast.type]}`}
      >
        <div className="flex items-start gap-3">
          <div className="flex-1">
            <p id={titleId} className="font-semibold">
              {toast.title}
            </p>
            {toast.message && <p className="mt-1 text-sm">{toast.message}</p>}
            {toast.link && (
              <a href={toast.link.href} className="link mt-1 inline-block text-sm">
                {toast.link.label}
              </a>
            )}
          </div>
          <form method="dialog">
            <button
              type="submit"
              title="Chiudi"
              className="-m-1 grid h-8 w-8 place-items-center rounded text-xl leading-none hover:bg-black/5"
            >
              <span aria-hidden="true">×</span>
              <span className="sr-only">Chiudi</span>
            </button>
          </form>
        </div>
      </dialog>
    </div>
  );
}
