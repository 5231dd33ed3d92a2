// An erased account's traces at the payment provider (docs/payments.md, "Payments"): the account's
// deletion enqueues, in its own transaction, a job that asks the gateway to delete the customer and
// the cards saved for them (Stripe: the Customer; the sandbox: the cards of its setups). A job, not
// a call, because the provider may be unreachable at that moment: the runner tries again until it
// answers, and deleting twice is harmless.
import type { Queryable } from "#server/db/client.ts";
import { enqueueJob, type JobRunner } from "#server/jobs/runner.ts";
import type { PaymentGateway } from "./gateway.ts";

const QUEUE = "payment-customer-erasure";

type ErasureJob = { userId: string };

/** The erasure at the provider, enqueued in the transaction that erases the account. */
export async function enqueueCustomerErasure(tx: Queryable, userId: string, at: Date): Promise<void> {
  const job: ErasureJob = { userId };
  await enqueueJob(tx, { queue: QUEUE, key: `${QUEUE}:${userId}`, payload: job, runAt: at }, at);
}

/** The runner's handler of those jobs. */
export function handleCustomerErasures(runner: JobRunner, gateway: PaymentGateway): void {
  runner.handle(QUEUE, (job: ErasureJob) => gateway.deleteCustomer(job.userId));
}
