// The money given back from a payment, beside its amount on the receipts, the product cards, the
// purchase history and the subscription's months: 'Rimborsato 12,50 € il 3 marzo 2026' for each
// refund that went back, 'Rimborso in corso (12,50 €)' while the bank is still sending one.
import type { CustomerRefund } from "#server/payments/refunds.ts";
import { formatLongDate, withArticle } from "#shared/format.ts";
import { formatEuro } from "#shared/euro.ts";
import { PURCHASE_MESSAGES as M } from "#shared/purchase-messages.ts";

/**
 * 'Rimborsato 12,50 € il 3 marzo 2026', or 'Rimborso in corso (12,50 €)'; where the payment's own
 * amount is beside it (`wholeCents`, a subscription's month), a refund of all of it is
 * 'Rimborsato il 3 marzo 2026'.
 */
function refundText(refund: CustomerRefund, wholeCents: number | undefined): string {
  if (refund.state === "pending") return `${M.refundPending} (${formatEuro(refund.amountCents)})`;
  const amount = refund.amountCents === wholeCents ? "" : ` ${formatEuro(refund.amountCents)}`;
  return `${M.refunded}${amount} ${withArticle("il", formatLongDate(refund.at))}`;
}

export function PaymentRefunds({
  refunds,
  wholeCents,
  className = "mt-1",
}: {
  refunds: readonly CustomerRefund[];
  wholeCents?: number;
  className?: string;
}) {
  if (refunds.length === 0) return null;
  return (
    <ul aria-label={M.refundsLabel} className={`flex flex-wrap gap-1 ${className}`}>
      {refunds.map((refund, i) => (
        <li key={i} className="badge">
          {refundText(refund, wholeCents)}
        </li>
      ))}
    </ul>
  );
}
