// An erased account at the sandbox payment provider (payments/customer-erasure.ts): the deletion
// queues, in its own transaction, the job that removes the customer's saved cards; after it no
// card of theirs can be charged, and other customers' cards stay. (Stripe: tests/integration/stripe.test.ts.)
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jobs, paymentAttempts } from "#server/db/schema/index.ts";
import type { Services } from "#server/services.ts";
import { buyEduWithSandboxCard } from "#tests/support/checkout.ts";
import { signedInCustomer } from "#tests/support/customers.ts";
import { createTestDatabase, type TestDatabase } from "#tests/support/database.ts";
import { createTestServices } from "#tests/support/services.ts";

let database: TestDatabase;
let services: Services;

beforeAll(async () => {
  database = await createTestDatabase();
  services = await createTestServices(database);
});
afterAll(async () => {
  await services.close();
  await database.destroy();
});

/** A customer who bought EDU with the sandbox's good card (saved for the months after): the setup's id. */
async function customerWithSavedCard() {
  const { user } = await signedInCustomer(services, database.db);
  return { userId: user.id, setupId: await buyEduWithSandboxCard(services, user.id) };
}

const chargeOf = (setupId: string, key: string) =>
  services.sandbox!.gateway.createCharge({ setupId, amountCents: 450, description: "prova", idempotencyKey: key, metadata: {} });

describe("an erased account at the payment provider", () => {
  it("has its saved cards removed by the job its deletion queued; other customers' stay", async () => {
    const erased = await customerWithSavedCard();
    const bystander = await customerWithSavedCard();

    expect(await services.profiles.deleteAccount(erased.userId)).toEqual({ ok: true });
    const [job] = await database.db
      .select()
      .from(jobs)
      .where(eq(jobs.key, `payment-customer-erasure:${erased.userId}`));
    expect(job).toMatchObject({ queue: "payment-customer-erasure", status: "queued", payload: { userId: erased.userId } });
    expect((await services.sandbox!.gateway.retrieveSetup(erased.setupId))?.card).not.toBeNull();

    await services.jobs.runDue();
    expect((await database.db.select().from(jobs).where(eq(jobs.id, job!.id)))[0]).toMatchObject({ status: "done" });
    expect((await services.sandbox!.gateway.retrieveSetup(erased.setupId))?.card).toBeNull();
    await expect(chargeOf(erased.setupId, `erased:${erased.setupId}`)).rejects.toThrow(/saved/);
    // The records of what was paid stay (the order and its payment belong to the accounts).
    expect(await database.db.select().from(paymentAttempts).where(eq(paymentAttempts.setupId, erased.setupId))).toHaveLength(1);

    expect((await services.sandbox!.gateway.retrieveSetup(bystander.setupId))?.card).toMatchObject({ last4: "4242" });
    expect(await chargeOf(bystander.setupId, `bystander:${bystander.setupId}`)).toMatchObject({ id: expect.any(String) });
  });
});
