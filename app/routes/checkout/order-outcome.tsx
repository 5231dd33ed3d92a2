// What the checkout shows once the order is no longer open: paid ('Ordine confermato', spec §4),
// or closed ('Ordine annullato/scaduto o interrotto'), with why when the portal closed it.
import { useEffect, useRef } from "react";
import { Link } from "react-router";
import type { CheckoutView } from "#server/commerce/checkout.ts";
import { formatDate, withArticle } from "#shared/format.ts";
import { formatEuro } from "#shared/euro.ts";
import { CHECKOUT_MESSAGES as M } from "#shared/checkout-messages.ts";
import { DASHBOARD_PATH, MY_PRODUCTS_PATH, receiptPath } from "#shared/links.ts";

export function Confirmed({ orderCode }: { orderCode: string }) {
  // The payment's reply replaces the form on the same address, so no navigation moves the focus
  // (navigation-focus.ts): 'Completa l'acquisto' is gone and the focus with it. The heading takes it.
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus({ preventScroll: true }), []);
  return (
    <div className="card mx-auto max-w-xl p-8 text-center" role="status">
      <h1 ref={heading} tabIndex={-1} className="font-serif text-3xl font-bold text-brand">
        {M.confirmedTitle}
      </h1>
      <p className="mt-3 text-lg">{M.confirmedText}</p>
      <p className="mt-2 text-sm text-muted">Numero d'ordine {orderCode}. Ti abbiamo inviato la ricevuta per email.</p>
      <div className="mt-6 flex flex-wrap justify-center gap-3">
        {/* A document load: the header and the dashboard show what was just bought. */}
        <a href={DASHBOARD_PATH} className="button-primary">
          {M.toDashboard}
        </a>
        <a href={receiptPath(orderCode)} className="button-outline">
          Ricevuta
        </a>
        <a href={MY_PRODUCTS_PATH} className="button-outline">
          I miei acquisti
        </a>
      </div>
    </div>
  );
}

export function Closed({ closed }: { closed: CheckoutView["closed"] }) {
  return (
    <div className="card mx-auto max-w-xl p-8 text-center">
      <h1 className="font-serif text-2xl font-bold text-brand">{M.closedTitle}</h1>
      {closed?.reason === "edu_already_active" && (
        <div className="mt-4 space-y-2 text-left">
          <p>
            {M.eduOrderClosed}
            {closed.eduUntil && ` Il tuo accesso a EDU è attivo fino ${withArticle("al", formatDate(closed.eduUntil))}.`}
          </p>
          <p>
            {closed.refundedCents
              ? `L'importo di ${formatEuro(closed.refundedCents)} addebitato sulla tua carta ti viene rimborsato per intero: lo vedrai sull'estratto conto entro qualche giorno lavorativo.`
              : M.eduOrderClosedNothingCharged}
          </p>
          <p>{M.eduOrderClosedAfterward}</p>
        </div>
      )}
      <Link to={DASHBOARD_PATH} className="button-primary mt-6">
        {M.toDashboard}
      </Link>
    </div>
  );
}
