// Orders with items and payments, written straight to a test database as the checkout leaves
// them (lines copied from their products: description, type, unit price, VAT rate). Every time is
// given by the test, so nothing depends on the clock or on the order rows happen to come in.
import { randomBytes } from "node:crypto";
import { eq, inArray } from "drizzle-orm";
import { newOrderCode, newPaymentCode } from "#server/lib/order-codes.ts";
import type { Database } from "#server/db/client.ts";
import {
  orderItems,
  orders,
  payments,
  productTypes,
  products,
  type BillingDetails,
  type OrderStatusCode,
  type PostalAddress,
} from "#server/db/schema/index.ts";

type TestLine = {
  productId: string;
  quantity?: number;
  /** Default: the product's price × quantity. */
  totalCents?: number;
  /** Default: the product's rate; null: VAT paid at source. */
  vatRateBps?: number | null;
  /** Default: the product's type; null: an older row without the snapshot. */
  productTypeCode?: string | null;
  monthlyPriceCents?: number | null;
};

type TestPayment = {
  paidAt: Date;
  /** Default: the order's total plus shipping. */
  amountCents?: number;
  methodCode?: "card_checkout" | "card_setup" | "sepa";
  cardBrand?: string | null;
  cardLast4?: string | null;
  status?: "payed" | "refunded";
  /** The gateway's charge (default: a made-up sandbox id, which the gateway does not know). */
  chargeId?: string;
};

export type TestOrder = {
  userId: string;
  /** When it was created and, unless still open, completed. */
  at: Date;
  status?: OrderStatusCode;
  lines: TestLine[];
  /** Default: one card payment (Visa ending 4242) of the whole amount at `at` when paid, none otherwise. */
  payments?: TestPayment[];
  discountCents?: number;
  couponCode?: string | null;
  shipmentPriceCents?: number;
  customer?: { firstname: string; lastname: string; email: string };
  shipment?: PostalAddress;
  billing?: BillingDetails;
};

export type InsertedOrder = {
  id: string;
  orderCode: string;
  totalCents: number;
  payments: { id: string; code: string; amountCents: number; paidAt: Date }[];
};

/** Inserts an order (paid by default) with its lines and payments. */
export async function insertOrder(db: Database, order: TestOrder): Promise<InsertedOrder> {
  const status = order.status ?? "payed";
  const productRows = await db
    .select({
      id: products.id,
      name: products.name,
      priceCents: products.priceCents,
      vatRateBps: products.vatRateBps,
      typeCode: productTypes.code,
    })
    .from(products)
    .innerJoin(productTypes, eq(productTypes.id, products.productTypeId))
    .where(
      inArray(
        products.id,
        order.lines.map((l) => l.productId),
      ),
    );
  const byId = new Map(productRows.map((p) => [p.id, p]));
  const lines = order.lines.map((line) => {
    const product = byId.get(line.productId);
    if (!product) throw new Error(`setup: no product ${line.productId}`);
    const quantity = line.quantity ?? 1;
    const totalCents = line.totalCents ?? product.priceCents * quantity;
    return {
      productId: product.id,
      description: product.name,
      quantity,
      totalCents,
      unitPriceCents: Math.round(totalCents / quantity),
      monthlyPriceCents: line.monthlyPriceCents ?? null,
      productTypeCode: line.productTypeCode === undefined ? product.typeCode : line.productTypeCode,
      vatRateBps: line.vatRateBps === undefined ? product.vatRateBps : line.vatRateBps,
    };
  });
  const subtotalCents = lines.reduce((sum, l) => sum + l.totalCents, 0);
  const discountCents = order.discountCents ?? 0;
  const totalCents = subtotalCents - discountCents;
  const shipmentPriceCents = order.shipmentPriceCents ?? 0;
  const open = status === "new" || status === "waitforpayment";

  const [row] = await db
    .insert(orders)
    .values({
      orderCode: newOrderCode(order.at),
      userId: order.userId,
      status,
      subtotalCents,
      discountCents,
      couponCode: order.couponCode ?? null,
      totalCents,
      shipmentPriceCents,
      createdAt: order.at,
      updatedAt: order.at,
      committedAt: open ? null : order.at,
      customerFirstname: order.customer?.firstname ?? null,
      customerLastname: order.customer?.lastname ?? null,
      customerEmail: order.customer?.email ?? null,
      hasShipment: order.shipment !== undefined,
      shipment: order.shipment ?? null,
      hasBilling: order.billing !== undefined,
      billing: order.billing ?? null,
    })
    .returning({ id: orders.id, orderCode: orders.orderCode });
  await db.insert(orderItems).values(lines.map((line) => ({ orderId: row!.id, ...line })));

  const paymentSpecs =
    order.payments ?? (status === "payed" && totalCents + shipmentPriceCents > 0 ? [{ paidAt: order.at }] : []);
  const inserted: InsertedOrder["payments"] = [];
  for (const spec of paymentSpecs) {
    const methodCode = spec.methodCode ?? "card_checkout";
    const card = methodCode !== "sepa";
    const [payment] = await db
      .insert(payments)
      .values({
        paymentCode: newPaymentCode(spec.paidAt),
        orderId: row!.id,
        userId: order.userId,
        gateway: "sandbox",
        methodCode,
        status: spec.status ?? "payed",
        amountCents: spec.amountCents ?? totalCents + shipmentPriceCents,
        chargeId: spec.chargeId ?? `sbx_pi_test_${randomBytes(8).toString("hex")}`,
        cardBrand: spec.cardBrand !== undefined ? spec.cardBrand : card ? "visa" : null,
        cardLast4: spec.cardLast4 !== undefined ? spec.cardLast4 : card ? "4242" : null,
        paidAt: spec.paidAt,
        createdAt: spec.paidAt,
      })
      .returning({ id: payments.id, code: payments.paymentCode, amountCents: payments.amountCents, paidAt: payments.paidAt });
    inserted.push(payment!);
  }
  return { id: row!.id, orderCode: row!.orderCode, totalCents, payments: inserted };
}
