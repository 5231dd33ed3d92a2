// One customer's changes one at a time: activations, payments, refunds and subscription months
// of the same customer each take this lock first, in their own transaction.
import { eq } from "drizzle-orm";
import type { Transaction } from "./client.ts";
import { users } from "./schema/index.ts";

/**
 * Serialises the changes of one customer: two activations of the same customer at once would
 * otherwise both read the same EDU expiry and extend it only once, and a payment and a code
 * activation would both decide on EDU without seeing each other (decision 024).
 */
export async function lockCustomer(tx: Transaction, userId: string): Promise<void> {
  await tx.select({ id: users.id }).from(users).where(eq(users.id, userId)).for("update");
}
