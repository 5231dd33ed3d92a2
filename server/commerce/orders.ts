// Orders. This issue creates only completed free orders (activations); the commerce issue adds
// carts, checkout and payment on the same tables.
import { eq, inArray } from "drizzle-orm";
import type { Transaction } from "#server/db/client.ts";
import { orderItems, orders, products, productTypes } from "#server/db/schema/index.ts";
import { newOrderCode } from "#server/lib/order-codes.ts";

export type OrderLine = { productId: string; description: string; totalCents: number; monthlyPriceCents?: number | null };

/**
 * Inserts an order that is already paid (status payed, committed now), with its items. Call it
 * inside the transaction that grants what the order gives, so both happen or neither does.
 */
export async function insertCompletedOrder(
  tx: Transaction,
  { userId, lines, now }: { userId: string; lines: OrderLine[]; now: Date },
) {
  const totalCents = lines.reduce((sum, line) => sum + line.totalCents, 0);
  const [order] = await tx
    .insert(orders)
    .values({ orderCode: newOrderCode(now), userId, status: "payed", totalCents, createdAt: now, committedAt: now })
    .returning({ id: orders.id, orderCode: orders.orderCode });
  // Each line records its product's type, as a checkout's lines do (the API's `producttype`).
  const types = await tx
    .select({ productId: products.id, code: productTypes.code })
    .from(products)
    .innerJoin(productTypes, eq(productTypes.id, products.productTypeId))
    .where(
      inArray(
        products.id,
        lines.map((line) => line.productId),
      ),
    );
  await tx.insert(orderItems).values(
    lines.map((line) => ({
      orderId: order!.id,
      productId: line.productId,
      description: line.description,
      totalCents: line.totalCents,
      monthlyPriceCents: line.monthlyPriceCents ?? null,
      productTypeCode: types.find((type) => type.productId === line.productId)?.code ?? null,
    })),
  );
  return order!;
}
