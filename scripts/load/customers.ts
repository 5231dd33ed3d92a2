// The virtual customers of the load-and-faults run and what they do on a visit, through the real
// pages: signing in through the portal's identity provider, the dashboard and 'I miei prodotti',
// activating a code printed in a book, buying an eBook (one purchase in ten first with a card the
// bank declines) and the EDU subscription with the sandbox's good card (docs/payments.md, "Payments"). Each customer is one browser: one visit at a
// time, a cookie jar, connections and an address of its own. What each visit saw is kept in the
// ledger, which the run compares with the database afterwards ("nothing lost").
import { FORM_WITHOUT_SHIPPING, confirmed, openCheckout, paidReturn, subscribeToEdu } from "#scripts/bench/checkout.ts";
import { cookieHeader, signIn, signedInProfessional, type Fetch } from "#scripts/bench/sign-in.ts";
import { customerFetch, type Recorder, type Sample } from "./client.ts";
import { ACTIVATION_REFUSALS } from "#shared/activation-refusals.ts";

export const VISIT_KINDS = ["dashboard", "sign-in", "activation", "checkout", "edu"] as const;
export type VisitKind = (typeof VISIT_KINDS)[number];

/** A session the load created: its cookie, and whether a request made with it was cut by a restart. */
type Session = { customer: number; cookie: string; createdAt: number; cutRequests: number };

export type Customer = {
  index: number;
  email: string;
  password: string;
  address: string;
  http: Fetch & { close(): void };
  session: Session;
  busy: boolean;
  hasEdu: boolean;
  /** Card payments started in this run (the portal allows 10 an hour per customer). */
  payments: number;
  /** Requests cut by a restart (the proxy's 502) during the current visit. */
  cuts: number;
};

export type Ledger = {
  sessions: Session[];
  visits: { kind: VisitKind; customer: number; at: number; ms: number; ok: boolean; cut: boolean; reason?: string }[];
  activations: {
    customer: number;
    email: string;
    code: string;
    contested: boolean;
    outcome: "activated" | "refused" | "failed";
    cut: boolean;
  }[];
  /** Orders whose payment was submitted: what the customer last saw of each. */
  purchases: {
    customer: number;
    orderPath: string;
    sku: string;
    outcome: "confirmed" | "unconfirmed";
    cut: boolean;
    /** The customer first gave a card the bank declines, saw the refusal, then paid with a good one. */
    declinedFirst: boolean;
  }[];
  eduBought: { customer: number; email: string; at: number }[];
};

export const newLedger = (): Ledger => ({ sessions: [], visits: [], activations: [], purchases: [], eduBought: [] });

/** Customer i's address: 127.1.x.y, one per customer (the proxy forwards it as X-Forwarded-For). */
const addressOf = (i: number) => `127.1.${Math.floor(i / 250)}.${(i % 250) + 1}`;

/**
 * Registers `count` customers through the registration page, signs each in and completes first
 * access (a legal professional: every section of the dashboard shows), a few at a time.
 */
export async function createCustomers(opts: {
  origin: string;
  proxyPort: number;
  count: number;
  recorder: Recorder;
  ledger: Ledger;
  tag: string;
  concurrency?: number;
}): Promise<Customer[]> {
  const { origin, proxyPort, count, recorder, ledger, tag, concurrency = 4 } = opts;
  const customers: Customer[] = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const index = next++;
        const address = addressOf(index);
        const customer = { index, address, busy: false, hasEdu: false, payments: 0, cuts: 0 } as Customer;
        customer.http = customerFetch(
          proxyPort,
          address,
          () => recorder.now(),
          (s) => onSample(recorder, customer, s),
        );
        customer.email = `cliente.${tag}.${index}@load.example`;
        const { cookie, password } = await signedInProfessional(origin, customer.http, customer.email);
        customer.password = password;
        customer.session = { customer: index, cookie, createdAt: recorder.now(), cutRequests: 0 };
        ledger.sessions.push(customer.session);
        customers[index] = customer;
      }
    }),
  );
  return customers;
}

