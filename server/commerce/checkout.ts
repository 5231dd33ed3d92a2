// The checkout before payment (spec §2, §4, §5): an open order per customer and product, its
// page, and its discount code. What the customer types is validated by the page's form schema;
// this service re-checks status and ownership, and computes every amount itself.
import { and, count, desc, eq, inArray, isNotNull, or, sql } from "drizzle-orm";
import type { Database, Queryable } from "#server/db/client.ts";
import { isUniqueViolation } from "#server/db/errors.ts";
import {
  couponRedemptions,
  coupons,
  orderItems,
  orders,
  paymentAttempts,
  products,
  productTypes,
  savedCheckoutDetails,
  users,
  type BillingDetails,
  type OrderClosedReason,
  type OrderStatusCode,
  type PaymentAttemptStatus,
  type PaymentHub,
  type PostalAddress,
} from "#server/db/schema/index.ts";
import { systemClock, type Clock } from "#server/lib/clock.ts";
import { isProductCode } from "#server/lib/ids.ts";
import { isUuid } from "#server/lib/uuid.ts";
import type { RateLimits } from "#server/security/rate-limits.ts";
import { activeEduClosure, purchaseBlockedBySubscription } from "./edu-sold-once.ts";
import { newOrderCode } from "#server/lib/order-codes.ts";
import { couponFits, totalsOf, type CouponTerms, type Line } from "#shared/order-totals.ts";

/** Product types that travel by courier: an order holding one needs a shipping address. */
const PAPER_TYPE_CODES = ["paper_flex", "paper_hard"];
/** Statuses of an order still being bought: at most one per customer and product. */
const OPEN_STATUSES: OrderStatusCode[] = ["new", "waitforpayment"];

/** What the customer submits with 'Completa l'acquisto', validated by the page. */
export type CheckoutDetails = {
  customer: { firstname: string; lastname: string; email: string };
  /** Present when the order holds a paper item. */
  shipment: PostalAddress | null;
  shipmentSave: boolean;
  /** Present when the customer asked for an invoice. */
  billing: BillingDetails | null;
  billingSave: boolean;
  paymentHub: PaymentHub;
};

type CheckoutLine = {
  description: string;
  quantity: number;
  typeName: string;
  totalCents: number;
  /** A subscription's monthly price (EDU): the line's total is its first month. */
  monthlyPriceCents: number | null;
};

export type CheckoutView = {
  id: string;
  orderCode: string;
  status: OrderStatusCode;
  lines: CheckoutLine[];
  itemCount: number;
  subtotalCents: number;
  discountCents: number;
  totalCents: number;
  shipmentPriceCents: number;
  couponCode: string | null;
  hasShipment: boolean;
  paymentHub: PaymentHub | null;
  /** What the form shows: the order's own data, else what the customer saved, else their profile. */
  customer: { firstname: string; lastname: string; email: string };
  shipment: PostalAddress | null;
  shipmentSave: boolean;
  billing: BillingDetails | null;
  billingSave: boolean;
  /** The latest payment attempt: the return page and the card step read it. */
  attempt: {
    setupId: string | null;
    status: PaymentAttemptStatus;
    errorMessage: string | null;
  } | null;
  /** Why the portal closed the order, when it did (decision 024), with what the page tells of it. */
  closed: {
    reason: OrderClosedReason;
    /** Until when EDU runs now. */
    eduUntil: Date | null;
    /** What was charged and is given back; null when nothing was charged. */
    refundedCents: number | null;
  } | null;
};

export type OpenResult = { ok: true; orderId: string } | { ok: false; reason: "unknown_product" | "edu_active" };

export type CheckoutOptions = { db: Database; rateLimits: RateLimits; now?: Clock };

/** The order's lines with their products, for totals and coupons. */
async function linesOf(db: Queryable, orderId: string): Promise<Line[]> {
  return db
    .select({ productId: orderItems.productId, totalCents: orderItems.totalCents })
    .from(orderItems)
    .where(eq(orderItems.orderId, orderId));
}

/** A discount code as stored and looked up: trimmed and upper-cased (typing is case-insensitive). */
export const normalizeCouponCode = (input: string) => input.trim().toUpperCase();

