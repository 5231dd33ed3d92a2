// The checkout under `npm run bench`: an open order's page (loaded like any page), and whole
// purchases with the sandbox gateway's good test card, one after the other: 'Completa
// l'acquisto' (validation, the order's move to waitforpayment, the card set up and charged, the
// payment and its grants written) and the return to 'Ordine confermato'; and a customer who holds
// the EDU subscription, for its page. Requests go through `http` (the global fetch by default; the
// load-and-faults script passes its virtual customers' client).
import { performance } from "node:perf_hooks";
import { novalexIsbn } from "#server/db/seed/identifiers.ts";
import { EDU_PRODUCT_CODE } from "#shared/library-constants.ts";
import { percentiles } from "./figures.ts";
import type { Fetch } from "./sign-in.ts";

/** Below the customer's limit of 10 card payments an hour (server/security/rate-limits.ts). */
export const PURCHASES = 8;
/** A paper book of the demo catalogue: the purchase carries a shipping address too. */
const PAPER_BOOK = `LB-${novalexIsbn(101)}`;

const FORM = {
  intent: "pay",
  customer_firstname: "Bench",
  customer_lastname: "Mark",
  customer_email: "bench@example.it",
  shipment_firstname: "Bench",
  shipment_lastname: "Mark",
  shipment_address: "Via Roma 1",
  shipment_postcode: "00184",
  shipment_city: "Roma",
  shipment_province: "RM",
  terms_sales: "1",
  terms_cancel: "1",
  paymenthub: "card",
  cc_name: "Bench Mark",
  cc_number: "4242 4242 4242 4242",
  // Two years on: good on whatever day the bench runs.
  cc_exp: `12/${String((new Date().getUTCFullYear() + 2) % 100).padStart(2, "0")}`,
  cc_csc: "123",
};

/** The form of a purchase that nothing travels by courier for (no shipping address). */
export const FORM_WITHOUT_SHIPPING = Object.fromEntries(Object.entries(FORM).filter(([name]) => !name.startsWith("shipment_")));

/** Opens (or finds) the customer's order for a product, as 'Acquista ora' does; its page's path. */
export async function openCheckout(origin: string, cookie: string, productCode: string, http: Fetch = fetch): Promise<string> {
  const response = await http(`${origin}/create-checkout/${productCode}/`, {
    method: "POST",
    redirect: "manual",
    headers: { cookie, origin, "content-type": "application/x-www-form-urlencoded" },
    body: "",
  });
  const location = response.headers.get("location");
  await response.arrayBuffer();
  if (response.status !== 302 || !location?.startsWith("/checkout/")) {
    throw new Error(`create-checkout answered ${response.status} ${location ?? ""}`);
  }
  return location;
}

/** Where 'Completa l'acquisto' sends the browser after the sandbox charged the card (302 or 303). */
export function paidReturn(paid: Response): string {
  const back = paid.headers.get("location");
  if ((paid.status !== 302 && paid.status !== 303) || !back?.includes("redirect_status=succeeded"))
    throw new Error(`'Completa l'acquisto' answered ${paid.status} ${back ?? ""}`);
  return back;
}

/** The return to the order's page, which records the payment and says 'Ordine confermato'. */
export async function confirmed(origin: string, back: string, cookie: string, http: Fetch = fetch) {
  const html = await (await http(origin + back, { headers: { cookie } })).text();
  if (!html.includes("Ordine confermato")) throw new Error("the return page does not say 'Ordine confermato'");
}

/**
 * Buys the EDU subscription for the signed-in customer, as 'Acquista ora' and 'Completa
 * l'acquisto' do (sandbox card): its first month is paid and the subscription is active.
 */
export async function subscribeToEdu(origin: string, cookie: string, http: Fetch = fetch): Promise<void> {
  const page = await openCheckout(origin, cookie, EDU_PRODUCT_CODE, http);
  const paid = await http(origin + page, {
    method: "POST",
    redirect: "manual",
    headers: { cookie, origin, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(FORM_WITHOUT_SHIPPING),
  });
  await paid.arrayBuffer();
  await confirmed(origin, paidReturn(paid), cookie, http);
}

export async function measurePurchases(origin: string, cookie: string) {
  const submit: number[] = [];
  const confirmation: number[] = [];
  for (let i = 0; i < PURCHASES; i++) {
    const page = await openCheckout(origin, cookie, PAPER_BOOK);
    let started = performance.now();
    const paid = await fetch(origin + page, {
      method: "POST",
      redirect: "manual",
      headers: { cookie, origin, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(FORM),
    });
    await paid.arrayBuffer();
    submit.push(performance.now() - started);
    const back = paidReturn(paid);
    started = performance.now();
    await confirmed(origin, back, cookie);
    confirmation.push(performance.now() - started);
  }
  return { submit: percentiles(submit), confirmation: percentiles(confirmation) };
}
