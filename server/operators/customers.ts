// Operators' commands for a customer: what the portal holds about them (shown, or exported whole
// for a request under GDPR art. 15 and 20), access given or taken away by hand, and signing them
// out everywhere. What is read about them is server/accounts/customer-data.ts's.
import { and, eq, ne, sql } from "drizzle-orm";
import { entitlements, oidcPayloads, orders, sessions, subscriptions } from "#server/db/schema/index.ts";
import { customerData, customerSummary } from "#server/accounts/customer-data.ts";
import { endEntitlements, grantEntitlement } from "#server/library/entitlements.ts";
import { lockCustomer } from "#server/db/customer-lock.ts";
import { giveFreeEduMonths } from "#server/commerce/subscription-records.ts";
import { addMonths, EDU_PRODUCT_CODE } from "#shared/library-constants.ts";
import { checkInteger, customerByEmail, OperatorError, productBySkuOrCode, recordOperation, type Operator } from "./context.ts";

/** The longest access an operator grants in one go. */
const MAX_GRANT_MONTHS = 120;

export async function showCustomer(op: Operator, email: string) {
  const customer = await customerByEmail(op.db, email);
  const summary = await customerSummary(op.db, customer.id);
  await recordOperation(op.db, op, "customer_viewed", { userId: customer.id, details: { command: "customer:show" } });
  return summary;
}

/** Everything the portal holds about the customer (customer-data.ts), for a request under GDPR art. 15 and 20. */
export async function exportCustomer(op: Operator, email: string) {
  const customer = await customerByEmail(op.db, email);
  const data = await customerData(op.db, customer, op.services.clock());
  await recordOperation(op.db, op, "customer_exported", { userId: customer.id, details: { command: "customer:export" } });
  return data;
}

export type GrantResult = { product: { sku: string; name: string }; startsAt: Date; expiresAt: Date };

/**
 * Gives the customer `months` of a product from now, with no order behind it (source
 * `operator`). EDU goes as an eBook+EDU code's does: during a subscription the months take the
 * place of its next charges (nothing they cover is charged), otherwise they stack after the EDU
 * the customer already has.
 */
export async function grantAccess(op: Operator, email: string, productRef: string, months: number): Promise<GrantResult> {
  const { db, services } = op;
  checkInteger(months, "--months", 1, MAX_GRANT_MONTHS);
  const customer = await customerByEmail(db, email);
  const product = await productBySkuOrCode(db, productRef);
  const now = services.clock();
  const grant = await db.transaction(async (tx) => {
    await lockCustomer(tx, customer.id);
    const row =
      product.code === EDU_PRODUCT_CODE
        ? await giveFreeEduMonths(tx, { userId: customer.id, orderId: null, months, source: "operator", at: now })
        : await grantEntitlement(
            tx,
            {
              userId: customer.id,
              productId: product.id,
              source: "operator",
              startsAt: now,
              expiresAt: addMonths(now, months),
              orderId: null,
            },
            now,
          );
    await recordOperation(tx, op, "access_granted", {
      userId: customer.id,
      details: { product: product.sku, months, startsAt: row.startsAt, expiresAt: row.expiresAt },
    });
    return row;
  });
  return { product: { sku: product.sku, name: product.name }, startsAt: grant.startsAt, expiresAt: grant.expiresAt! };
}

export type RevokeResult = { product: { sku: string; name: string }; ended: number };

/**
 * Ends now every running (or stacked) grant of the product to the customer, whatever gave it.
 * Refused while a subscription to the product runs: it would grant the next month again, so
 * the order is refunded (`orders:refund`) or the customer cancels.
 */
export async function revokeAccess(op: Operator, email: string, productRef: string): Promise<RevokeResult> {
  const { db, services } = op;
  const customer = await customerByEmail(db, email);
  const product = await productBySkuOrCode(db, productRef);
  const now = services.clock();
  const ended = await db.transaction(async (tx) => {
    await lockCustomer(tx, customer.id);
    const [live] = await tx
      .select({ orderCode: orders.orderCode })
      .from(subscriptions)
      .innerJoin(orders, eq(orders.id, subscriptions.orderId))
      .where(
        and(eq(subscriptions.userId, customer.id), eq(subscriptions.productId, product.id), ne(subscriptions.status, "ended")),
      );
    if (live) {
      throw new OperatorError(
        `${customer.email} has a running subscription to ${product.sku}: end it with \`orders:refund ${live.orderCode}\`, ` +
          "or the customer cancels it ('Disdici')",
      );
    }
    const rows = await endEntitlements(
      tx,
      and(eq(entitlements.userId, customer.id), eq(entitlements.productId, product.id)),
      now,
    );
    await recordOperation(tx, op, "access_revoked", {
      userId: customer.id,
      details: { product: product.sku, grantsEnded: rows.length },
    });
    return rows.length;
  });
  return { product: { sku: product.sku, name: product.name }, ended };
}

export type SignOutResult = { portalSessions: number; providerRecords: number };

/** Ends every portal session and every identity provider grant, session and token of the customer. */
export async function signOutEverywhere(op: Operator, email: string): Promise<SignOutResult> {
  const { db, services } = op;
  const customer = await customerByEmail(db, email);
  // Counted first, for the operator's report; the ending itself is the portal's own (as after a password reset).
  const [portal] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(sessions)
    .where(eq(sessions.userId, customer.id));
  const [provider] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(oidcPayloads)
    .where(sql`${oidcPayloads.payload} ->> 'accountId' = ${customer.id}`);
  await services.endAllSessions(customer.id);
  const result = { portalSessions: portal!.n, providerRecords: provider!.n };
  await recordOperation(db, op, "customer_signed_out", { userId: customer.id, details: result });
  return result;
}