/**
 * Whether a coupon may be used now by this customer on these lines: within its window and its
 * caps (in all, and per customer), on its product, and leaving something to pay.
 */
export async function couponUsable(
  db: Queryable,
  coupon: typeof coupons.$inferSelect,
  { userId, lines, now }: { userId: string; lines: Line[]; now: Date },
): Promise<boolean> {
  if (coupon.disabledAt) return false;
  if (coupon.validFrom && coupon.validFrom > now) return false;
  if (coupon.validUntil && coupon.validUntil <= now) return false;
  if (coupon.maxRedemptions !== null && coupon.redemptions >= coupon.maxRedemptions) return false;
  if (!couponFits(coupon, lines)) return false;
  const [used] = await db
    .select({ n: count() })
    .from(couponRedemptions)
    .where(and(eq(couponRedemptions.couponId, coupon.id), eq(couponRedemptions.userId, userId)));
  return (used?.n ?? 0) < coupon.maxPerCustomer;
}

/** Keeps the details of a paid order for the customer's next checkout, as they asked. */
export async function saveDetailsForNextTime(
  tx: Queryable,
  order: Pick<typeof orders.$inferSelect, "userId" | "shipment" | "shipmentSave" | "billing" | "billingSave">,
  at: Date,
): Promise<void> {
  const shipment = order.shipmentSave ? order.shipment : null;
  const billing = order.billingSave ? order.billing : null;
  if (!shipment && !billing) return;
  await tx
    .insert(savedCheckoutDetails)
    .values({ userId: order.userId, shipment, billing, updatedAt: at })
    .onConflictDoUpdate({
      target: savedCheckoutDetails.userId,
      set: {
        // What was not asked to be kept this time stays as it was.
        shipment: shipment ? sql`excluded.shipment` : sql`${savedCheckoutDetails.shipment}`,
        billing: billing ? sql`excluded.billing` : sql`${savedCheckoutDetails.billing}`,
        updatedAt: at,
      },
    });
}

