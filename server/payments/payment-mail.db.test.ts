// A payment's record and its confirmation mail are written in one transaction (issue 29: on a
// full disk a paid order was recorded and its mail, sent after the commit, was lost). The charge,
// already made at the gateway, is recorded again by the reconciler once the outbox can be written.
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { CARDS, paymentHarness } from "#tests/support/payment-harness.ts";
import { withOutboxRefused } from "#tests/support/refuse-outbox.ts";
import { entitlements, mailOutbox } from "#server/db/schema/index.ts";

const h = paymentHarness();

describe("the order confirmation mail", () => {
  it("is written with the payment's record, or neither is; the charge is recorded once the outbox can be written", async () => {
    const userId = await h.newUser();
    const orderId = await h.openOrder(userId);
    const { setupId } = await h.payWith(userId, orderId, CARDS.succeeds);
    const mails = () =>
      h.database.db.select({ subject: mailOutbox.subject }).from(mailOutbox).where(eq(mailOutbox.userId, userId));

    await withOutboxRefused(h.database.db, async () => {
      await expect(h.services.payments.settleSetup(setupId)).rejects.toThrow();
    });
    // Charged at the gateway, nothing recorded: no payment, no access, no mail.
    expect((await h.charges(orderId)).length).toBe(1);
    expect(await h.paymentCount(orderId)).toBe(0);
    expect((await h.orderRow(orderId)).status).toBe("waitforpayment");
    expect(await h.database.db.select().from(entitlements).where(eq(entitlements.orderId, orderId))).toEqual([]);
    expect(await mails()).toEqual([]);

    // Space back: once the charge's lease has run out, the reconciler records it with its mail.
    h.advance(60_000);
    expect(await h.services.payments.reconcile()).toBe(1);
    const order = await h.orderRow(orderId);
    expect(order.status).toBe("payed");
    expect((await h.charges(orderId)).length).toBe(1);
    expect(await h.paymentCount(orderId)).toBe(1);
    expect(await mails()).toEqual([{ subject: `Ordine confermato n° ${order.orderCode}` }]);
  });
});
