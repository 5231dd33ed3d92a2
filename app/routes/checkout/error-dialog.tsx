// The checkout's dialog 'Errore' (spec §5, §8), rendered by the server; 'Chiudi' closes it
// without JavaScript. With JavaScript the page stays where the customer pressed 'Completa
// l'acquisto': the dialog is brought into view there and takes the focus, so it is seen and read out;
// Escape closes it as 'Chiudi' does, and closed it gives the focus back to what was pressed. It sits
// in the page, not over it: not a modal.
import { useEffect, useRef } from "react";
import { giveFocusBack, useOpener } from "#app/lib/dialog-focus.ts";

export type Notice = { title: string; text: string; detail?: string | null; seq?: number };

export function ErrorDialog({ notice }: { notice: Notice }) {
  const ref = useRef<HTMLDialogElement>(null);
  const opener = useOpener();
  useEffect(() => {
    ref.current?.scrollIntoView({ block: "center" });
    ref.current?.focus();
  }, []);
  return (
    <dialog
      ref={ref}
      open
      tabIndex={-1}
      onKeyDown={(event) => {
        if (event.key === "Escape") ref.current?.close();
      }}
      onClose={() => giveFocusBack(opener)}
      aria-labelledby="checkout-error-title"
      className="relative mx-auto my-4 w-full max-w-xl rounded-lg border border-accent bg-white p-5 shadow-lg"
    >
      <h2 id="checkout-error-title" className="flex items-center gap-2 font-serif text-xl font-bold text-accent-dark">
        <span aria-hidden="true">⚠</span>
        {notice.title}
      </h2>
      <p role="alert" className="mt-2">
        {notice.text}
      </p>
      {notice.detail && <p className="mt-1 text-sm">{notice.detail}</p>}
      <form method="dialog" className="mt-4 text-right">
        <button type="submit" className="button-outline">
          Chiudi
        </button>
      </form>
    </dialog>
  );
}
