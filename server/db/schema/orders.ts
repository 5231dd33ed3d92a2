// Orders and coupons: the checkout's order, its lines, the discount codes and what the checkout keeps.
import { sql } from "drizzle-orm";
import { boolean, check, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { products } from "./catalogue.ts";
import { users } from "./accounts.ts";
import { id, createdAt } from "./columns.ts";

/**
 * Order statuses with the spec's codes. Only `payed` counts as an active order; `new` is
 * editable and payable, `waitforpayment` awaits the payment result, the others are inactive
 * (`refunded`: an operator gave the money back, and the access it granted ended).
 */
export const ORDER_STATUS_CODES = ["new", "waitforpayment", "payed", "cancelled", "expired", "interrupted", "refunded"] as const;
export type OrderStatusCode = (typeof ORDER_STATUS_CODES)[number];

/**
 * Why the portal closed an order the customer was paying: `edu_already_active`, EDU became active
 * (an eBook+EDU code, an operator's grant) while the customer was paying for EDU, so the payment
 * was stopped, or its charge given back (decision 024).
 */
export const ORDER_CLOSED_REASONS = ["edu_already_active"] as const;
export type OrderClosedReason = (typeof ORDER_CLOSED_REASONS)[number];

export const orderStatuses = pgTable("order_statuses", {
  code: text("code", { enum: ORDER_STATUS_CODES }).primaryKey(),
  name: text("name").notNull(),
});

/** The payment methods of the checkout (spec §2): only `card` completes a purchase. */
export const PAYMENT_HUBS = ["card", "sepa", "instalments", "student_card"] as const;
export type PaymentHub = (typeof PAYMENT_HUBS)[number];

/** An Italian postal address as a courier and an e-invoice need it. */
export type PostalAddress = {
  firstname: string;
  lastname: string;
  /** Street and number. */
  address: string;
  postcode: string;
  city: string;
  /** The province's sigla (MI, RM, …). */
  province: string;
  country: "IT";
  /** 'Presso' (care of). */
  at?: string;
  mobile?: string;
};

/** Who the invoice is made out to (spec §3: billing_*), and where. */
export type BillingDetails = {
  isCompany: boolean;
  /** Ragione Sociale (companies). */
  name?: string;
  /** Partita IVA (companies). */
  vat?: string;
  /** Codice Univoco SDI (companies). */
  sdi?: string;
  pec?: string;
  /** Codice Fiscale (private customers). */
  ssn?: string;
  addressAsShipment: boolean;
  address: PostalAddress;
};

export const COUPON_KINDS = ["percent", "amount"] as const;

/** Discount codes (spec §5): a percentage or an amount, within a window and caps. */
export const coupons = pgTable(
  "coupons",
  {
    id: id(),
    /** Upper case; a customer's input is trimmed and upper-cased before the lookup. */
    code: text("code").notNull().unique(),
    description: text("description").notNull(),
    kind: text("kind", { enum: COUPON_KINDS }).notNull(),
    /** 1–100 for a percentage. */
    percentOff: integer("percent_off"),
    amountOffCents: integer("amount_off_cents"),
    validFrom: timestamp("valid_from", { withTimezone: true }),
    /** First instant the code no longer works; null: never expires. */
    validUntil: timestamp("valid_until", { withTimezone: true }),
    /** Uses in all; null: unlimited. */
    maxRedemptions: integer("max_redemptions"),
    redemptions: integer("redemptions").notNull().default(0),
    maxPerCustomer: integer("max_per_customer").notNull().default(1),
    /** Only for orders holding this product; null: any. */
    productId: uuid("product_id").references(() => products.id),
    /** An operator withdrew the code: it applies to no order from then on. */
    disabledAt: timestamp("disabled_at", { withTimezone: true }),
    createdAt: createdAt(),
  },
  (t) => [
    check(
      "coupons_kind_value",
      sql`(${t.kind} = 'percent' and ${t.percentOff} between 1 and 100 and ${t.amountOffCents} is null)
        or (${t.kind} = 'amount' and ${t.amountOffCents} > 0 and ${t.percentOff} is null)`,
    ),
    check(
      "coupons_redemptions_within_cap",
      sql`${t.redemptions} >= 0 and (${t.maxRedemptions} is null or ${t.redemptions} <= ${t.maxRedemptions})`,
    ),
  ],
);

export const orders = pgTable(
  "orders",
  {
    id: id(),
    /** Readable and unique, shown to the customer as 'Numero d'ordine'. */
    orderCode: text("order_code").notNull().unique(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id),
    status: text("status", { enum: ORDER_STATUS_CODES })
      .notNull()
      .default("new")
      .references(() => orderStatuses.code),
    totalCents: integer("total_cents").notNull().default(0),
    shipmentPriceCents: integer("shipment_price_cents").notNull().default(0),
    createdAt: createdAt(),
    /** When the order was paid (or, for a free activation, completed). */
    committedAt: timestamp("committed_at", { withTimezone: true }),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),

    // The checkout (spec §3's order fields). Totals are recomputed by the server from the items
    // and the coupon every time the order changes, never read from a form.
    subtotalCents: integer("subtotal_cents").notNull().default(0),
    discountCents: integer("discount_cents").notNull().default(0),
    couponId: uuid("coupon_id").references(() => coupons.id),
    /** The applied code as the customer sees it (couponcode_code). */
    couponCode: text("coupon_code"),
    /**
     * The product a /create-checkout/:productcode order was opened for: with the partial unique
     * index below, a customer has at most one open order per product, however often the link is
     * followed.
     */
    checkoutProductId: uuid("checkout_product_id").references(() => products.id),
    paymentHub: text("payment_hub", { enum: PAYMENT_HUBS }),
    hasOptionAdvance: boolean("has_option_advance").notNull().default(false),
    optionAdvance: boolean("option_advance").notNull().default(false),
    customerFirstname: text("customer_firstname"),
    customerLastname: text("customer_lastname"),
    customerEmail: text("customer_email"),
    /** Whether the order holds a paper item, so that a shipping address is needed. */
    hasShipment: boolean("has_shipment").notNull().default(false),
    shipment: jsonb("shipment").$type<PostalAddress>(),
    shipmentSave: boolean("shipment_save").notNull().default(false),
    hasBilling: boolean("has_billing").notNull().default(false),
    billing: jsonb("billing").$type<BillingDetails>(),
    billingSave: boolean("billing_save").notNull().default(false),
    termsSalesAt: timestamp("terms_sales_at", { withTimezone: true }),
    termsCancelAt: timestamp("terms_cancel_at", { withTimezone: true }),
    /** Set when the portal itself closed the order (status `cancelled`): why, for the page and the mail. */
    closedReason: text("closed_reason", { enum: ORDER_CLOSED_REASONS }),
  },
  (t) => [
    index("orders_user_committed_idx").on(t.userId, t.committedAt),
    check("orders_total_not_negative", sql`${t.totalCents} >= 0 and ${t.shipmentPriceCents} >= 0`),
    check("orders_discount_within_subtotal", sql`${t.discountCents} >= 0 and ${t.discountCents} <= ${t.subtotalCents}`),
    uniqueIndex("orders_one_open_per_product")
      .on(t.userId, t.checkoutProductId)
      .where(sql`${t.status} in ('new', 'waitforpayment')`),
    // The abandoned-order sweep (commerce/order-expiry.ts) reads the unsubmitted orders every minute.
    index("orders_new_by_update_idx")
      .on(t.updatedAt)
      .where(sql`${t.status} = 'new'`),
  ],
);

