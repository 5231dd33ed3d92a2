// The mark of a payment given back to the customer (an operator's refund, or a charge the portal
// could not keep): 'Rimborsato il 12/03/2026' beside its amount, on the receipts, the product
// cards and the purchase history alike.
import { formatDate, withArticle } from "../../shared/format.ts";
import { PURCHASE_MESSAGES as M } from "../../shared/purchase-messages.ts";

type Payment = { status: "payed" | "refunded"; refundedAt: Date | null };

export function RefundedBadge({ payment }: { payment: Payment }) {
  if (payment.status !== "refunded") return null;
  const text = payment.refundedAt ? `${M.refunded} ${withArticle("il", formatDate(payment.refundedAt))}` : M.refunded;
  return <span className="ml-2 badge">{text}</span>;
}
