// The e-invoice SDI could not deliver, for the browser tests (tests/e2e/invoices.spec.ts), written
// by prepare-server.ts before the server starts: a customer's paid order whose invoice was issued,
// handed to the outbox and then answered by SDI with an MC (NotificaMancataConsegna), read as the
// portal's inbox reads it, so that its receipt says where the invoice is.
import type { Database } from "#server/db/client.ts";
import { readNotification } from "#server/invoices/sdi-messages.ts";
import type { SdiNotification } from "#server/invoices/sdi-messages.ts";
import { nonDeliveryNotice } from "#tests/support/sdi-notifications.ts";
import { insertOrder } from "#tests/support/orders.ts";
import { registerStudent } from "./purchases-fixtures.ts";

export type UndeliveredInvoiceFixtures = { email: string; orderCode: string; paymentCode: string };

/** What prepare-server.ts gives: the invoice of a payment issued and handed over, and a notification applied. */
export type InvoiceWork = {
  issueAndSend(paymentId: string): Promise<{ fileName: string }>;
  apply(notification: SdiNotification): Promise<unknown>;
};

export async function createUndeliveredInvoiceFixtures(
  db: Database,
  password: string,
  productId: string,
  work: InvoiceWork,
): Promise<UndeliveredInvoiceFixtures> {
  const email = "e2e.fattura.non.recapitata@example.it";
  const userId = await registerStudent(db, email, password);
  const at = new Date(Date.now() - 2 * 24 * 3600_000);
  const order = await insertOrder(db, {
    userId,
    at,
    lines: [{ productId }],
    payments: [{ paidAt: at, cardBrand: "visa", cardLast4: "4242" }],
    customer: { firstname: "Giulia", lastname: "Bianchi", email },
    billing: {
      isCompany: false,
      ssn: "BNCGRL80A41H501J",
      addressAsShipment: false,
      address: {
        firstname: "Giulia",
        lastname: "Bianchi",
        address: "Via Po 3",
        postcode: "10123",
        city: "Torino",
        province: "TO",
        country: "IT",
      },
    },
  });
  const payment = order.payments[0]!;
  const { fileName } = await work.issueAndSend(payment.id);
  const mc = nonDeliveryNotice({ invoiceFileName: fileName, sdiId: "4216599001", messageId: "9900101", receivedAt: new Date() });
  const read = readNotification(mc.fileName, Buffer.from(mc.xml));
  if (!read.ok) throw new Error(`e2e fixtures: the MC is unreadable: ${read.reason}`);
  await work.apply(read.notification);
  return { email, orderCode: order.orderCode, paymentCode: payment.code };
}
