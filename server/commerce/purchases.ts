// What a customer bought (spec §2 'My products', 'Receipt page'; §3 order, payment; §6; §9): the
// product cards of /my-products/ in their two tabs, the 'Storico acquisti' of payments, and the
// receipts of an order or of one payment. Everything is looked up by its owner: another
// customer's order or payment is simply not found.
import { and, asc, desc, eq, inArray, notInArray, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import type { Config } from "#server/config.ts";
import type { Database } from "#server/db/client.ts";
import {
  invoices,
  invoiceTransmissions,
  orderItems,
  paymentRefunds,
  orders,
  type PAYMENT_METHOD_CODES,
  type PAYMENT_STATUS_CODES,
  payments,
  productTypes,
  products,
  users,
  type BillingDetails,
  type OrderStatusCode,
  type PostalAddress,
} from "#server/db/schema/index.ts";
import {
  OPEN_ORDER_STATUSES,
  ORDER_STATUS_BADGES,
  PAPER_TYPE_CODES,
  PAYMENT_METHOD_LABELS,
  PURCHASE_HISTORY_PAGE_SIZE,
} from "#shared/commerce-constants.ts";
import { isOrderCode } from "#server/lib/ids.ts";
import { checkoutPath, creditNotePath, invoicePath, receiptPath } from "#shared/links.ts";
import { billingAddress } from "#server/invoices/billing-address.ts";
import { orderParts, sharesOf, vatIncluded, vatOf } from "#shared/order-totals.ts";
import { customerRefundColumns, customerRefundsOf, refundsOfPayments, type CustomerRefund } from "#server/payments/refunds.ts";

type RefundRow = Awaited<ReturnType<typeof refundsOfPayments>>[number];

export type PurchasesOptions = { db: Database; seller: Config["seller"] };

/** A payment as the customer sees it: in a card's list, in the history, on a receipt. */
export type PurchasePayment = {
  code: string;
  paidAt: Date;
  methodCode: string;
  /** 'Carta di Credito' or 'Bonifico bancario'. */
  method: string;
  /** The card's brand as the provider names it (visa, mastercard, …), for card methods. */
  cardBrand: string | null;
  cardLast4: string | null;
  amountCents: number;
  /** `refunded`: all of it went back (its refunds say when). */
  status: "payed" | "refunded";
  /** Money given back from it, or on its way, oldest first. */
  refunds: CustomerRefund[];
  /** /ricevuta/<order>/<payment>/ */
  receiptHref: string;
};

/** One product card of /my-products/: an item of one of the customer's orders. */
export type PurchaseCard = {
  /** The order item: unique on the page. */
  id: string;
  orderCode: string;
  status: OrderStatusCode;
  /** The badge: 'Attivo', 'Annullato', 'Scaduto', 'Interrotto'. */
  statusLabel: string;
  productId: string;
  name: string;
  typeCode: string;
  typeName: string;
  /** Cover key, served under /media/copertine/ (see app/components/product-cover). */
  cover: string;
  isbn: string | null;
  issn: string | null;
  sku: string;
  /** The order's payments, newest first (the card's toggled list). */
  payments: PurchasePayment[];
  /** Where 'Acquista di nuovo' posts (orders not paid, products still on sale): /create-checkout/<code>/; or null. */
  buyAgainAction: string | null;
  /** 'Ricevuta': /ricevuta/<order>/ */
  receiptHref: string;
};

export type MyProducts = {
  /** Items of paid orders (tab 'Attivi'). */
  active: PurchaseCard[];
  /** Items of cancelled, expired and interrupted orders (tab 'Inattivi'). */
  inactive: PurchaseCard[];
};

/** A product an order bought, as a history entry names it. */
export type HistoryProduct = {
  /** The order line's description: the product's title when it was bought. */
  name: string;
  /** Its product type's name ('eBook', 'Corso', …). */
  typeName: string;
};

export type HistoryEntry = PurchasePayment & {
  orderCode: string;
  /** What the order bought, each title and type once, by title. */
  products: HistoryProduct[];
};

export type HistoryPage = { page: number; entries: HistoryEntry[]; hasNext: boolean };

export type ReceiptLine = {
  description: string;
  typeName: string;
  quantity: number;
  /** Price of one, VAT included; null on rows older than the checkout (only the total is known). */
  unitPriceCents: number | null;
  /** The monthly price of a subscription line. */
  monthlyPriceCents: number | null;
  /** The line's amount before the order's discount, VAT included. */
  grossCents: number;
  /** The line's share of the order's discount. */
  discountCents: number;
  /** What the line costs after the discount, VAT included: the VAT is contained in it. */
  netCents: number;
  /** null: VAT paid at source by the publisher (art. 74 DPR 633/72). */
  vatRateBps: number | null;
  vatCents: number;
};

export type ReceiptPayment = PurchasePayment & {
  /** The VAT contained in the payment (its amount split across the lines in proportion). */
  vatCents: number;
  /** Where the payment's e-invoice (FatturaPA XML) downloads from; null: none issued. */
  invoiceHref: string | null;
  /** The e-invoice's number and date (YYYY-MM-DD, the payment's day); null: none issued. */
  invoice: { number: string; date: string } | null;
  /** SDI could not deliver the e-invoice (MC): it is in the buyer's tax drawer. */
  invoiceNotDelivered: boolean;
  /** The credit notes of the payment's refunds, oldest first. */
  creditNotes: ReceiptCreditNote[];
};

/** A credit note (TD04) of a refund: its number (`NC/3`), date (YYYY-MM-DD, the day the money went back) and file. */
export type ReceiptCreditNote = { number: string; date: string; href: string };

export type Receipt = {
  seller: Config["seller"];
  orderCode: string;
  status: OrderStatusCode;
  statusLabel: string;
  /** When the order was completed (paid), or created when it never was. */
  orderDate: Date;
  buyer: { firstname: string | null; lastname: string | null; email: string | null };
  /** The billing details, their address resolved (the shipping address when so chosen); null: none asked for. */
  billing: (Omit<BillingDetails, "address"> & { address: PostalAddress | null }) | null;
  shipment: PostalAddress | null;
  lines: ReceiptLine[];
  subtotalCents: number;
  discountCents: number;
  couponCode: string | null;
  shipmentCents: number;
  /** Lines after the discount, plus shipping. */
  totalCents: number;
  /** The VAT contained in the lines after the discount (shipping carries none here). */
  vatCents: number;
  /** The order's payments (the order's receipt) or the one payment (a payment's receipt). */
  payments: ReceiptPayment[];
  /** The payment of a payment's receipt; null on the order's receipt. */
  payment: ReceiptPayment | null;
  /** What the order's payments (or the one payment) brought in, less what went back. */
  paidCents: number;
  /** What of them went back (refunds that succeeded). */
  refundedCents: number;
};

type PaymentRow = {
  id: string;
  orderId: string;
  code: string;
  paidAt: Date;
  methodCode: (typeof PAYMENT_METHOD_CODES)[number];
  cardBrand: string | null;
  cardLast4: string | null;
  amountCents: number;
  status: (typeof PAYMENT_STATUS_CODES)[number];
};

const itemType = alias(productTypes, "item_type");

const sumOf = (rows: { amountCents: number }[]) => rows.reduce((sum, row) => sum + row.amountCents, 0);

/** An order item's product type: its snapshot (spec: producttype), or its product's on older rows. */
const typeCodeOf = sql<string>`coalesce(${orderItems.productTypeCode}, ${productTypes.code})`;
const typeNameOf = sql<string>`coalesce(${itemType.name}, ${productTypes.name})`;

export function createPurchases({ db, seller }: PurchasesOptions) {
  /** The payment columns every view shows. */
  const paymentColumns = {
    id: payments.id,
    orderId: payments.orderId,
    code: payments.paymentCode,
    paidAt: payments.paidAt,
    methodCode: payments.methodCode,
    cardBrand: payments.cardBrand,
    cardLast4: payments.cardLast4,
    amountCents: payments.amountCents,
    status: payments.status,
  };

  const toPayment = (row: PaymentRow, orderCode: string, refunds: readonly RefundRow[]): PurchasePayment => ({
    code: row.code,
    paidAt: row.paidAt,
    methodCode: row.methodCode,
    method: PAYMENT_METHOD_LABELS[row.methodCode] ?? row.methodCode,
    cardBrand: row.cardBrand,
    cardLast4: row.cardLast4,
    amountCents: row.amountCents,
    status: row.status,
    refunds: customerRefundsOf(refunds, row.id),
    receiptHref: receiptPath(orderCode, row.code),
  });

  /** Newest first; the id settles payments of the same instant, so pages never overlap. */
  const newestFirst = [desc(payments.paidAt), desc(payments.id)];

  /** The items of the customer's orders no longer being bought, paper-only lines left out (prepared once). */
  const ownItems = db
    .select({
      id: orderItems.id,
      orderId: orders.id,
      orderCode: orders.orderCode,
      status: orders.status,
      productId: products.id,
      productCode: products.code,
      name: products.name,
      sku: products.sku,
      isbn: products.isbn,
      issn: products.issn,
      cover: products.cover,
      sellable: products.sellable,
      typeCode: typeCodeOf,
      typeName: typeNameOf,
    })
    .from(orders)
    .innerJoin(orderItems, eq(orderItems.orderId, orders.id))
    .innerJoin(products, eq(products.id, orderItems.productId))
    .innerJoin(productTypes, eq(productTypes.id, products.productTypeId))
    .leftJoin(itemType, eq(itemType.code, orderItems.productTypeCode))
    .where(
      and(
        eq(orders.userId, sql.placeholder("userId")),
        notInArray(orders.status, OPEN_ORDER_STATUSES as OrderStatusCode[]),
        notInArray(typeCodeOf, PAPER_TYPE_CODES as string[]),
      ),
    )
    .orderBy(
      sql`${orders.committedAt} desc nulls last`,
      desc(orders.createdAt),
      asc(orders.orderCode),
      asc(products.name),
      asc(orderItems.id),
    )
    .prepare("purchases_items");

  /**
   * The payments of the customer's orders no longer being bought, newest first (prepared once):
   * each card lists those of its order.
   */
  const ownOrderPayments = db
    .select(paymentColumns)
    .from(payments)
    .innerJoin(orders, eq(orders.id, payments.orderId))
    .where(and(eq(orders.userId, sql.placeholder("userId")), notInArray(orders.status, OPEN_ORDER_STATUSES as OrderStatusCode[])))
    .orderBy(...newestFirst)
    .prepare("purchases_payments");

  /** The refunds of the customer's payments (prepared once): each payment lists its own. */
  const ownRefunds = db
    .select(customerRefundColumns)
    .from(paymentRefunds)
    .innerJoin(payments, eq(payments.id, paymentRefunds.paymentId))
    .where(eq(payments.userId, sql.placeholder("userId")))
    .orderBy(asc(paymentRefunds.requestedAt), asc(paymentRefunds.id))
    .prepare("purchases_refunds");

  async function myProducts(userId: string): Promise<MyProducts> {
    const rows = await ownItems.execute({ userId });
    if (rows.length === 0) return { active: [], inactive: [] };

    const [paymentRows, refundRows] = await Promise.all([ownOrderPayments.execute({ userId }), ownRefunds.execute({ userId })]);
    const byOrder = new Map<string, PaymentRow[]>();
    for (const row of paymentRows) byOrder.set(row.orderId, [...(byOrder.get(row.orderId) ?? []), row]);

    const result: MyProducts = { active: [], inactive: [] };
    for (const row of rows) {
      const paid = row.status === "payed";
      const card: PurchaseCard = {
        id: row.id,
        orderCode: row.orderCode,
        status: row.status,
        statusLabel: ORDER_STATUS_BADGES[row.status] ?? row.status,
        productId: row.productId,
        name: row.name,
        typeCode: row.typeCode,
        typeName: row.typeName,
        cover: row.cover,
        isbn: row.isbn,
        issn: row.issn,
        sku: row.sku,
        payments: (byOrder.get(row.orderId) ?? []).map((p) => toPayment(p, row.orderCode, refundRows)),
        buyAgainAction: !paid && row.sellable ? checkoutPath(row.productCode ?? row.sku) : null,
        receiptHref: receiptPath(row.orderCode),
      };
      (paid ? result.active : result.inactive).push(card);
    }
    return result;
  }

  /** What an order bought: each title with its type, once, by title (a JSON array). */
  const orderProducts = sql<HistoryProduct[]>`(
    select coalesce(json_agg(json_build_object('name', line.name, 'typeName', line.type_name) order by line.name, line.type_name), '[]'::json)
    from (
      select distinct oi.description as name, coalesce(it.name, pt.name) as type_name
      from order_items oi
      join products p on p.id = oi.product_id
      join product_types pt on pt.id = p.product_type_id
      left join product_types it on it.code = oi.product_type_code
      where oi.order_id = ${orders.id}
    ) line
  )`;

  /** A page of the customer's payments, newest first (prepared once). */
  const historyPage = db
    .select({ ...paymentColumns, orderCode: orders.orderCode, products: orderProducts })
    .from(payments)
    .innerJoin(orders, eq(orders.id, payments.orderId))
    .where(and(eq(payments.userId, sql.placeholder("userId")), eq(orders.userId, sql.placeholder("userId"))))
    .orderBy(...newestFirst)
    .limit(sql.placeholder("limit"))
    .offset(sql.placeholder("offset"))
    .prepare("purchases_history");

  async function history(userId: string, page: number): Promise<HistoryPage> {
    const current = Number.isSafeInteger(page) && page >= 1 ? page : 1;
    const rows = await historyPage.execute({
      userId,
      // One more than a page: whether there is a next one.
      limit: PURCHASE_HISTORY_PAGE_SIZE + 1,
      offset: (current - 1) * PURCHASE_HISTORY_PAGE_SIZE,
    });
    const entries = rows.slice(0, PURCHASE_HISTORY_PAGE_SIZE);
    const refunds = await refundsOfPayments(
      db,
      entries.map((row) => row.id),
    );
    return {
      page: current,
      hasNext: rows.length > PURCHASE_HISTORY_PAGE_SIZE,
      entries: entries.map((row) => ({
        ...toPayment(row, row.orderCode, refunds),
        orderCode: row.orderCode,
        products: row.products,
      })),
    };
  }

  async function receipt(userId: string, orderCode: string, paymentCode?: string): Promise<Receipt | null> {
    if (!isOrderCode(orderCode) || (paymentCode !== undefined && !isOrderCode(paymentCode))) return null;
    const [order] = await db
      .select({
        id: orders.id,
        orderCode: orders.orderCode,
        status: orders.status,
        createdAt: orders.createdAt,
        committedAt: orders.committedAt,
        discountCents: orders.discountCents,
        couponCode: orders.couponCode,
        shipmentPriceCents: orders.shipmentPriceCents,
        customerFirstname: orders.customerFirstname,
        customerLastname: orders.customerLastname,
        customerEmail: orders.customerEmail,
        hasShipment: orders.hasShipment,
        shipment: orders.shipment,
        hasBilling: orders.hasBilling,
        billing: orders.billing,
        accountFirstname: users.firstname,
        accountLastname: users.lastname,
        accountEmail: users.email,
      })
      .from(orders)
      .innerJoin(users, eq(users.id, orders.userId))
      .where(and(eq(orders.orderCode, orderCode), eq(orders.userId, userId)))
      .limit(1);
    // An order still at the checkout has no receipt: it is paid, or given up, first.
    if (!order || OPEN_ORDER_STATUSES.includes(order.status)) return null;

    const [itemRows, paymentRows] = await Promise.all([
      db
        .select({
          description: orderItems.description,
          quantity: orderItems.quantity,
          totalCents: orderItems.totalCents,
          unitPriceCents: orderItems.unitPriceCents,
          monthlyPriceCents: orderItems.monthlyPriceCents,
          vatRateBps: orderItems.vatRateBps,
          typeName: typeNameOf,
        })
        .from(orderItems)
        .innerJoin(products, eq(products.id, orderItems.productId))
        .innerJoin(productTypes, eq(productTypes.id, products.productTypeId))
        .leftJoin(itemType, eq(itemType.code, orderItems.productTypeCode))
        .where(eq(orderItems.orderId, order.id))
        .orderBy(asc(orderItems.description), asc(orderItems.id)),
      db
        .select(paymentColumns)
        .from(payments)
        .where(eq(payments.orderId, order.id))
        .orderBy(...newestFirst),
    ]);

    let shown = paymentRows;
    if (paymentCode !== undefined) {
      shown = paymentRows.filter((p) => p.code === paymentCode);
      if (shown.length === 0) return null;
    }
    // Each payment's e-invoice (its number and date, the payment's day, and whether SDI could not
    // deliver its latest file), its credit notes (one per refund that succeeded, oldest first)
    // and its refunds.
    const shownIds = shown.map((p) => p.id);
    const [documentRows, refundRows] = await Promise.all([
      shown.length === 0
        ? []
        : db
            .select({
              type: invoices.type,
              paymentId: invoices.paymentId,
              year: invoices.year,
              sequence: invoices.number,
              number: invoices.documentNumber,
              date: invoices.date,
              outcome: invoiceTransmissions.outcome,
            })
            .from(invoices)
            .leftJoin(invoiceTransmissions, eq(invoiceTransmissions.fileName, invoices.fileName))
            .where(inArray(invoices.paymentId, shownIds))
            .orderBy(asc(invoices.date), asc(invoices.year), asc(invoices.number)),
      refundsOfPayments(db, shownIds),
    ]);
    // The invoice alone: its credit notes name the same payment.
    const invoiced = new Map(
      documentRows
        .filter((row) => row.type === "TD01")
        .map(({ paymentId, number, date, outcome }) => [paymentId, { number, date, notDelivered: outcome === "not_delivered" }]),
    );
    const creditNotesOf = (paymentId: string, paymentCode: string): ReceiptCreditNote[] =>
      documentRows
        .filter((row) => row.type === "TD04" && row.paymentId === paymentId)
        .map(({ number, date, year, sequence }) => ({
          number,
          date,
          href: creditNotePath(order.orderCode, paymentCode, year, sequence),
        }));

    const subtotalCents = itemRows.reduce((sum, line) => sum + line.totalCents, 0);
    const discountCents = Math.min(order.discountCents, subtotalCents);
    const parts = orderParts(itemRows, discountCents, order.shipmentPriceCents);
    const lines: ReceiptLine[] = itemRows.map((line, i) => {
      const netCents = parts[i]!.cents;
      return {
        description: line.description,
        typeName: line.typeName,
        quantity: line.quantity,
        unitPriceCents: line.unitPriceCents ?? (line.totalCents % line.quantity === 0 ? line.totalCents / line.quantity : null),
        monthlyPriceCents: line.monthlyPriceCents,
        grossCents: line.totalCents,
        discountCents: line.totalCents - netCents,
        netCents,
        vatRateBps: line.vatRateBps,
        vatCents: line.vatRateBps === null ? 0 : vatIncluded(netCents, line.vatRateBps),
      };
    });

    // A payment's VAT: that of its share of each part of the order (all of it for a checkout's
    // payment, a month's price for a month of the subscription), as its e-invoice has it.
    const receiptPayments: ReceiptPayment[] = shown.map((row) => {
      const invoice = invoiced.get(row.id);
      return {
        ...toPayment(row, order.orderCode, refundRows),
        vatCents: vatOf(sharesOf(row.amountCents, parts)),
        invoiceHref: invoice ? invoicePath(order.orderCode, row.code) : null,
        invoice: invoice ? { number: invoice.number, date: invoice.date } : null,
        invoiceNotDelivered: invoice?.notDelivered ?? false,
        creditNotes: creditNotesOf(row.id, row.code),
      };
    });

    const refundedCents = receiptPayments
      .flatMap((p) => p.refunds)
      .filter((r) => r.state === "succeeded")
      .reduce((sum, r) => sum + r.amountCents, 0);
    const billing: BillingDetails | null = order.hasBilling ? order.billing : null;
    return {
      seller,
      orderCode: order.orderCode,
      status: order.status,
      statusLabel: ORDER_STATUS_BADGES[order.status] ?? order.status,
      orderDate: order.committedAt ?? order.createdAt,
      buyer: {
        firstname: order.customerFirstname ?? order.accountFirstname,
        lastname: order.customerLastname ?? order.accountLastname,
        email: order.customerEmail ?? order.accountEmail,
      },
      billing: billing && { ...billing, address: billingAddress(billing, order.shipment) },
      shipment: order.hasShipment ? order.shipment : null,
      lines,
      subtotalCents,
      discountCents,
      couponCode: discountCents > 0 ? order.couponCode : null,
      shipmentCents: order.shipmentPriceCents,
      totalCents: subtotalCents - discountCents + order.shipmentPriceCents,
      vatCents: vatOf(parts.slice(0, lines.length)),
      payments: receiptPayments,
      payment: paymentCode === undefined ? null : receiptPayments[0]!,
      paidCents: sumOf(receiptPayments) - refundedCents,
      refundedCents,
    };
  }

  return {
    /** The cards of /my-products/: paid orders' items in 'Attivi', the others' in 'Inattivi'. */
    myProducts,
    /** 'Storico acquisti': the customer's payments, newest first, PURCHASE_HISTORY_PAGE_SIZE a page (page 1 first). */
    history,
    /** The receipt of the customer's order, or of one of its payments; null when not theirs or not found. */
    receipt,
  };
}

export type Purchases = ReturnType<typeof createPurchases>;
