// coupons:create, coupons:list and coupons:disable: a code made by an operator applies at the
// checkout; withdrawn, it is refused when applied and when a payment starts with it already applied.
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { checkoutDetails } from "#tests/support/checkout.ts";
import { afterStart, dayFromStart, MINUTE, START } from "#tests/support/clock.ts";
import { operatorHarness } from "#tests/support/operators.ts";
import { coupons, orders } from "#server/db/schema/index.ts";
import { OperatorError } from "./context.ts";
import { createCoupon, disableCoupon, listCoupons } from "./coupons.ts";

const h = operatorHarness();
const EBOOK = "EB-9788828813217";

const orderOf = async (orderId: string) => (await h.db.select().from(orders).where(eq(orders.id, orderId)))[0]!;

describe("coupons:create and coupons:list", () => {
  it("creates a code the checkout applies, and lists it with its uses", async () => {
    const marchYear = START.getUTCMonth() < 2 ? START.getUTCFullYear() : START.getUTCFullYear() + 1;
    const created = await createCoupon(h.op, {
      code: " primavera-20 ",
      description: "Primavera: 2 € sull'eBook",
      amountCents: 200,
      maxRedemptions: 50,
      product: EBOOK,
      // The end of March after the harness clock: a day of summer time.
      validUntil: `${marchYear}-03-31`,
    });
    expect(created).toMatchObject({
      code: "PRIMAVERA-20",
      kind: "amount",
      amountOffCents: 200,
      maxPerCustomer: 1,
      product: EBOOK,
    });
    // Through 31 March in Rome (UTC+2 in summer time).
    expect(created.validUntil).toEqual(new Date(Date.UTC(marchYear, 2, 31, 22)));

    const customer = await h.customer();
    const opened = await h.services.checkout.open(customer.id, EBOOK);
    if (!opened.ok) throw new Error(opened.reason);
    expect(await h.services.checkout.applyCoupon(customer.id, opened.orderId, "primavera-20")).toBe(true);
    expect(await orderOf(opened.orderId)).toMatchObject({ couponCode: "PRIMAVERA-20", discountCents: 200 });

    expect((await listCoupons(h.op)).find((c) => c.code === "PRIMAVERA-20")).toMatchObject({
      product: EBOOK,
      redemptions: 0,
      maxRedemptions: 50,
      disabledAt: null,
    });
    expect((await h.audited("coupon_created")).map((e) => (e.details as { code: string }).code)).toContain("PRIMAVERA-20");
    expect(await h.audited("coupons_listed")).not.toHaveLength(0);
  });

  it("refuses a code that exists, or terms that make no sense", async () => {
    await createCoupon(h.op, { code: "DOPPIO", description: "x", percent: 5 });
    const bad = [
      { code: "doppio", description: "again", percent: 5 },
      { code: "X", description: "too short", percent: 5 },
      { code: "NESSUNO", description: "neither", percent: undefined },
      { code: "ENTRAMBI", description: "both", percent: 5, amountCents: 100 },
      { code: "TROPPO", description: "over 100", percent: 101 },
      { code: "SENZA", description: "  ", percent: 5 },
      { code: "SCADUTO", description: "past", percent: 5, validUntil: dayFromStart(-1) },
      { code: "PRODOTTO", description: "no product", percent: 5, product: "NO-SUCH" },
    ];
    for (const input of bad) await expect(createCoupon(h.op, input)).rejects.toBeInstanceOf(OperatorError);
    expect((await listCoupons(h.op)).map((c) => c.code)).not.toEqual(expect.arrayContaining(["ENTRAMBI", "TROPPO", "SCADUTO"]));
  });
});

describe("coupons:disable", () => {
  it("withdraws a code: refused when applied, and at payment on an order that had it", async () => {
    await createCoupon(h.op, { code: "RITIRATO", description: "10 %", percent: 10, maxPerCustomer: 5 });
    const customer = await h.customer();
    const applied = await h.services.checkout.open(customer.id, EBOOK);
    if (!applied.ok) throw new Error(applied.reason);
    expect(await h.services.checkout.applyCoupon(customer.id, applied.orderId, "RITIRATO")).toBe(true);

    h.advance(60_000);
    const disabled = await disableCoupon(h.op, "ritirato");
    expect(disabled).toEqual({ code: "RITIRATO", disabledAt: afterStart(MINUTE), alreadyDisabled: false });

    // At payment: the code is taken off and the customer sees the full price first.
    expect(await h.services.payments.start(customer.id, applied.orderId, checkoutDetails())).toEqual({
      ok: false,
      reason: "coupon_changed",
    });
    const order = await orderOf(applied.orderId);
    expect(order).toMatchObject({ couponId: null, discountCents: 0, status: "new" });
    // When applied again: refused, nothing changes.
    expect(await h.services.checkout.applyCoupon(customer.id, applied.orderId, "RITIRATO")).toBe(false);
    expect((await orderOf(applied.orderId)).discountCents).toBe(0);
    const [row] = await h.db.select().from(coupons).where(eq(coupons.code, "RITIRATO"));
    expect(row!.redemptions).toBe(0);

    expect(await disableCoupon(h.op, "RITIRATO")).toEqual({ ...disabled, alreadyDisabled: true });
    expect((await listCoupons(h.op)).find((c) => c.code === "RITIRATO")!.disabledAt).toEqual(disabled.disabledAt);
    await expect(disableCoupon(h.op, "MAI-VISTO")).rejects.toThrow(/No discount code MAI-VISTO/);
    expect(await h.audited("coupon_disabled")).toHaveLength(2);
  });
});
