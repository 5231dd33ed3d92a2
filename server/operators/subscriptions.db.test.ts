// subscriptions:list and subscriptions:run-due: the month due is listed, run-due charges it once,
// and each command writes its audit entry as the operator.
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { MINUTE, START } from "#tests/support/clock.ts";
import { operatorHarness } from "#tests/support/operators.ts";
import { subscriptions } from "#server/db/schema/index.ts";
import { EDU_PRODUCT_CODE } from "#shared/library-constants.ts";
import { periodStart } from "#shared/subscription.ts";
import { runDue, subscriptionsReport } from "./subscriptions.ts";

const h = operatorHarness();

describe("subscriptions:list and subscriptions:run-due", () => {
  it("list the month due, charge it once, and say so in the audit log", async () => {
    const customer = await h.customer();
    const order = await h.paidOrder(customer.id, EDU_PRODUCT_CODE);
    const [subscription] = await h.db.select().from(subscriptions).where(eq(subscriptions.orderId, order.id));
    const secondMonth = periodStart(subscription!.anchorAt, 2);
    h.advance(secondMonth.getTime() - START.getTime() + MINUTE);

    const before = await subscriptionsReport(h.op);
    expect(before.due.filter((r) => r.subscriptionId === subscription!.id)).toMatchObject([
      { number: 2, periodStatus: "scheduled" },
    ]);
    expect(await h.audited("subscriptions_listed")).toHaveLength(1);

    const run = await runDue(h.op);
    expect(run.at).toEqual(new Date(secondMonth.getTime() + MINUTE));
    expect(Object.values(run.done).some((n) => n > 0)).toBe(true);
    expect(run.left.due.filter((r) => r.subscriptionId === subscription!.id)).toEqual([]);
    const [entry] = await h.audited("due_work_run");
    expect(entry!.details).toEqual(run.done);

    const again = await runDue(h.op);
    expect(Object.values(again.done).every((n) => n === 0)).toBe(true);
    expect(await h.audited("due_work_run")).toHaveLength(2);
  });
});
