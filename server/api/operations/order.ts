// order: activation codes, the customer's orders and payments, and the checkout's payment hub
// (spec §7). Money moves only through the payment service the checkout page uses, with its
// rules: its checks, its rate limit, its exactly-once claims.
import { z } from "zod";
import { ACTIVATION_REFUSALS } from "#shared/activation-refusals.ts";
import { CHECKOUT_MESSAGES as M, START_PAYMENT_REFUSALS } from "#shared/checkout-messages.ts";
import { PAYMENT_METHOD_LABELS, PAYMENT_STATUS_LABELS } from "#shared/commerce-constants.ts";
import type { CustomerOrders } from "#server/commerce/customer-orders.ts";
import { isProductCode } from "#server/lib/ids.ts";
import type { Services } from "#server/services.ts";
import { API_MESSAGES, ApiError, refused } from "#server/api/errors.ts";
import { operationsOf, type CustomerContext, type OperationContext } from "#server/api/operation.ts";
import { checkHubBody } from "./checkout-body.ts";
import { orderCheckoutOf, orderCheckoutShape } from "./order-checkout-fields.ts";
import { euros, idList, listPage, millis, toMillis, uuid } from "./fields.ts";

const { publicOperation, customerOperation, pagedCustomerOperation } = operationsOf("order");

/** An activation code as typed: trimmed, bounded (the service checks its shape and the rest). */
const codeParam = z.object({ code: z.string().trim().min(1, API_MESSAGES.notFound).max(100, API_MESSAGES.notFound) });
const orderParam = z.object({ order: uuid });
const hubParam = orderParam.extend({ hub: z.string().max(40) });
/** No discount code is longer (the checkout page's box cuts there too). */
const COUPON_CODE_MAX = 100;

const itemSchema = z.object({
  uuid: z.string(),
  order: z.string(),
  product: z.string(),
  producttype: z.string().nullable(),
  description: z.string(),
  quantity: z.number(),
  monthlyprice: z.number().nullable(),
  total: z.number(),
});
export const orderSchema = z.object({
  uuid: z.string(),
  ordercode: z.string(),
  customer: z.string(),
  status: z.object({ code: z.string() }),
  created: millis,
  committed: millis,
  total: z.number(),
  discount: z.number(),
  shipment_price: z.number(),
  coupon: z.boolean(),
  couponcode_code: z.string().nullable(),
  paymenthub: z.string().nullable(),
  hasshipment: z.boolean(),
  has_option_advance: z.boolean(),
  option_advance: z.boolean(),
  customer_firstname: z.string().nullable(),
  customer_lastname: z.string().nullable(),
  customer_email: z.string().nullable(),
  ...orderCheckoutShape,
  items: z.array(itemSchema),
});
const paymentSchema = z.object({
  uuid: z.string(),
  paymentcode: z.string(),
  order: z.string(),
  ordercode: z.string(),
  paymentmethod: z.object({ code: z.string() }),
  status: z.object({ code: z.string() }),
  amount: z.number(),
  card_last4: z.string().nullable(),
  card_brand: z.string().nullable(),
  paid: millis,
  refunded: millis,
});

type OrderRow = Awaited<ReturnType<CustomerOrders["list"]>>[number];
type PaymentRow = Awaited<ReturnType<CustomerOrders["payments"]>>[number];
type ItemRow = OrderRow["items"][number];

const itemOf = (item: ItemRow): z.input<typeof itemSchema> => ({
  uuid: item.id,
  order: item.orderId,
  product: item.productId,
  producttype: item.productTypeCode,
  description: item.description,
  quantity: item.quantity,
  monthlyprice: item.monthlyPriceCents === null ? null : euros(item.monthlyPriceCents),
  total: euros(item.totalCents),
});