export const orderItems = pgTable(
  "order_items",
  {
    id: id(),
    orderId: uuid("order_id")
      .notNull()
      .references(() => orders.id, { onDelete: "cascade" }),
    productId: uuid("product_id")
      .notNull()
      .references(() => products.id),
    description: text("description").notNull(),
    quantity: integer("quantity").notNull().default(1),
    monthlyPriceCents: integer("monthly_price_cents"),
    totalCents: integer("total_cents").notNull(),
    /** Copied from the product when the line is written (spec: producttype), as are the prices. */
    productTypeCode: text("product_type_code"),
    unitPriceCents: integer("unit_price_cents"),
    /** The product's VAT rate when the line was written; null: VAT paid at source. */
    vatRateBps: integer("vat_rate_bps"),
  },
  (t) => [index("order_items_order_idx").on(t.orderId), check("order_items_quantity_positive", sql`${t.quantity} >= 1`)],
);

/**
 * A coupon used by an order: written (and counted in `coupons.redemptions`) in the transaction
 * that starts its payment, under the caps; removed again if that payment fails or is given up.
 */
export const couponRedemptions = pgTable(
  "coupon_redemptions",
  {
    id: id(),
    couponId: uuid("coupon_id")
      .notNull()
      .references(() => coupons.id),
    orderId: uuid("order_id")
      .notNull()
      .unique()
      .references(() => orders.id),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id),
    createdAt: createdAt(),
  },
  (t) => [index("coupon_redemptions_coupon_user_idx").on(t.couponId, t.userId)],
);

/** The shipping address and billing details a customer asked the checkout to keep. */
export const savedCheckoutDetails = pgTable("saved_checkout_details", {
  userId: uuid("user_id")
    .primaryKey()
    .references(() => users.id, { onDelete: "cascade" }),
  shipment: jsonb("shipment").$type<PostalAddress>(),
  billing: jsonb("billing").$type<BillingDetails>(),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
});