function onSample(recorder: Recorder, customer: Customer, sample: Sample) {
  recorder.add({ ...sample, customer: customer.index });
  if (sample.cut) {
    customer.cuts++;
    // (None before the customer's first session exists: registration and first sign-in.)
    if (customer.session) customer.session.cutRequests++;
  }
}

type VisitContext = {
  origin: string;
  ledger: Ledger;
  recorder: Recorder;
  /** SKUs of eBooks the checkout sells (they grant access). */
  products: string[];
  /** Called once a customer's EDU purchase is confirmed (the run moves its second month into the run). */
  onEduBought(email: string): void;
};

async function expectPage(http: Fetch, url: string, cookie: string) {
  const response = await http(url, { redirect: "manual", headers: { cookie } });
  await response.arrayBuffer();
  if (response.status === 302 || response.status === 303) {
    throw new Error(`${new URL(url).pathname} sent a signed-in customer to ${response.headers.get("location")}`);
  }
  if (response.status !== 200) throw new Error(`${new URL(url).pathname} answered ${response.status}`);
}

async function dashboard(c: Customer, ctx: VisitContext) {
  await expectPage(c.http, `${ctx.origin}/dashboard/`, c.session.cookie);
  await expectPage(c.http, `${ctx.origin}/my-products/`, c.session.cookie);
  await expectPage(c.http, `${ctx.origin}/dashboard/`, c.session.cookie);
}

/** A new browser for the same customer: the whole sign-in, then the dashboard. */
async function signInAgain(c: Customer, ctx: VisitContext) {
  const jar = await signIn(ctx.origin, c.email, c.password, c.http);
  if (!jar) throw new Error("the sign-in did not end with a portal session");
  c.session = { customer: c.index, cookie: cookieHeader(jar), createdAt: ctx.recorder.now(), cutRequests: 0 };
  ctx.ledger.sessions.push(c.session);
  await expectPage(c.http, `${ctx.origin}/dashboard/`, c.session.cookie);
}

/** The activation modal, then its form posted with the code: true when the code was activated. */
async function activate(c: Customer, ctx: VisitContext, code: string): Promise<boolean> {
  await expectPage(c.http, `${ctx.origin}/dashboard/?show=activateProduct`, c.session.cookie);
  const response = await c.http(`${ctx.origin}/prodotti/attiva/`, {
    method: "POST",
    redirect: "manual",
    headers: { cookie: c.session.cookie, origin: ctx.origin, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ code }),
  });
  await response.arrayBuffer();
  if (response.status === 302 || response.status === 303) {
    if (new URL(response.headers.get("location") ?? "", ctx.origin).pathname !== "/dashboard/")
      throw new Error(`the activation went to ${response.headers.get("location")}`);
    await expectPage(c.http, `${ctx.origin}/dashboard/`, c.session.cookie);
    return true;
  }
  // Refused, with the refusal table's status: invalid (used up by another customer) or already activated.
  if (Object.values(ACTIVATION_REFUSALS).some((refusal) => refusal.status === response.status)) return false;
  throw new Error(`the activation answered ${response.status}`);
}

/** The share of purchases that first give a card the bank declines (the sandbox's test number). */
const DECLINED_FIRST_SHARE = 0.1;
const DECLINED_CARD = "4000 0000 0000 9995";
/** A declined card spends one of the customer's card payments of the hour (10): kept below. */
const DECLINE_ONLY_BELOW_PAYMENTS = 8;

/**
 * An eBook bought with the sandbox's good card, to 'Ordine confermato'; one purchase in ten first
 * with a card the bank declines (its refusal shown on the order's page, the order payable again).
 */
