import { useState } from "react";
import { Form, Link, useLocation } from "react-router";
import { ModalDialog } from "./modal-dialog";
import { withoutShow } from "#app/lib/modals.ts";
import { LOGOUT_PATH } from "#shared/links.ts";

/**
 * 'Disconnessione utente' (spec §4): shown when the address says ?show=userLogout. Conferma
 * posts to /logout/; with JavaScript it also opens the storefront's logout page in a new tab.
 */
export function LogoutDialog({ storefrontLogoutUrl }: { storefrontLogoutUrl: string }) {
  const { pathname, search } = useLocation();
  const stay = withoutShow(pathname, search);
  const [signingOut, setSigningOut] = useState(false);
  return (
    <ModalDialog labelledBy="logout-title" closeTo={stay}>
      <h2 id="logout-title" className="font-serif text-2xl font-bold text-brand">
        Disconnessione utente
      </h2>
      <p className="mt-3">Vuoi davvero uscire dal tuo account?</p>
      {signingOut && (
        <p role="status" className="mt-3 text-sm text-muted">
          Signing you out...
        </p>
      )}
      {/* A full page post: the sign-out continues at the identity provider, outside the app. */}
      <Form
        method="post"
        action={LOGOUT_PATH}
        reloadDocument
        onSubmit={() => setSigningOut(true)}
        className="mt-6 flex justify-end gap-3"
      >
        <input type="hidden" name="redirect" value={stay} />
        <Link to={stay} replace className="button-outline">
          Annulla
        </Link>
        <button type="submit" className="button-primary" onClick={() => window.open(storefrontLogoutUrl, "_blank", "noopener")}>
          Conferma
        </button>
      </Form>
    </ModalDialog>
  );
}
