// The refunds of the browser tests (tests/e2e/refunds.spec.ts), written by prepare-server.ts
// before the server starts, through the portal's own refund code over the sandbox gateway (its
// charges are real sandbox charges): a customer with an invoiced eBook order of which part went
// back (with its credit note, issued as the server's job would) and part is still on its way
// (the bank holds it), and an EDU subscription the publisher refunded and ended.
import { eq } from "drizzle-orm";
import type { Database } from "#server/db/client.ts";
import { productTypes, products } from "#server/db/schema/index.ts";
import { decideOrderRefund } from "#server/commerce/order-refunds.ts";
import { openSubscription } from "#server/commerce/subscription-records.ts";
import { createJobRunner } from "#server/jobs/runner.ts";
import { createLogger } from "#server/logger.ts";
import { createRefunds, requestRefund } from "#server/payments/refunds.ts";
import { createSandboxGateway } from "#server/payments/sandbox-gateway.ts";
import { EDU_PRODUCT_CODE } from "#shared/library-constants.ts";
import { COMPANY_BILLING } from "#tests/support/checkout.ts";
import { insertOrder } from "#tests/support/orders.ts";
import { registerStudent } from "./purchases-fixtures.ts";

export type RefundsFixtures = {
  email: string;
  /** An eBook order: `refundedCents` went back at `refundedAt`, then `pendingCents` was asked and is on its way. */
  partial: {
    orderCode: string;
    product: string;
    paymentCode: string;
    amountCents: number;
    refundedCents: number;
    pendingCents: number;
    refundedAt: string;
    /** The credit note of what went back: its number (`NC/1`), year and number in the year, date (YYYY-MM-DD). */
    creditNote: { documentNumber: string; year: number; number: number; date: string };
  };
  /** An EDU subscription of one month, refunded whole by an operator at `refundedAt`. */
  edu: { orderCode: string; refundedAt: string };
};

const DAY = 24 * 3600_000;

/** What prepare-server.ts gives: a refund's credit note issued now (its payment's invoice first), as its job does. */
export type IssueCreditNote = (
  refundId: string,
) => Promise<{ documentNumber: string; year: number; number: number; date: string } | null>;

export async function createRefundsFixtures(
  db: Database,
  password: string,
  issueCreditNote: IssueCreditNote,
): Promise<RefundsFixtures> {
  const email = "e2e.rimborsi@example.it";
  const userId = await registerStudent(db, email, password);
  const sandbox = createSandboxGateway(db);
  const log = createLogger("warn");
  const refunds = createRefunds({ db, gateway: sandbox.gateway, runner: createJobRunner({ db, log }), log });
  const now = new Date();

  /** A real sandbox charge of the customer's test card. */
  async function charge(amountCents: number, key: string) {
    const setup = await sandbox.gateway.createSetup({
      customer: { userId, email, name: "Paola Neri" },
      idempotencyKey: `e2e:setup:${key}`,
      metadata: {},
    });
    await sandbox.confirmCard(setup.id, "4242 4242 4242 4242");
    const made = await sandbox.gateway.createCharge({
      setupId: setup.id,
      amountCents,
      description: "e2e",
      idempotencyKey: `e2e:charge:${key}`,
      metadata: {},
    });
    await sandbox.gateway.confirmCharge(made.id, { offSession: true, idempotencyKey: `e2e:confirm:${key}` });
    return { setupId: setup.id, chargeId: made.id };
  }

  const [ebook] = await db
    .select({ id: products.id, name: products.name, priceCents: products.priceCents })
    .from(products)
    .innerJoin(productTypes, eq(productTypes.id, products.productTypeId))
    .where(eq(productTypes.code, "ebook"))
    .orderBy(products.sku)
    .limit(1);
  const ebookCharge = await charge(ebook!.priceCents, "ebook");
  const ebookOrder = await insertOrder(db, {
    userId,
    at: new Date(now.getTime() - 3 * DAY),
    lines: [{ productId: ebook!.id }],
    payments: [{ paidAt: new Date(now.getTime() - 3 * DAY), chargeId: ebookCharge.chargeId }],
    billing: COMPANY_BILLING,
  });
  const payment = ebookOrder.payments[0]!;
  const refundAmount = async (amountCents: number, at: Date) => {
    const refund = await db.transaction((tx) =>
      requestRefund(
        tx,
        { paymentId: payment.id, cover: { kind: "amount", amountCents }, reason: "operator", requestedBy: "operator:e2e" },
        at,
      ),
    );
    return (await refunds.processRefund(refund!.id))!;
  };
  const refunded = await refundAmount(500, new Date(now.getTime() - DAY / 24));
  // The bank holds the next one: it stays pending.
  await sandbox.holdRefunds(ebookCharge.chargeId, true);
  const pending = await refundAmount(300, now);
  if (refunded.state !== "succeeded" || pending.state !== "pending")
    throw new Error("e2e fixtures: the refunds did not go as planned");
  const creditNote = await issueCreditNote(refunded.id);
  if (!creditNote) throw new Error("e2e fixtures: the refund got no credit note");

  const [edu] = await db.select({ id: products.id }).from(products).where(eq(products.code, EDU_PRODUCT_CODE));
  const paidAt = new Date(now.getTime() - 5 * DAY);
  const eduCharge = await charge(450, "edu");
  const eduOrder = await insertOrder(db, {
    userId,
    at: paidAt,
    lines: [{ productId: edu!.id, totalCents: 450, monthlyPriceCents: 450 }],
    payments: [{ paidAt, chargeId: eduCharge.chargeId }],
  });
  const decided = await db.transaction(async (tx) => {
    await openSubscription(tx, {
      userId,
      productId: edu!.id,
      orderId: eduOrder.id,
      paymentId: eduOrder.payments[0]!.id,
      paidCents: 450,
      monthlyPriceCents: 450,
      gateway: "sandbox",
      setupId: eduCharge.setupId,
      card: { brand: "visa", last4: "4242" },
      at: paidAt,
    });
    return decideOrderRefund(
      tx,
      { orderId: eduOrder.id, userId, orderCode: eduOrder.orderCode },
      { kind: "order" },
      "operator:e2e",
      now,
    );
  });
  for (const refund of decided.refunds) await refunds.processRefund(refund.id);

  return {
    email,
    partial: {
      orderCode: ebookOrder.orderCode,
      product: ebook!.name,
      paymentCode: payment.code,
      amountCents: payment.amountCents,
      refundedCents: 500,
      pendingCents: 300,
      refundedAt: now.toISOString(),
      creditNote: {
        documentNumber: creditNote.documentNumber,
        year: creditNote.year,
        number: creditNote.number,
        date: creditNote.date,
      },
    },
    edu: { orderCode: eduOrder.orderCode, refundedAt: now.toISOString() },
  };
}
