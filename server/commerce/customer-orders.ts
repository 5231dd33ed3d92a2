// A customer's orders and payments as the API gives them (spec §7: myorders, myactiveorders,
// mypayments, order load, orderpayment load): always filtered by the customer, so an id of
// someone else's order or payment finds nothing.
import { and, count, desc, eq, exists, inArray, notInArray, sql, type SQL } from "drizzle-orm";
import { PAPER_TYPE_CODES } from "#shared/commerce-constants.ts";
import type { Database, Queryable } from "#server/db/client.ts";
import { orderItems, orderStatuses, orders, payments } from "#server/db/schema/index.ts";

/**
 * Orders newest first by when they were paid (committed), those never paid by when they were made;
 * the order code (unique) breaks ties, so pages neither repeat nor skip an order paid at the same time.
 */
const byCommitted = [desc(sql`coalesce(${orders.committedAt}, ${orders.createdAt})`), desc(orders.orderCode)];
/** Payments newest first; the payment code (unique) breaks ties, as for orders. */
const byPaid = [desc(payments.paidAt), desc(payments.paymentCode)];

const orderColumns = {
  id: orders.id,
  orderCode: orders.orderCode,
  userId: orders.userId,
  status: orders.status,
  createdAt: orders.createdAt,
  committedAt: orders.committedAt,
  totalCents: orders.totalCents,
  subtotalCents: orders.subtotalCents,
  discountCents: orders.discountCents,
  shipmentPriceCents: orders.shipmentPriceCents,
  couponCode: orders.couponCode,
  paymentHub: orders.paymentHub,
  hasShipment: orders.hasShipment,
  hasOptionAdvance: orders.hasOptionAdvance,
  optionAdvance: orders.optionAdvance,
  customerFirstname: orders.customerFirstname,
  customerLastname: orders.customerLastname,
  customerEmail: orders.customerEmail,
  // What the checkout was sent (spec §3), so that a client can show it again.
  shipment: orders.shipment,
  shipmentSave: orders.shipmentSave,
  hasBilling: orders.hasBilling,
  billing: orders.billing,
  billingSave: orders.billingSave,
  termsSalesAt: orders.termsSalesAt,
  termsCancelAt: orders.termsCancelAt,
};

/** A page of a list: `limit` rows from `offset`. */
export type PageQuery = { limit?: number; offset?: number };

export type OrderQuery = {
  activeOnly?: boolean;
  hidePaper?: boolean;
  orderCode?: string;
  limit?: number;
  offset?: number;
};

