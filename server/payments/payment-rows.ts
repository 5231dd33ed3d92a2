// Writing a payment row (money received: a checkout's charge, a subscription month's). Its
// readable code (PX + day + 6 random characters, on the receipt) is drawn at random, so two
// charges of one day may draw the same one: the row then takes another code, instead of the
// clash passing for a charge already recorded.
import { and, eq } from "drizzle-orm";
import type { Transaction } from "#server/db/client.ts";
import { payments } from "#server/db/schema/index.ts";
import { newPaymentCode } from "#server/lib/order-codes.ts";
import { enqueueInvoice } from "#server/invoices/service.ts";

type NewPayment = Omit<typeof payments.$inferInsert, "id" | "paymentCode">;

/** Codes drawn before giving up (each clash is about one in a billion per pair of charges of a day). */
const CODE_DRAWS = 5;

/**
 * Inserts the payment of a charge in the caller's transaction, or answers null when that charge
 * is recorded already. A payment of an order that asked for an invoice queues its e-invoice in
 * the same transaction (server/invoices/service.ts). The caller holds the customer's lock (lockCustomer), so two recordings of
 * one charge cannot both find it missing.
 */
export async function insertPayment(
  tx: Transaction,
  values: NewPayment,
  drawCode: () => string = () => newPaymentCode(values.paidAt),
): Promise<{ id: string; paymentCode: string } | null> {
  const [recorded] = await tx
    .select({ id: payments.id })
    .from(payments)
    .where(and(eq(payments.gateway, values.gateway), eq(payments.chargeId, values.chargeId)));
  if (recorded) return null;
  for (let draw = 0; draw < CODE_DRAWS; draw++) {
    const [row] = await tx
      .insert(payments)
      .values({ ...values, paymentCode: drawCode() })
      .onConflictDoNothing({ target: payments.paymentCode })
      .returning({ id: payments.id, paymentCode: payments.paymentCode });
    if (row) {
      await enqueueInvoice(tx, { paymentId: row.id, orderId: values.orderId }, values.paidAt);
      return row;
    }
  }
  throw new Error(`No free payment code after ${CODE_DRAWS} draws`);
}
