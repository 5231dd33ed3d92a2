// A product card of /my-products/ (spec §2): type, status badge, cover, name, ISBN/ISSN or SKU,
// 'Ricevuta' (and 'Acquista di nuovo' when the order was not paid), and the order's payments in
// a <details>, which toggles without JavaScript.
import { Link } from "react-router";
import type { PurchaseCard as Card, PurchasePayment } from "../../server/commerce/purchases";
import { formatDate, formatEuro } from "../../shared/format.ts";
import { PURCHASE_MESSAGES as M } from "../../shared/purchase-messages.ts";
import { PaymentMethod } from "./payment-method";
import { productIdentifier } from "./product-card";
import { ProductCover } from "./product-cover";
import { RefundedBadge } from "./refunded-badge";

export function PurchaseCard({ card }: { card: Card }) {
  const active = card.status === "payed";
  // Several cards may show the same product (bought again): the order keeps each name unique.
  const whose = (
    <span className="sr-only">
      {" "}
      di {card.name}, ordine {card.orderCode}
    </span>
  );
  return (
    <article className="card flex h-full w-full gap-4 p-4" data-status={card.status}>
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
          {card.buyAgainHref && (
            // The checkout is a page of its own: a full document navigation, as without JavaScript.
            <a href={card.buyAgainHref} className="button-primary">
              {M.buyAgain}
              <span className="sr-only"> {card.name}</span>
            </a>
          )}
          <Link to={card.receiptHref} className="button-outline">
            {M.receipt}
            {whose}
          </Link>
        </div>
        <details className="mt-3 border-t border-line pt-3">
          <summary className="text-sm font-semibold text-brand">
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
      <span className="min-w-0">
        <span className="block font-medium text-ink">
          {formatDate(payment.paidAt)} · {formatEuro(payment.amountCents)}
          <RefundedBadge payment={payment} />
        </span>
        <span className="block text-muted">
          <PaymentMethod payment={payment} />
        </span>
      </span>
      <Link to={payment.receiptHref} className="link">
        {M.receipt}
        <span className="sr-only"> del pagamento {payment.code}</span>
      </Link>
    </li>
  );
}
