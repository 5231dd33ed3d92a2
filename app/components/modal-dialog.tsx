import type { ReactNode } from "react";

/**
 * The shell of the portal's modals: a `<dialog>` the server renders open over a backdrop, shown
 * when the address (?show=…, ?disdici) or an action's reply asks for it, so it works without
 * JavaScript too.
 */
export function ModalDialog({
  labelledBy,
  describedBy,
  id,
  children,
}: {
  labelledBy: string;
  describedBy?: string;
  id?: string;
  children: ReactNode;
}) {
  return (
    <div id={id} className="fixed inset-0 z-50 grid place-items-center bg-black/40 p-4">
      <dialog
        open
        aria-labelledby={labelledBy}
        aria-describedby={describedBy}
        aria-modal="true"
        className="relative w-full max-w-md rounded-lg bg-white p-6 shadow-xl"
      >
        {children}
      </dialog>
    </div>
  );
}
