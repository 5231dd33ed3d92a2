// customer:show, customer:grant, customer:revoke, customer:export and customer:signout-all over
// the portal's services: what an operator sees and changes, what reaches the customer's access,
// what the audit log keeps, and that the export (GDPR art. 15/20) holds no secret.
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { afterStart, DAY, START } from "#tests/support/clock.ts";
import { operatorHarness } from "#tests/support/operators.ts";
import {
  entitlements,
  mailOutbox,
  oidcPayloads,
  passwordResetTokens,
  payments,
  sessions,
  subscriptionPeriods,
  subscriptions,
  users,
} from "#server/db/schema/index.ts";
import { accessTo, eduActiveUntil } from "#server/library/entitlements.ts";
import { addMonths, EDU_PRODUCT_CODE } from "#shared/library-constants.ts";
import { periodStart } from "#shared/subscription.ts";
import { OperatorError } from "./context.ts";
import { exportCustomer, grantAccess, revokeAccess, showCustomer, signOutEverywhere } from "./customers.ts";

const h = operatorHarness();
const EBOOK = "EB-9788828813217";

/** A portal session holding the provider's tokens, and the provider's own records of the account. */
async function signedIn(userId: string, marker: string) {
  await h.session(userId, marker);
  await h.db.insert(oidcPayloads).values([
    { id: `grant-${marker}`, type: "Grant", payload: { accountId: userId }, grantId: `grant-${marker}` },
    { id: `refresh-${marker}`, type: "RefreshToken", payload: { accountId: userId }, grantId: `grant-${marker}` },
  ]);
}

const productId = async (sku: string) => (await h.db.query.products.findFirst({ where: (p, { eq }) => eq(p.sku, sku) }))!.id;

