// A product card of /my-products/ (spec §2): type, status badge, cover, name, ISBN/ISSN or SKU,
// 'Ricevuta' (and 'Acquista di nuovo' when the order was not paid), and the order's payments in
// a <details>. Its 'Pagamenti (n)' summary is the toggle for the keyboard, screen readers and
// pages without JavaScript; with JavaScript a click anywhere else on the card toggles it too
// (spec §2 "Clicking a card toggles its payment list"), except on what acts by itself.
// 'Acquista di nuovo' posts to /create-checkout/…/, which opens the order and redirects to its
// checkout: one step, with or without JavaScript (a GET of that address only shows the product).
import { useRef, type MouseEvent } from "react";
import { Link } from "react-router";
import type { PurchaseCard as Card, PurchasePayment } from "#server/commerce/purchases.ts";
import { formatDate } from "#shared/format.ts";
import { formatEuro } from "#shared/euro.ts";
import { PURCHASE_MESSAGES as M } from "#shared/purchase-messages.ts";
import { PaymentMethod } from "./payment-method";
import { productIdentifier } from "./product-card";
import { ProductCover } from "./product-cover";
import { PaymentRefunds } from "./payment-refunds";
import { useHydrated } from "#app/lib/use-hydrated.ts";

/**
 * What a click on the card must leave alone: what acts by itself (links, buttons, the buy form),
 * the summary (the browser toggles it), and the open list's content, which is read, not clicked away.
 */
const ACTS_BY_ITSELF = "a, button, input, select, textarea, label, form, summary, details > :not(summary)";

export function PurchaseCard({ card }: { card: Card }) {
  const active = card.status === "payed";
  const hydrated = useHydrated();
  const paymentList = useRef<HTMLDetailsElement>(null);
  function toggleFromCard(event: MouseEvent<HTMLElement>) {
    const details = paymentList.current;
    if (!details || event.button !== 0 || event.defaultPrevented) return;
    if (event.target instanceof Element && event.target.closest(ACTS_BY_ITSELF)) return;
    // A click that ends a text selection (the order number copied, a double click) is not a toggle.
    if (event.detail > 1 || window.getSelection()?.isCollapsed === false) return;
    details.open = !details.open;
  }
  // Several cards may show the same product (bought again): the order keeps each name unique.
  const whose = (
    <span className="sr-only">
      {" "}
      di {card.name}, ordine {card.orderCode}
    </span>
  );
  return (
    // The summary stays the accessible toggle: this is a larger target for the pointer only.
    <article
      className={`card flex h-full w-full gap-4 p-4 ${hydrated ? "cursor-pointer transition-shadow hover:shadow-md" : ""}`}
      data-status={card.status}
      onClick={toggleFromCard}
    >
      <div className="w-20 shrink-0 sm:w-24">
        <ProductCover cover={card.cover} />
      </div>
      <div className="flex min-w-0 flex-1 flex-col">
        <div className="flex flex-wrap items-center gap-2">
          <p className="kicker">{card.typeName}</p>
          <p className={active ? "badge" : "rounded-full bg-accent px-2.5 py-0.5 text-xs font-semibold text-white"}>
            {card.statusLabel}
          </p>
        </div>
        <h3 className="mt-1 font-serif text-lg leading-snug font-bold break-words hyphens-auto text-brand">{card.name}</h3>
        <p className="mt-1 text-xs text-muted">{productIdentifier(card)}</p>
        <p className="text-xs text-muted">
          {M.orderNumber}: <span className="font-medium text-ink">{card.orderCode}</span>
        </p>
        <div className="mt-auto flex flex-wrap gap-2 pt-4">
          {card.buyAgainAction && (
            // Opening the order is a change, so a POST; the checkout is a page of its own, so a
            // plain form: a full document navigation, as without JavaScript.
            <form method="post" action={card.buyAgainAction}>
              <button type="submit" className="button-primary">
                {M.buyAgain}
                <span className="sr-only"> {card.name}</span>
              </button>
            </form>
          )}
          <Link to={card.receiptHref} className="button-outline">
            {M.receipt}
            {whose}
          </Link>
        </div>
        <details ref={paymentList} className="mt-3 border-t border-line pt-3">
          <summary className="cursor-pointer text-sm font-semibold text-brand">
            {M.payments}
            <span className="sr-only"> di {card.name}</span> ({card.payments.length})
          </summary>
          {card.payments.length > 0 ? (
            <ul className="mt-2 divide-y divide-line text-sm">
              {card.payments.map((payment) => (
                <PaymentRow key={payment.code} payment={payment} />
              ))}
            </ul>
          ) : (
            <p className="mt-2 text-sm text-muted">{M.noPayments}</p>
          )}
        </details>
      </div>
    </article>
  );
}

function PaymentRow({ payment }: { payment: PurchasePayment }) {
  return (
    <li className="flex flex-wrap items-center justify-between gap-x-4 gap-y-1 py-2">
      <div className="min-w-0">
        <span className="block font-medium text-ink">
          {formatDate(payment.paidAt)} · {formatEuro(payment.amountCents)}
        </span>
        <PaymentRefunds refunds={payment.refunds} />
        <span className="block text-muted">
          <PaymentMethod payment={payment} />
        </span>
      </div>
      <Link to={payment.receiptHref} className="link">
        {M.receipt}
        <span className="sr-only"> del pagamento {payment.code}</span>
      </Link>
    </li>
  );
}
