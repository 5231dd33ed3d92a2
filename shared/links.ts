// Addresses inside the portal and out: the course platform, the checkout, the reader, receipts.

/** 'Accedi al corso': the course on the course platform, by its moodle_id. */
export function courseUrl(coursePlatform: string, moodleId: number): string {
  return `${coursePlatform}/course/view.php?id=${moodleId}`;
}

/** The built-in reader's page of a product (GET shows it, POST records the chapter). */
export function readerPath(productId: string): string {
  return `/leggi/${encodeURIComponent(productId)}/`;
}

/** 'Inizia a leggere' / 'Continua a leggere' post here: the reading session starts or resumes. */
export function readerOpenPath(productId: string): string {
  return `${readerPath(productId)}apri`;
}

/**
 * 'Acquista ora' / 'Acquista di nuovo': the checkout of a product, by its business code when it
 * has one (abbonamentoedu), else by its SKU.
 */
export function checkoutPath(productCode: string): string {
  return `/create-checkout/${encodeURIComponent(productCode)}/`;
}

/** An order's receipt, or one payment's (spec §2: /ricevuta/:ordercode/:paymentcode). */
export function receiptPath(orderCode: string, paymentCode?: string): string {
  const order = `/ricevuta/${encodeURIComponent(orderCode)}/`;
  return paymentCode ? `${order}${encodeURIComponent(paymentCode)}/` : order;
}

/** An order's checkout page; the card step returns here with the setup's query parameters. */
export function checkoutOrderPath(orderId: string): string {
  return `/checkout/${encodeURIComponent(orderId)}/`;
}

/**
 * Where Stripe's hosted card page (the card step without JavaScript) sends the customer back:
 * Stripe puts the Checkout Session's id in place of `{CHECKOUT_SESSION_ID}`.
 */
export const STRIPE_CARD_PAGE_RETURN_PATH = "/pagamenti/carta/ritorno/";

/** The customer's EDU subscription: where they see it, cancel, resume and change its card. */
export const SUBSCRIPTION_PATH = "/my-products/abbonamento/";
