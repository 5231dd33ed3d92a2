import { useEffect, useRef, type ReactNode } from "react";
import { useNavigate } from "react-router";
import { giveFocusBack, useOpener } from "#app/lib/dialog-focus.ts";

/**
 * The shell of the portal's modals: a `<dialog>` the server renders open over a backdrop, shown
 * when the address (?show=…, ?disdici) or an action's reply asks for it, so it works without
 * JavaScript too (the layout puts it first in the page then, so that the first Tab reaches it).
 * With JavaScript it becomes a real modal (the page behind is inert, Tab stays inside), Escape
 * goes to `closeTo` as its 'Annulla' does, and the focus goes back to what opened it.
 *
 * The `<dialog>` is the whole backdrop, so it looks the same shown as a modal (in the top layer)
 * and not.
 */
export function ModalDialog({
  labelledBy,
  describedBy,
  id,
  closeTo,
  children,
}: {
  labelledBy: string;
  describedBy?: string;
  id?: string;
  /** Where Escape goes, as the dialog's 'Annulla'; without it Escape only hides the dialog. */
  closeTo?: string;
  children: ReactNode;
}) {
  const ref = useModal();
  const navigate = useNavigate();
  return (
    <dialog
      ref={ref}
      id={id}
      open
      aria-labelledby={labelledBy}
      aria-describedby={describedBy}
      aria-modal="true"
      onCancel={(event) => {
        if (closeTo === undefined) return;
        event.preventDefault();
        void navigate(closeTo, { replace: true });
      }}
      className="fixed inset-0 z-50 size-full max-h-none max-w-none place-items-center bg-black/40 p-4 backdrop:bg-transparent open:grid"
    >
      <div className="relative w-full max-w-md rounded-lg bg-white p-6 shadow-xl">{children}</div>
    </dialog>
  );
}

/**
 * Shows the server's open dialog as a modal, keeping the focus where it already was inside it
 * (an autoFocus, or a field the customer reached before the scripts loaded) and otherwise giving
 * it to the first control; gives it back to the opener when the dialog goes away.
 */
function useModal() {
  const ref = useRef<HTMLDialogElement>(null);
  const opener = useOpener();
  useEffect(() => {
    const dialog = ref.current!;
    const inside = dialog.contains(document.activeElement) ? (document.activeElement as HTMLElement) : null;
    // showModal() refuses a dialog already open as a non-modal one.
    dialog.close();
    dialog.showModal();
    inside?.focus();
    return () => giveFocusBack(opener);
  }, [opener]);
  return ref;
}
