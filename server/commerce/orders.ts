// Orders. This issue creates only completed free orders (activations); the commerce issue adds
// carts, checkout and payment on the same tables.
import type { Transaction } from "../db/client.ts";
import { orderItems, orders } from "../db/schema.ts";
import { newOrderCode } from "./order-code.ts";

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
  await tx.insert(orderItems).values(
    lines.map((line) => ({
      orderId: order!.id,
      productId: line.productId,
      description: line.description,
      totalCents: line.totalCents,
      monthlyPriceCents: line.monthlyPriceCents ?? null,
    })),
  );
  return order!;
}