async function checkout(c: Customer, ctx: VisitContext) {
  const sku = ctx.products[Math.floor(Math.random() * ctx.products.length)]!;
  const page = await openCheckout(ctx.origin, c.session.cookie, sku, c.http);
  await expectPage(c.http, ctx.origin + page, c.session.cookie);
  const declinedFirst = c.payments < DECLINE_ONLY_BELOW_PAYMENTS && Math.random() < DECLINED_FIRST_SHARE;
  const purchase = {
    customer: c.index,
    orderPath: page,
    sku,
    outcome: "unconfirmed" as "confirmed" | "unconfirmed",
    cut: false,
    declinedFirst,
  };
  ctx.ledger.purchases.push(purchase);
  const cutsBefore = c.cuts;
  const pay = (cardNumber: string) => {
    c.payments++;
    return c.http(ctx.origin + page, {
      method: "POST",
      redirect: "manual",
      headers: { cookie: c.session.cookie, origin: ctx.origin, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ ...FORM_WITHOUT_SHIPPING, cc_number: cardNumber }),
    });
  };
  try {
    if (declinedFirst) {
      const declined = await pay(DECLINED_CARD);
      await declined.arrayBuffer();
      const back = declined.headers.get("location") ?? "";
      if (declined.status !== 303 || !back.includes("redirect_status=failed"))
        throw new Error(`the declined card answered ${declined.status} ${back}`);
      await expectPage(c.http, ctx.origin + back, c.session.cookie);
    }
    const paid = await pay(FORM_WITHOUT_SHIPPING.cc_number!);
    await paid.arrayBuffer();
    await confirmed(ctx.origin, paidReturn(paid), c.session.cookie, c.http);
    purchase.outcome = "confirmed";
  } catch (error) {
    purchase.cut = c.cuts > cutsBefore;
    // As a customer would: look at the order again a little later.
    await new Promise((r) => setTimeout(r, 2_000));
    const again = await c.http(ctx.origin + page, { redirect: "manual", headers: { cookie: c.session.cookie } });
    if ((await again.text()).includes("Ordine confermato")) purchase.outcome = "confirmed";
    throw error;
  }
}

async function buyEdu(c: Customer, ctx: VisitContext) {
  c.payments++;
  await subscribeToEdu(ctx.origin, c.session.cookie, c.http);
  c.hasEdu = true;
  ctx.ledger.eduBought.push({ customer: c.index, email: c.email, at: ctx.recorder.now() });
  ctx.onEduBought(c.email);
}

/** One visit of one customer (or, for a contested code, of several at once), recorded in the ledger. */
export async function visit(kind: VisitKind, group: Customer[], ctx: VisitContext, code?: { code: string; contested: boolean }) {
  const at = ctx.recorder.now();
  const started = performance.now();
  for (const c of group) {
    c.busy = true;
    c.cuts = 0;
  }
  const one = async (c: Customer) => {
    try {
      if (kind === "dashboard") await dashboard(c, ctx);
      else if (kind === "sign-in") await signInAgain(c, ctx);
      else if (kind === "checkout") await checkout(c, ctx);
      else if (kind === "edu") await buyEdu(c, ctx);
      else {
        const record = {
          customer: c.index,
          email: c.email,
          code: code!.code,
          contested: code!.contested,
          outcome: "failed" as const,
          cut: false,
        };
        ctx.ledger.activations.push(record);
        try {
          (record as { outcome: string }).outcome = (await activate(c, ctx, code!.code)) ? "activated" : "refused";
        } finally {
          record.cut = c.cuts > 0;
        }
      }
      ctx.ledger.visits.push({ kind, customer: c.index, at, ms: performance.now() - started, ok: true, cut: c.cuts > 0 });
    } catch (error) {
      ctx.ledger.visits.push({
        kind,
        customer: c.index,
        at,
        ms: performance.now() - started,
        ok: false,
        cut: c.cuts > 0,
        reason: error instanceof Error ? error.message : String(error),
      });
    } finally {
      c.busy = false;
    }
  };
  await Promise.all(group.map(one));
}