export function createCustomerOrders(db: Database) {
  async function withItems<T extends { id: string }>(
    rows: T[],
    on: Queryable = db,
  ): Promise<(T & { items: (typeof orderItems.$inferSelect)[] })[]> {
    if (rows.length === 0) return [];
    const items = await on
      .select()
      .from(orderItems)
      .where(
        inArray(
          orderItems.orderId,
          rows.map((r) => r.id),
        ),
      );
    return rows.map((row) => ({ ...row, items: items.filter((item) => item.orderId === row.id) }));
  }

  /** Which of the customer's orders a list holds (see `list`). */
  function ordersWhere(userId: string, { activeOnly = false, hidePaper = false, orderCode }: OrderQuery): SQL {
    return and(
      eq(orders.userId, userId),
      activeOnly ? eq(orders.status, "payed") : undefined,
      orderCode === undefined ? undefined : eq(orders.orderCode, orderCode),
      hidePaper
        ? exists(
            db
              .select({ one: sql`1` })
              .from(orderItems)
              .where(
                and(
                  eq(orderItems.orderId, orders.id),
                  // A line of any other type (or of none recorded) is not a printed book.
                  notInArray(sql`coalesce(${orderItems.productTypeCode}, '')`, [...PAPER_TYPE_CODES]),
                ),
              ),
          )
        : undefined,
    )!;
  }

  async function listOn(on: Queryable, userId: string, query: OrderQuery) {
    const rows = await on
      .select(orderColumns)
      .from(orders)
      .where(ordersWhere(userId, query))
      .orderBy(...byCommitted)
      .limit(query.limit ?? 50)
      .offset(query.offset ?? 0);
    return withItems(rows, on);
  }

  const paymentsWhere = (userId: string, ids?: readonly string[]) =>
    and(eq(payments.userId, userId), ids ? inArray(payments.id, [...ids]) : undefined);

  function paymentsOn(on: Queryable, userId: string, { ids, limit = 50, offset = 0 }: PageQuery & { ids?: readonly string[] }) {
    return on
      .select({
        id: payments.id,
        paymentCode: payments.paymentCode,
        orderId: payments.orderId,
        orderCode: orders.orderCode,
        methodCode: payments.methodCode,
        status: payments.status,
        amountCents: payments.amountCents,
        cardBrand: payments.cardBrand,
        cardLast4: payments.cardLast4,
        paidAt: payments.paidAt,
        refundedAt: payments.refundedAt,
      })
      .from(payments)
      .innerJoin(orders, eq(orders.id, payments.orderId))
      .where(paymentsWhere(userId, ids))
      .orderBy(...byPaid)
      .limit(limit)
      .offset(offset);
  }

  /**
   * A page and the count of its whole list in one snapshot (a read-only, repeatable-read
   * transaction): an order paid between the two reads cannot make the total disagree with the page.
   */
  function consistently<T>(read: (tx: Queryable) => Promise<T>): Promise<T> {
    return db.transaction(read, { isolationLevel: "repeatable read", accessMode: "read only" });
  }

  return {
    /**
     * The customer's orders, newest first, `limit` from `offset`. `activeOnly`: the paid ones;
     * `hidePaper`: without the orders of printed books only; `orderCode`: that one order.
     */
    list: (userId: string, query: OrderQuery = {}) => listOn(db, userId, query),

    /** A page of `list` and how many orders the whole list holds. */
    orderPage: (userId: string, query: OrderQuery = {}) =>
      consistently(async (tx) => {
        const [counted] = await tx.select({ total: count() }).from(orders).where(ordersWhere(userId, query));
        return { rows: await listOn(tx, userId, query), total: counted?.total ?? 0 };
      }),

    /** The statuses an order can be in, code → name (the same for everyone). */
    async statusNames(): Promise<Record<string, string>> {
      const rows = await db.select().from(orderStatuses);
      return Object.fromEntries(rows.map((row) => [row.code, row.name]));
    },

    /** The customer's order lines among `ids`. */
    async items(userId: string, ids: readonly string[]) {
      if (ids.length === 0) return [];
      return db
        .select({ item: orderItems })
        .from(orderItems)
        .innerJoin(orders, eq(orders.id, orderItems.orderId))
        .where(and(eq(orders.userId, userId), inArray(orderItems.id, [...ids])))
        .then((rows) => rows.map((row) => row.item));
    },

    /** The customer's orders among `ids` (others' ids find nothing). */
    async load(userId: string, ids: readonly string[]) {
      if (ids.length === 0) return [];
      const rows = await db
        .select(orderColumns)
        .from(orders)
        .where(and(eq(orders.userId, userId), inArray(orders.id, [...ids])))
        .orderBy(...byCommitted);
      return withItems(rows);
    },

    /** The customer's payments, newest first, `limit` from `offset`; `ids`: only those. */
    payments: (userId: string, query: PageQuery & { ids?: readonly string[] } = {}) => paymentsOn(db, userId, query),

    /** A page of the customer's payments and how many they have, read together. */
    paymentPage: (userId: string, query: PageQuery = {}) =>
      consistently(async (tx) => {
        const [counted] = await tx
          .select({ total: count() })
          .from(payments)
          .innerJoin(orders, eq(orders.id, payments.orderId))
          .where(paymentsWhere(userId));
        return { rows: await paymentsOn(tx, userId, query), total: counted?.total ?? 0 };
      }),
  };
}

export type CustomerOrders = ReturnType<typeof createCustomerOrders>;