describe("customer:grant and customer:revoke", () => {
  it("grants months of a product from now, and ends them now", async () => {
    const customer = await h.customer();
    const ebook = await productId(EBOOK);
    const granted = await grantAccess(h.op, customer.email.toUpperCase(), EBOOK, 3);
    expect(granted).toMatchObject({ startsAt: START, expiresAt: addMonths(START, 3) });
    expect(await accessTo(h.db, customer.id, ebook, START)).toMatchObject({ allowed: true, expiresAt: addMonths(START, 3) });
    const [grant] = await h.db.select().from(entitlements).where(eq(entitlements.userId, customer.id));
    expect(grant).toMatchObject({ source: "operator", orderId: null });

    h.advance(DAY);
    const later = afterStart(DAY);
    expect(await revokeAccess(h.op, customer.email, EBOOK)).toMatchObject({ ended: 1 });
    expect(await accessTo(h.db, customer.id, ebook, later)).toMatchObject({ allowed: false, expired: true, expiresAt: later });
    // Nothing left to end: said, not an error.
    expect(await revokeAccess(h.op, customer.email, EBOOK)).toMatchObject({ ended: 0 });

    expect((await h.audited("access_granted", customer.id))[0]!.details).toMatchObject({ product: EBOOK, months: 3 });
    expect((await h.audited("access_revoked", customer.id)).map((e) => e.details)).toEqual(
      expect.arrayContaining([
        { product: EBOOK, grantsEnded: 1 },
        { product: EBOOK, grantsEnded: 0 },
      ]),
    );
  });

  it("adds EDU after the EDU the customer has, as a code does", async () => {
    const customer = await h.customer();
    await grantAccess(h.op, customer.email, EDU_PRODUCT_CODE, 2);
    await grantAccess(h.op, customer.email, EDU_PRODUCT_CODE, 1);
    expect(await eduActiveUntil(h.db, customer.id)).toEqual(addMonths(addMonths(START, 2), 1));
    // Revoked, the stacked grant gives nothing either.
    await revokeAccess(h.op, customer.email, EDU_PRODUCT_CODE);
    h.advance(40 * DAY);
    const edu = await productId("EDU-6M");
    expect((await accessTo(h.db, customer.id, edu, afterStart(70 * DAY)))?.allowed).toBe(false);
  });

  it("gives a subscriber's EDU months in place of their next charges: none of the months it covers is charged", async () => {
    const customer = await h.customer();
    const order = await h.paidOrder(customer.id, EDU_PRODUCT_CODE);
    const [sub] = await h.db.select().from(subscriptions).where(eq(subscriptions.orderId, order.id));
    const firstMonthEnds = periodStart(sub!.anchorAt, 2);

    const granted = await grantAccess(h.op, customer.email, EDU_PRODUCT_CODE, 3);
    // From the paid month's end to where the charges start again, three months later.
    expect(granted).toMatchObject({ startsAt: firstMonthEnds, expiresAt: periodStart(sub!.anchorAt, 5) });
    const [moved] = await h.db.select().from(subscriptions).where(eq(subscriptions.id, sub!.id));
    expect(moved).toMatchObject({ freeMonths: 3, freeBy: "operator", freeUntil: periodStart(sub!.anchorAt, 5) });
    const view = await h.services.subscriptions.ofCustomer(customer.id);
    expect(view).toMatchObject({ freeBy: "operator", nextCharge: { at: periodStart(sub!.anchorAt, 5) } });

    // Four months on: the only charge after the checkout's is the month after the grant.
    for (let day = 1; day <= 125; day += 5) {
      h.advance(5 * DAY);
      await h.services.jobs.runDue();
    }
    const paidMonths = await h.db
      .select({ startsAt: subscriptionPeriods.startsAt })
      .from(subscriptionPeriods)
      .where(and(eq(subscriptionPeriods.subscriptionId, sub!.id), eq(subscriptionPeriods.status, "paid")))
      .orderBy(subscriptionPeriods.number);
    expect(paidMonths.map((m) => m.startsAt)).toEqual([sub!.anchorAt, periodStart(sub!.anchorAt, 5)]);
    const subjects = (
      await h.db.select({ subject: mailOutbox.subject }).from(mailOutbox).where(eq(mailOutbox.userId, customer.id))
    ).map((m) => m.subject);
    expect(subjects).toContain("Il tuo abbonamento EDU: i prossimi mesi sono un omaggio");
  });

  it("refuses to revoke a product the customer's running subscription would grant again", async () => {
    const customer = await h.customer();
    const order = await h.paidOrder(customer.id, EDU_PRODUCT_CODE);
    await expect(revokeAccess(h.op, customer.email, EDU_PRODUCT_CODE)).rejects.toThrow(`orders:refund ${order.orderCode}`);
    expect((await eduActiveUntil(h.db, customer.id))! > START).toBe(true);
  });

  it("says what it does not know, changing nothing", async () => {
    const customer = await h.customer();
    for (const attempt of [
      () => grantAccess(h.op, "nessuno@example.it", EBOOK, 1),
      () => grantAccess(h.op, customer.email, "NO-SUCH", 1),
      () => grantAccess(h.op, customer.email, EBOOK, 0),
      () => grantAccess(h.op, customer.email, EBOOK, 121),
      () => revokeAccess(h.op, "", EBOOK),
    ]) {
      await expect(attempt()).rejects.toBeInstanceOf(OperatorError);
    }
    expect(await h.db.select().from(entitlements).where(eq(entitlements.userId, customer.id))).toHaveLength(0);
  });
});

describe("customer:signout-all", () => {
  it("ends the customer's portal sessions and identity provider records, and no one else's", async () => {
    const [customer, other] = [await h.customer(), await h.customer()];
    await signedIn(customer.id, "a1");
    await signedIn(customer.id, "a2");
    await signedIn(other.id, "b1");
    expect(await signOutEverywhere(h.op, customer.email)).toEqual({ portalSessions: 2, providerRecords: 4 });
    expect(await h.db.select().from(sessions).where(eq(sessions.userId, customer.id))).toHaveLength(0);
    expect(await h.db.select().from(sessions).where(eq(sessions.userId, other.id))).toHaveLength(1);
    const left = (await h.db.select({ id: oidcPayloads.id }).from(oidcPayloads)).map((r) => r.id);
    expect(left).toEqual(expect.arrayContaining(["grant-b1", "refresh-b1"]));
    expect(left).not.toContain("grant-a1");
    expect((await h.audited("customer_signed_out", customer.id))[0]!.details).toEqual({ portalSessions: 2, providerRecords: 4 });
  });
});

