// Business constants of orders and payments (spec §2, §3, §9), shared by the services and the pages.

/** 'Storico acquisti': payments per page, loaded until a page has fewer (spec §9). */
export const PURCHASE_HISTORY_PAGE_SIZE = 5;

/**
 * Product types of paper-only items: not listed under /my-products/ (spec §2), since what they
 * give is a printed book (a digital edition comes with its own activation).
 */
export const PAPER_TYPE_CODES: readonly string[] = ["paper_flex", "paper_hard"];

/** Orders still at the checkout: not listed under /my-products/ (spec §2). */
export const OPEN_ORDER_STATUSES: readonly string[] = ["new", "waitforpayment"];

/** The badge of a product card under /my-products/, by its order's status. */
export const ORDER_STATUS_BADGES: Readonly<Record<string, string>> = {
  new: "Nuovo",
  waitforpayment: "In attesa di pagamento",
  payed: "Attivo",
  cancelled: "Annullato",
  expired: "Scaduto",
  interrupted: "Interrotto",
  refunded: "Rimborsato",
};

/** How a payment method is named to the customer (spec §3: both card codes read 'Carta di Credito'). */
export const PAYMENT_METHOD_LABELS: Readonly<Record<string, string>> = {
  card_checkout: "Carta di Credito",
  card_setup: "Carta di Credito",
  sepa: "Bonifico bancario",
};

/** A payment's status as the customer reads it ('payed' counts as paid, spec §3). */
export const PAYMENT_STATUS_LABELS: Readonly<Record<string, string>> = {
  payed: "Pagato",
  refunded: "Rimborsato",
};

/** Card brands as the payment providers name them, as customers know them. */
const CARD_BRAND_LABELS: Readonly<Record<string, string>> = {
  visa: "Visa",
  mastercard: "Mastercard",
  amex: "American Express",
  maestro: "Maestro",
  discover: "Discover",
  diners: "Diners Club",
  jcb: "JCB",
  unionpay: "UnionPay",
  cartes_bancaires: "Cartes Bancaires",
};

/** "visa" → "Visa"; an unknown brand as given, null as 'Carta'. */
export function cardBrandLabel(brand: string | null): string {
  if (!brand) return "Carta";
  return CARD_BRAND_LABELS[brand.toLowerCase()] ?? brand;
}

/** Whether a payment method code is one of the card codes (their brand and last 4 digits are shown). */
export function isCardMethod(methodCode: string): boolean {
  return methodCode === "card_checkout" || methodCode === "card_setup";
}

/**
 * Splits `amountCents` across parts in proportion to their weights, to the cent, the cents left
 * over by rounding down going to the largest remainders (ties to the earlier part): the shares
 * always add up to the amount. With no weight at all, everything goes to the first part.
 */
export function allocateProportionally(amountCents: number, weights: readonly number[]): number[] {
  const total = weights.reduce((sum, w) => sum + w, 0);
  if (weights.length === 0) return [];
  if (total <= 0) return weights.map((_, i) => (i === 0 ? amountCents : 0));
  const exact = weights.map((w) => (amountCents * w) / total);
  const shares = exact.map(Math.floor);
  let left = amountCents - shares.reduce((sum, s) => sum + s, 0);
  const byRemainder = exact.map((x, i) => ({ i, r: x - Math.floor(x) })).sort((a, b) => b.r - a.r || a.i - b.i);
  for (const { i } of byRemainder) {
    if (left <= 0) break;
    shares[i]! += 1;
    left -= 1;
  }
  return shares;
}

/** "4 %", "22 %", "5,5 %" */
export function formatVatRate(rateBps: number): string {
  // By hand, not toLocaleString: a browser's first Intl formatting is slow (shared/rome-clock.ts).
  return `${String(rateBps / 100).replace(".", ",")} %`;
}