export function createCheckout({ db, rateLimits, now = systemClock }: CheckoutOptions) {
  /** The order's latest payment attempt: the return page and the card step read it. */
  const latestAttempt = db
    .select({
      setupId: paymentAttempts.setupId,
      status: paymentAttempts.status,
      errorMessage: paymentAttempts.errorMessage,
    })
    .from(paymentAttempts)
    .where(eq(paymentAttempts.orderId, orders.id))
    .orderBy(desc(paymentAttempts.attemptNo))
    .limit(1)
    .as("attempt");

  /** The order's lines, by description, as the page lists them. */
  const orderLines = sql<CheckoutLine[]>`(
    select coalesce(json_agg(json_build_object(
      'description', ${orderItems.description},
      'quantity', ${orderItems.quantity},
      'typeName', ${productTypes.name},
      'totalCents', ${orderItems.totalCents},
      'monthlyPriceCents', ${orderItems.monthlyPriceCents}
    ) order by ${orderItems.description}), '[]'::json)
    from ${orderItems}
    join ${products} on ${products.id} = ${orderItems.productId}
    join ${productTypes} on ${productTypes.id} = ${products.productTypeId}
    where ${orderItems.orderId} = ${orders.id}
  )`;

  /**
   * What the checkout page shows of the customer's order, in one statement prepared once (the
   * page reads it on every visit): the order, its lines, the customer's account and saved
   * details, and its latest payment attempt. No row when the order is not theirs.
   */
  const orderPage = db
    .select({
      // What the page shows of the order, not all of it: every column read is decoded on every visit.
      order: {
        id: orders.id,
        orderCode: orders.orderCode,
        status: orders.status,
        subtotalCents: orders.subtotalCents,
        discountCents: orders.discountCents,
        totalCents: orders.totalCents,
        shipmentPriceCents: orders.shipmentPriceCents,
        couponCode: orders.couponCode,
        hasShipment: orders.hasShipment,
        paymentHub: orders.paymentHub,
        customerFirstname: orders.customerFirstname,
        customerLastname: orders.customerLastname,
        customerEmail: orders.customerEmail,
        shipment: orders.shipment,
        shipmentSave: orders.shipmentSave,
        billing: orders.billing,
        billingSave: orders.billingSave,
        optionAdvance: orders.optionAdvance,
        closedReason: orders.closedReason,
      },
      lines: orderLines,
      user: { firstname: users.firstname, lastname: users.lastname, email: users.email },
      saved: { shipment: savedCheckoutDetails.shipment, billing: savedCheckoutDetails.billing },
      // Status first: Drizzle makes a left-joined object null when its first column is (a `created`
      // attempt has no setup yet).
      attempt: { status: latestAttempt.status, setupId: latestAttempt.setupId, errorMessage: latestAttempt.errorMessage },
    })
    .from(orders)
    .leftJoin(users, eq(users.id, orders.userId))
    .leftJoin(savedCheckoutDetails, eq(savedCheckoutDetails.userId, orders.userId))
    .leftJoinLateral(latestAttempt, sql`true`)
    .where(and(eq(orders.id, sql.placeholder("orderId")), eq(orders.userId, sql.placeholder("userId"))))
    .prepare("checkout_view");

  /** The open order of this customer for this product, if any. */
  async function openOrderFor(userId: string, productId: string): Promise<string | null> {
    const [row] = await db
      .select({ id: orders.id })
      .from(orders)
      .where(and(eq(orders.userId, userId), eq(orders.checkoutProductId, productId), inArray(orders.status, OPEN_STATUSES)));
    return row?.id ?? null;
  }

  /** Recomputes and stores an order's totals, with or without a coupon, while it is `new`. */
  async function writeTotals(orderId: string, userId: string, coupon: (CouponTerms & { id: string; code: string }) | null) {
    const lines = await linesOf(db, orderId);
    const totals = totalsOf(lines, coupon);
    const updated = await db
      .update(orders)
      .set({ ...totals, couponId: coupon?.id ?? null, couponCode: coupon?.code ?? null, updatedAt: now() })
      .where(
        and(
          eq(orders.id, orderId),
          eq(orders.userId, userId),
          eq(orders.status, "new"),
          // Removing a code that is not there writes nothing.
          coupon ? undefined : isNotNull(orders.couponId),
        ),
      )
      .returning({ id: orders.id });
    return updated.length > 0;
  }

  /** A product on sale, by its business code or its SKU. */
  async function sellableProduct(productCode: string) {
    if (!isProductCode(productCode)) return undefined;
    const code = productCode.trim();
    const [product] = await db
      .select({
        id: products.id,
        code: products.code,
        name: products.name,
        typeCode: productTypes.code,
        typeName: productTypes.name,
        priceCents: products.priceCents,
        monthlyPriceCents: products.monthlyPriceCents,
        vatRateBps: products.vatRateBps,
      })
      .from(products)
      .innerJoin(productTypes, eq(productTypes.id, products.productTypeId))
      .where(and(or(eq(products.code, code), eq(products.sku, code)), eq(products.sellable, true)));
    return product;
  }

  return {
    /**
     * What /create-checkout/:productcode shows before the order exists (a GET changes nothing):
     * the product, and the customer's open order for it if there is one.
     */
    async preview(userId: string, productCode: string) {
      const product = await sellableProduct(productCode);
      if (!product) return null;
      const { name, typeName, priceCents, monthlyPriceCents } = product;
      return { product: { name, typeName, priceCents, monthlyPriceCents }, openOrderId: await openOrderFor(userId, product.id) };
    },

    /**
     * /create-checkout/:productcode: the customer's open order for the product (by its code, or
     * its SKU), or a new one. Two requests at once still make one order: the partial unique
     * index on open orders refuses the second, which then finds the first.
     */
    async open(userId: string, productCode: string): Promise<OpenResult> {
      const product = await sellableProduct(productCode);
      if (!product) return { ok: false, reason: "unknown_product" };

      const existing = await openOrderFor(userId, product.id);
      if (existing) return { ok: true, orderId: existing };
      if (await purchaseBlockedBySubscription(db, userId, product.id, now())) return { ok: false, reason: "edu_active" };

      // A subscription's line is its first month (the rest is charged month by month).
      const lineCents = product.monthlyPriceCents ?? product.priceCents;
      const at = now();
      try {
        const orderId = await db.transaction(async (tx) => {
          const [order] = await tx
            .insert(orders)
            .values({
              orderCode: newOrderCode(at),
              userId,
              status: "new",
              checkoutProductId: product.id,
              hasShipment: PAPER_TYPE_CODES.includes(product.typeCode),
              subtotalCents: lineCents,
              totalCents: lineCents,
              paymentHub: "card",
              createdAt: at,
              updatedAt: at,
            })
            .returning({ id: orders.id });
          await tx.insert(orderItems).values({
            orderId: order!.id,
            productId: product.id,
            description: product.name,
            quantity: 1,
            unitPriceCents: lineCents,
            totalCents: lineCents,
            monthlyPriceCents: product.monthlyPriceCents,
            productTypeCode: product.typeCode,
            vatRateBps: product.vatRateBps,
          });
          return order!.id;
        });
        return { ok: true, orderId };
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
        const raced = await openOrderFor(userId, product.id);
        if (!raced) throw error;
        return { ok: true, orderId: raced };
      }
    },

    /**
     * The checkout page of an order, or null when it is not this customer's (spec §6). An
     * advance option left switched on is switched off (spec §4).
     */
    async view(userId: string, orderId: string): Promise<CheckoutView | null> {
      if (!isUuid(orderId)) return null;
      const [row] = await orderPage.execute({ orderId, userId });
      if (!row) return null;
      const { order, lines, user, saved, attempt } = row;
      if (order.optionAdvance) {
        await db.update(orders).set({ optionAdvance: false, updatedAt: now() }).where(eq(orders.id, orderId));
      }
      return {
        id: order.id,
        orderCode: order.orderCode,
        status: order.status,
        lines,
        itemCount: lines.reduce((sum, line) => sum + line.quantity, 0),
        subtotalCents: order.subtotalCents,
        discountCents: order.discountCents,
        totalCents: order.totalCents,
        shipmentPriceCents: order.shipmentPriceCents,
        couponCode: order.couponCode,
        hasShipment: order.hasShipment,
        paymentHub: order.paymentHub,
        customer: {
          firstname: order.customerFirstname ?? user?.firstname ?? "",
          lastname: order.customerLastname ?? user?.lastname ?? "",
          email: order.customerEmail ?? user?.email ?? "",
        },
        shipment: order.shipment ?? saved?.shipment ?? null,
        shipmentSave: order.shipmentSave || Boolean(saved?.shipment),
        billing: order.billing ?? saved?.billing ?? null,
        billingSave: order.billingSave || Boolean(saved?.billing),
        attempt: attempt ?? null,
        closed: order.closedReason
          ? { reason: order.closedReason, ...(await activeEduClosure(db, { id: order.id, userId })) }
          : null,
      };
    },

    /**
     * Applies a discount code to an order being edited: trimmed, case-insensitive; empty is
     * ignored. A code that does not apply changes nothing (spec §8: no message) and counts
     * against the customer's attempts, so codes cannot be guessed in bulk.
     */
    async applyCoupon(userId: string, orderId: string, input: string): Promise<boolean> {
      const code = normalizeCouponCode(input);
      if (code === "" || !isUuid(orderId)) return false;
      if (!(await rateLimits.checkCoupon(userId)).ok) return false;
      const [coupon] = await db.select().from(coupons).where(eq(coupons.code, code));
      const lines = await linesOf(db, orderId);
      const usable = coupon && (await couponUsable(db, coupon, { userId, lines, now: now() }));
      if (!usable) {
        await rateLimits.recordCouponFailure(userId);
        return false;
      }
      return writeTotals(orderId, userId, coupon);
    },

    /** Removes the discount code of an order being edited. */
    async removeCoupon(userId: string, orderId: string): Promise<boolean> {
      if (!isUuid(orderId)) return false;
      return writeTotals(orderId, userId, null);
    },
  };
}
