// The customer of the browser tests of how each product was obtained (tests/e2e/provenance.spec.ts),
// written by prepare-server.ts before the server starts: an eBook from a printed book's code (the
// activation service's own transaction), an eBook bought by card (its order and payment as the
// checkout leaves them, and the access the payment gives) and a course customer service granted
// for 3 months (source `operator`, as `npm run admin -- customer:grant` does), all at one time.
import type { Database } from "#server/db/client.ts";
import type { Activation } from "#server/commerce/activation.ts";
import { grantEntitlement } from "#server/library/entitlements.ts";
import { addMonths } from "#shared/library-constants.ts";
import { insertOrder } from "#tests/support/orders.ts";
import { registerStudent } from "./purchases-fixtures.ts";

export type ProvenanceFixtures = {
  email: string;
  /** When the three were obtained (ISO): the day the lines say. */
  at: string;
  code: { product: string };
  purchase: { product: string; orderCode: string };
  operator: { product: string; months: number };
};

type Product = { id: string; name: string };

export async function createProvenanceFixtures(
  db: Database,
  {
    password,
    activation,
    codeBook,
    boughtBook,
    course,
  }: {
    password: string;
    activation: Activation;
    codeBook: Product;
    boughtBook: Product;
    course: Product;
  },
): Promise<ProvenanceFixtures> {
  const email = "e2e.provenienza@example.it";
  const userId = await registerStudent(db, email, password);
  const at = new Date();

  const { codes } = await activation.createBatch({ productId: codeBook.id, kind: "ebook", label: "e2e provenienza", count: 1 });
  const activated = await activation.activate({ userId, ip: "203.0.113.250", code: codes[0]!, now: at });
  if (!activated.ok) throw new Error(`e2e fixtures: the code was ${activated.reason}`);

  const order = await insertOrder(db, { userId, at, lines: [{ productId: boughtBook.id }] });
  const months = 3;
  await db.transaction(async (tx) => {
    const grant = { userId, startsAt: at, orderId: null };
    await grantEntitlement(
      tx,
      { ...grant, productId: boughtBook.id, source: "purchase", expiresAt: null, orderId: order.id },
      at,
    );
    await grantEntitlement(tx, { ...grant, productId: course.id, source: "operator", expiresAt: addMonths(at, months) }, at);
  });

  return {
    email,
    at: at.toISOString(),
    code: { product: codeBook.name },
    purchase: { product: boughtBook.name, orderCode: order.orderCode },
    operator: { product: course.name, months },
  };
}