describe("customer:show and customer:export", () => {
  it("show the profile, sessions, orders, access and subscription; the export holds everything but secrets", async () => {
    const customer = await h.customer();
    await signedIn(customer.id, "c1");
    const order = await h.paidOrder(customer.id, EDU_PRODUCT_CODE);
    await h.services.passwordResets.issue(customer.id, "reset");
    await h.services.mail.send({
      to: customer.email,
      userId: customer.id,
      subject: "Reimposta la password",
      text: "link-secret",
      html: "link-secret",
    });
    await grantAccess(h.op, customer.email, EBOOK, 1);

    const shown = await showCustomer(h.op, customer.email);
    expect(shown.profile).toMatchObject({ id: customer.id, email: customer.email, firstname: "Maria", lastname: "Rossi" });
    expect(shown.portalSessions).toHaveLength(1);
    expect(shown.orders).toEqual([
      expect.objectContaining({
        orderCode: order.orderCode,
        status: "payed",
        items: [expect.objectContaining({ sku: "EDU-6M" })],
        payments: [expect.objectContaining({ status: "payed", amountCents: order.totalCents })],
      }),
    ]);
    expect(shown.entitlements.map((e) => [e.sku, e.source])).toEqual(
      expect.arrayContaining([
        ["EDU-6M", "subscription"],
        [EBOOK, "operator"],
      ]),
    );
    expect(shown.subscriptions).toEqual([expect.objectContaining({ orderCode: order.orderCode, status: "active" })]);
    expect(await h.audited("customer_viewed", customer.id)).toHaveLength(1);

    const exported = await exportCustomer(h.op, customer.email);
    expect(exported).toMatchObject({
      format: "novalex-portal-customer-export/1",
      profile: { email: customer.email },
      orders: shown.orders,
      entitlements: shown.entitlements,
      subscriptions: shown.subscriptions,
      passwordLinks: [expect.objectContaining({ purpose: "reset" })],
      mails: expect.arrayContaining([expect.objectContaining({ subject: "Reimposta la password" })]),
      // The operator by role, not by login.
      auditLog: expect.arrayContaining([expect.objectContaining({ event: "access_granted", actor: "operator" })]),
    });
    expect(JSON.stringify(exported.auditLog)).not.toContain("operator:test");
    expect(exported.identityProviderRecords.map((r) => r.kind).sort()).toEqual(["Grant", "RefreshToken"]);

    // Nothing that opens the account or a payment: checked against the rows themselves.
    const json = JSON.stringify(exported);
    const [user] = await h.db.select().from(users).where(eq(users.id, customer.id));
    const [session] = await h.db.select().from(sessions).where(eq(sessions.userId, customer.id));
    const [reset] = await h.db.select().from(passwordResetTokens).where(eq(passwordResetTokens.userId, customer.id));
    const [payment] = await h.db.select().from(payments).where(eq(payments.orderId, order.id));
    for (const secret of [
      user!.passwordHash!,
      session!.idHash,
      "access-c1",
      "refresh-c1",
      "id-c1",
      "grant-c1",
      reset!.tokenHash,
      "link-secret",
      payment!.chargeId,
    ]) {
      expect(json).not.toContain(secret);
    }
    expect(json).not.toMatch(/argon2|passwordHash|idHash|tokenHash/i);
    expect(await h.audited("customer_exported", customer.id)).toHaveLength(1);
  });
});
