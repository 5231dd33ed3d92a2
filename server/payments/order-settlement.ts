// What card payments ask of commerce about the order they pay. Payments moves money and records
// it (attempts, charges, payment rows, refunds); what the order becomes is commerce's
// (server/commerce/settlement.ts answers): its status, what it grants, its discount code's use,
// its confirmation mail. Payments is given these hooks instead of importing commerce, so that
// imports point one way (docs/architecture.md). Each hook runs inside the payment's own
// transaction with the customer locked (lockCustomer): the check that guards the money and the
// money's record commit together or not at all.
import type { Transaction } from "#server/db/client.ts";
import type { orders, paymentAttempts } from "#server/db/schema/index.ts";

export type OrderSettlement = {
  /** Whether the order may no longer be charged: EDU became active since it was opened (decision 024). */
  chargeForbidden(tx: Transaction, order: { id: string; userId: string }, at: Date): Promise<boolean>;
  /** Closes an order that may no longer be charged; false when it had already moved on. */
  closeForbiddenOrder(tx: Transaction, orderId: string, at: Date): Promise<boolean>;
  /**
   * The charge is recorded as a payment: the order becomes paid (only from waitforpayment) and
   * gets what it bought; the answer sends the confirmation owed in `tx` once it commits. Null
   * when the order no longer waits for a payment: the charge is given back.
   */
  orderPaid(tx: Transaction, paid: PaidOrder, at: Date): Promise<(() => Promise<void>) | null>;
  /** The attempt ended without a charge: the order can be edited and paid again, its discount code's use is given back. */
  attemptClosed(tx: Transaction, orderId: string, at: Date): Promise<void>;
};

export type PaidOrder = {
  order: typeof orders.$inferSelect;
  attempt: typeof paymentAttempts.$inferSelect;
  payment: { id: string; paymentCode: string };
};