export const orderOf = (o: OrderRow): z.input<typeof orderSchema> => ({
  uuid: o.id,
  ordercode: o.orderCode,
  customer: o.userId,
  status: { code: o.status },
  created: toMillis(o.createdAt),
  committed: toMillis(o.committedAt),
  total: euros(o.totalCents),
  discount: euros(o.discountCents),
  shipment_price: euros(o.shipmentPriceCents),
  coupon: o.couponCode !== null,
  couponcode_code: o.couponCode,
  paymenthub: o.paymentHub,
  hasshipment: o.hasShipment,
  has_option_advance: o.hasOptionAdvance,
  option_advance: o.optionAdvance,
  customer_firstname: o.customerFirstname,
  customer_lastname: o.customerLastname,
  customer_email: o.customerEmail,
  ...orderCheckoutOf(o),
  items: o.items.map(itemOf),
});

const paymentOf = (p: PaymentRow): z.input<typeof paymentSchema> => ({
  uuid: p.id,
  paymentcode: p.paymentCode,
  order: p.orderId,
  ordercode: p.orderCode,
  paymentmethod: { code: p.methodCode },
  status: { code: p.status },
  amount: euros(p.amountCents),
  card_last4: p.cardLast4,
  card_brand: p.cardBrand,
  paid: toMillis(p.paidAt),
  refunded: toMillis(p.refundedAt),
});

/** The caller's order, as the checkout sees it; someone else's (or none) is not found. */
async function ownOrder({ services, caller }: CustomerContext, orderId: string) {
  const order = await services.checkout.view(caller.userId, orderId);
  if (!order) throw new ApiError(404, API_MESSAGES.notFound);
  return order;
}

/** Where a payment stands, as 'check hub' answers (spec §4's states of the return page). */
const hubState = z.object({
  state: z.enum(["started", "paid", "pending", "requires_customer", "failed", "requires_action", "canceled", "none"]).meta({
    description:
      "`none`: nessun pagamento è mai stato avviato per l'ordine (lo si avvia inviando i dati); `canceled`: uno avviato è stato " +
      "annullato (resetpaymenthub, il tempo scaduto, l'ordine chiuso); `started`: appena avviato dai dati inviati.",
  }),
  message: z.string().nullable(),
  /** For the card step: the gateway's client secret of the card setup (Stripe.js confirms it). */
  setup_intent_client_secret: z.string().nullable(),
});

const hubSchema = z.object({
  key: z.string(),
  hub: z.string(),
  code: z.string(),
  method: z.string(),
  hubcode: z.string(),
  publickey: z.string().nullable(),
});

/** A reference list of codes and names (order and payment statuses, payment methods), loaded by code. */
const codeList = z.array(z.string().max(40, API_MESSAGES.notFound)).min(1).max(100);
const codeName = z.object({ code: z.string(), name: z.string() });
type Names = Readonly<Record<string, string>>;
const namesOf = (names: Names, codes: readonly string[]) =>
  Object.entries(names)
    .filter(([code]) => codes.includes(code))
    .map(([code, name]) => ({ code, name }));

const referenceLoad = (model: string, summary: string, names: (services: Services) => Names | Promise<Names>) =>
  publicOperation({
    model,
    name: "load",
    method: "POST",
    path: `${model}/load/`,
    summary,
    body: codeList,
    result: z.array(codeName),
    handle: async ({ body, services }) => namesOf(await names(services), body),
  });

