import { useLocation } from "react-router";
import { MESSAGES } from "#shared/messages.ts";
import { withoutShow } from "#app/lib/modals.ts";
import { ModalDialog } from "./modal-dialog";
import { ActivationForm } from "./activation-form";

/** The activation modal, open on any page whose address says ?show=activateProduct (spec §2, §4). */
export function ActivationDialog() {
  const { pathname, search } = useLocation();
  const cancelTo = withoutShow(pathname, search);
  return (
    <ModalDialog labelledBy="activation-title" closeTo={cancelTo}>
      <ActivationIntro />
      <ActivationForm cancelTo={cancelTo} />
    </ModalDialog>
  );
}

/** Title and explanation: an h2 in the modal, the h1 of the page version. */
export function ActivationIntro({ heading: Heading = "h2" }: { heading?: "h1" | "h2" }) {
  return (
    <>
      <Heading id="activation-title" className="font-serif text-2xl font-bold text-brand">
        {MESSAGES.activationTitle}
      </Heading>
      <p className="mt-3 text-ink/85">
        Inserisci il codice stampato nel tuo libro: avrai accesso ai contenuti digitali per 6 mesi dalla data di attivazione.
      </p>
    </>
  );
}