export const orderOperations = [
  customerOperation({
    model: "order",
    name: "order_verify_codiceattivazione",
    method: "GET",
    path: "order/verify_codiceattivazione/:code/",
    summary: "Se il codice di attivazione si può attivare ora (true) oppure no.",
    params: codeParam,
    result: z.boolean(),
    async handle({ params, caller, ip, services }) {
      return (await services.library.activation.verify({ userId: caller.userId, ip, code: params.code })) === "valid";
    },
  }),
  customerOperation({
    model: "order",
    name: "order_create_with_codiceattivazione",
    method: "POST",
    path: "order/create_with_codiceattivazione/:code/",
    refusals: [404, 409],
    summary: "Attiva il codice: l'ordine gratuito, il prodotto per 6 mesi.",
    params: codeParam,
    result: z.object({ order: z.string(), ordercode: z.string(), product: z.string(), expires: millis }),
    async handle({ params, caller, ip, services }) {
      const result = await services.library.activation.activate({ userId: caller.userId, ip, code: params.code });
      if (result.ok) {
        return {
          order: result.orderId,
          ordercode: result.orderCode,
          product: result.productId,
          expires: toMillis(result.expiresAt),
        };
      }
      throw refused(ACTIVATION_REFUSALS[result.reason]);
    },
  }),
  ...(["myorders", "myactiveorders"] as const).map((name) =>
    pagedCustomerOperation({
      model: "order",
      name,
      method: "GET",
      path: `order/${name}/`,
      summary: `${name === "myorders" ? "Gli ordini" : "Gli ordini pagati"} del cliente, dal più recente: limit da offset; il totale in X-Total-Count.`,
      query: listPage,
      result: z.array(orderSchema),
      async handle({ query, caller, services }) {
        const { rows, total } = await services.customerOrders.orderPage(caller.userId, {
          activeOnly: name === "myactiveorders",
          ...query,
        });
        return { page: rows.map(orderOf), total };
      },
    }),
  ),
  pagedCustomerOperation({
    model: "order",
    name: "mypayments",
    method: "GET",
    path: "order/mypayments/",
    summary: "I pagamenti del cliente, dal più recente: limit da offset; il totale in X-Total-Count.",
    query: listPage,
    result: z.array(paymentSchema),
    async handle({ query, caller, services }) {
      const { rows, total } = await services.customerOrders.paymentPage(caller.userId, query);
      return { page: rows.map(paymentOf), total };
    },
  }),
  customerOperation({
    model: "order",
    name: "load",
    method: "POST",
    path: "order/load/",
    summary: "Gli ordini del cliente con questi id (quelli di altri non ci sono).",
    body: idList,
    result: z.array(orderSchema),
    handle: async ({ body, caller, services }) => (await services.customerOrders.load(caller.userId, body)).map(orderOf),
  }),
  customerOperation({
    model: "orderpayment",
    name: "load",
    method: "POST",
    path: "orderpayment/load/",
    summary: "I pagamenti del cliente con questi id.",
    body: idList,
    result: z.array(paymentSchema),
    handle: async ({ body, caller, services }) =>
      (await services.customerOrders.payments(caller.userId, { ids: body })).map(paymentOf),
  }),
  customerOperation({
    model: "order",
    name: "order_create_with_product_code",
    method: "POST",
    path: "order/create_with_product_code/:productcode/",
    refusals: [404, 409],
    summary: "Apre l'ordine del prodotto (o quello già aperto): l'id dell'ordine.",
    params: z.object({ productcode: z.string().refine(isProductCode, M.productUnavailable) }),
    result: z.string(),
    async handle({ params, caller, services }) {
      const opened = await services.checkout.open(caller.userId, params.productcode);
      if (opened.ok) return opened.orderId;
      if (opened.reason === "edu_active") throw new ApiError(409, M.eduAlreadyActive);
      throw new ApiError(404, M.productUnavailable);
    },
  }),
  customerOperation({
    model: "order",
    name: "order_getpaymenthubs",
    method: "GET",
    path: "order/getpaymenthubs/:order/",
    refusals: [404],
    summary: "Come si può pagare l'ordine.",
    params: orderParam,
    result: z.array(hubSchema),
    async handle(context) {
      await ownOrder(context, context.params.order);
      return [cardHub(context)];
    },
  }),
  customerOperation({
    model: "order",
    name: "order_getpaymenthub",
    method: "GET",
    path: "order/getpaymenthub/:order/:hub/",
    refusals: [404],
    summary: "Una modalità di pagamento dell'ordine.",
    params: hubParam,
    result: hubSchema,
    async handle(context) {
      await ownOrder(context, context.params.order);
      if (context.params.hub !== "card") throw new ApiError(400, M.paymentHubUnsupported);
      return cardHub(context);
    },
  }),
  customerOperation({
    model: "order",
    name: "order_checkpaymenthub",
    method: "POST",
    path: "order/checkpaymenthub/:order/:hub/",
    refusals: [404, 409, 429],
    summary:
      "Con i dati dell'ordine: li controlla (spec §5) e avvia il pagamento. Senza corpo: dove sta il pagamento (e lo registra quando è riuscito).",
    params: hubParam,
    body: checkHubBody,
    result: hubState,
    async handle(context): Promise<z.input<typeof hubState>> {
      const { params, body, caller, services } = context;
      const order = await ownOrder(context, params.order);
      const userId = caller.userId;
      if (Object.keys(body).length === 0) {
        const checked = await services.payments.check(userId, order.id);
        if (!checked) throw new ApiError(404, API_MESSAGES.notFound);
        const message =
          "errorMessage" in checked
            ? checked.errorMessage
            : checked.state === "canceled" && checked.reason === "edu_already_active"
              ? M.eduOrderClosed
              : null;
        return { state: checked.state, message, setup_intent_client_secret: null };
      }
      // Start the payment, the use-case the checkout page shares: its refusals, its words.
      const started = await services.startPayment({ userId, order, fields: { ...body, paymenthub: params.hub } });
      if (started.ok) return { state: "started" as const, message: null, setup_intent_client_secret: started.clientSecret };
      if (started.reason === "invalid") {
        const [field, message] = Object.entries(started.fieldErrors)[0] ?? ["", API_MESSAGES.invalidRequest];
        // The hub is the address's `hub`, not a body field.
        throw new ApiError(400, message, field ? { field: field === "paymenthub" ? "hub" : field } : {});
      }
      const retryAfter = started.reason === "rate_limited" ? started.retryAfterSeconds : undefined;
      throw refused(START_PAYMENT_REFUSALS[started.reason], retryAfter);
    },
  }),
  customerOperation({
    model: "order",
    name: "order_resetpaymenthub",
    method: "POST",
    path: "order/resetpaymenthub/:order/",
    refusals: [404],
    summary: "Annulla il pagamento in corso: l'ordine torna modificabile.",
    params: orderParam,
    result: z.boolean(),
    async handle(context) {
      const order = await ownOrder(context, context.params.order);
      return (await context.services.payments.reset(context.caller.userId, order.id)).ok;
    },
  }),
  ...(["addcoupon", "rmcoupon"] as const).map((name) =>
    customerOperation({
      model: "order",
      name: `order_${name}`,
      method: "POST",
      path: `order/${name}/:order/:code/`,
      refusals: [404],
      summary:
        name === "addcoupon"
          ? "Applica il codice sconto all'ordine: true, oppure false se il codice non esiste, è scaduto o non vale per l'ordine."
          : "Toglie il codice sconto dall'ordine.",
      // A code no coupon can have (too long) finds none, as an unknown or expired one: `false`, not an error.
      params: orderParam.extend({
        code: z
          .string()
          .trim()
          .transform((code) => (code.length > COUPON_CODE_MAX ? "" : code)),
      }),
      result: z.boolean(),
      async handle(context) {
        const order = await ownOrder(context, context.params.order);
        const { checkout } = context.services;
        const userId = context.caller.userId;
        return name === "addcoupon"
          ? checkout.applyCoupon(userId, order.id, context.params.code)
          : checkout.removeCoupon(userId, order.id);
      },
    }),
  ),
  customerOperation({
    model: "orderitem",
    name: "load",
    method: "POST",
    path: "orderitem/load/",
    summary: "Le righe degli ordini del cliente con questi id.",
    body: idList,
    result: z.array(itemSchema),
    handle: async ({ body, caller, services }) => (await services.customerOrders.items(caller.userId, body)).map(itemOf),
  }),
  referenceLoad("orderstatus", "Gli stati d'ordine con questi codici (new, waitforpayment, payed, …).", (services) =>
    services.customerOrders.statusNames(),
  ),
  referenceLoad(
    "paymentmethod",
    "I metodi di pagamento con questi codici (card_checkout, card_setup, sepa).",
    () => PAYMENT_METHOD_LABELS,
  ),
  referenceLoad("paymentstatus", "Gli stati di pagamento con questi codici (payed, refunded).", () => PAYMENT_STATUS_LABELS),
];

/** The card, the one payment hub the portal takes (spec §5: any other is refused). */
function cardHub({ services }: OperationContext<unknown, unknown, unknown>): z.input<typeof hubSchema> {
  return {
    key: "card",
    hub: services.payments.gatewayName,
    code: "card_setup",
    method: "setup",
    hubcode: "card",
    publickey: services.stripeCardStep?.publishableKey ?? null,
  };
}
