// A local stand-in of Stripe's API for the tests (DESIGN.md: replaced at the network boundary, so
// the real `stripe` SDK still does the HTTP, the form encoding, the retries and the errors). It
// keeps state: customers, SetupIntents, PaymentIntents with Stripe's test payment methods, and
// idempotency keys as Stripe documents them (the same key and parameters replay the first
// answer; other parameters are an error). It answers only the calls the portal makes; anything
// else is a 404 in Stripe's shape, so an unplanned call fails loudly. It can also sign and send
// webhook events the way Stripe does.
//
// For the browser tests it also stands in for Stripe's other origins (the tests route them here):
// js.stripe.com's script (a fake Stripe.js, fake-stripe-js.ts), the calls Stripe.js makes to
// api.stripe.com with the publishable key and an intent's client secret, and checkout.stripe.com's
// hosted page of a Checkout Session in setup mode ('Paga' and 'Annulla', back to the session's
// success_url or cancel_url). Every answer allows any origin (CORS), as Stripe's API does.
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import Stripe from "stripe";
import { fakeStripeJsSource } from "./fake-stripe-js.ts";

/** Stripe's test payment methods the tests use, and what each does. */
const TEST_METHODS = {
  pm_card_visa: { last4: "4242", behaviour: "succeeds" },
  pm_card_chargeDeclined: { last4: "0002", behaviour: "setup_declined" },
  pm_card_visa_chargeDeclinedInsufficientFunds: { last4: "9995", behaviour: "declined" },
  pm_card_authenticationRequiredOnSetup: { last4: "3155", behaviour: "setup_authentication" },
  pm_card_authenticationRequired: { last4: "3184", behaviour: "charge_authentication" },
} as const;
export type TestMethod = keyof typeof TEST_METHODS;

/**
 * Stripe's test card numbers, as the customer types them in Stripe.js or on the hosted page:
 * 4242… paid; 0002 declined when the card is set up; 9995 declined when charged (insufficient
 * funds); 3155 3-D Secure when the card is set up; 3184 3-D Secure on the charge.
 */
const TEST_CARDS: Record<string, TestMethod> = {
  "4242424242424242": "pm_card_visa",
  "4000000000000002": "pm_card_chargeDeclined",
  "4000000000009995": "pm_card_visa_chargeDeclinedInsufficientFunds",
  "4000002500003155": "pm_card_authenticationRequiredOnSetup",
  "4000002760003184": "pm_card_authenticationRequired",
};

/** Stripe's messages for the customer (Stripe.js shows them in the page's language). */
const MESSAGES = {
  declinedAtSetup: "La carta è stata rifiutata.",
  insufficientFunds: "La carta non ha fondi sufficienti.",
  setupAuthenticationFailed: "Autenticazione non riuscita.",
  chargeAuthenticationFailed: "Non è stato possibile autenticare il pagamento.",
  invalidNumber: "Il numero della carta non è valido.",
} as const;

type Json = Record<string, unknown>;
/** A PaymentIntent and what the stand-in knows of it beyond Stripe's fields. */
type PaymentIntentRecord = Json & { method: TestMethod; confirmed: boolean; offSession?: boolean };
type Answer = { status: number; body: Json };
type Credentials = { kind: "secret" } | { kind: "publishable"; clientSecret: string } | null;

const newId = (prefix: string) => `${prefix}_${randomBytes(10).toString("hex")}`;

/** `a[b][c]=1&d[0]=x&e[]=y` → { a: { b: { c: "1" } }, d: ["x"], e: ["y"] } (Stripe's form encoding). */
function parseForm(text: string): Json {
  const result: Json = {};
  for (const [key, value] of new URLSearchParams(text)) {
    const parts = key.split("[").map((part, i) => (i === 0 ? part : part.replace(/\]$/, "")));
    let target: Record<string, unknown> | unknown[] = result;
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i]!;
      const slot: string | number = Array.isArray(target) ? (part === "" ? target.length : Number(part)) : part;
      const container = target as Record<string | number, unknown>;
      if (i === parts.length - 1) {
        container[slot] = value;
        break;
      }
      container[slot] ??= /^\d*$/.test(parts[i + 1]!) ? [] : {};
      target = container[slot] as Record<string, unknown> | unknown[];
    }
  }
  return result;
}

const html = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

export type FakeStripe = Awaited<ReturnType<typeof startFakeStripe>>;

export async function startFakeStripe({ port = 0 }: { port?: number } = {}) {
  const secretKey = "sk_test_fake";
  const publishableKey = "pk_test_fake";
  const customers = new Map<string, Json>();
  const setupIntents = new Map<string, Json & { method: TestMethod | null }>();
  const paymentIntents = new Map<string, PaymentIntentRecord>();
  /** This stand-in's own address, for the pages it serves (the bank's 3-D Secure page). */
  let base = "";
  const checkoutSessions = new Map<string, Json & { setupIntentData: Json }>();
  const idempotency = new Map<string, { params: string; answer: Answer }>();
  /** Every request, for assertions: method, path, idempotency key. */
  const requests: { method: string; path: string; idempotencyKey: string | undefined }[] = [];
  /** Charges that moved money: one per succeeded confirmation. */
  const succeededCharges: string[] = [];
  /** Money given back: refunds of a PaymentIntent, partial ones too, up to its amount. */
  const refunds = new Map<string, Json & { amount: number; payment_intent: string; status: string }>();
  /** PaymentIntents whose next refunds stay `pending` until `settleRefund` (a bank's slow refund). */
  const heldRefunds = new Set<string>();
  /** What a PaymentIntent's refunds not failed or canceled gave back. */
  const refundedOf = (intentId: string) =>
    [...refunds.values()]
      .filter((refund) => refund.payment_intent === intentId && refund.status !== "failed" && refund.status !== "canceled")
      .reduce((sum, refund) => sum + refund.amount, 0);
  let failing: { count: number; path: RegExp } = { count: 0, path: /./ };

  const error = (status: number, type: string, message: string, extra: Json = {}): Answer => ({
    status,
    body: { error: { type, message, ...extra } },
  });

  function setupView(intent: Json & { method: TestMethod | null }, expand: boolean): Json {
    const { method, ...rest } = intent;
    const paymentMethod =
      method && intent.status === "succeeded"
        ? expand
          ? { id: method, object: "payment_method", type: "card", card: { brand: "visa", last4: TEST_METHODS[method].last4 } }
          : method
        : null;
    return { ...rest, payment_method: paymentMethod };
  }
  const paymentView = (intent: PaymentIntentRecord): Json => {
    const { method, confirmed: _confirmed, offSession: _offSession, ...rest } = intent;
    return { ...rest, payment_method: method };
  };

  /** The bank's answer to a charge's 3-D Secure step, from Stripe.js's frame or the bank's page. */
  function authenticatePayment(intent: PaymentIntentRecord, approve: boolean) {
    intent.next_action = null;
    if (approve) {
      intent.status = "succeeded";
      succeededCharges.push(String(intent.id));
    } else {
      intent.status = "requires_payment_method";
      intent.last_payment_error = {
        type: "card_error",
        code: "payment_intent_authentication_failure",
        message: MESSAGES.chargeAuthenticationFailed,
      };
    }
  }

  /** The bank's 3-D Secure page of a charge confirmed without use_stripe_sdk ('Autorizza', 'Nega'). */
  function bankPage(id: string, form: Json | null): { location: string } | { status: number; html: string } {
    const intent = paymentIntents.get(id);
    const back = (intent?.next_action as { redirect_to_url?: { return_url?: string } } | null)?.redirect_to_url?.return_url;
    if (!intent || intent.status !== "requires_action" || !back)
      return { status: 404, html: "<p>Nessun pagamento da confermare.</p>" };
    if (!form) {
      return {
        status: 200,
        html: `<!doctype html><html lang="it"><head><title>3-D Secure (prova)</title></head><body><main>
<h1>Conferma il pagamento</h1><p>${html(String(Number(intent.amount) / 100))} € — banca di prova</p>
<form method="post"><button type="submit" name="action" value="approve">Autorizza</button> <button type="submit" name="action" value="deny">Nega</button></form>
</main></body></html>`,
      };
    }
    const approved = form.action === "approve";
    authenticatePayment(intent, approved);
    const target = new URL(back);
    target.searchParams.set("payment_intent", String(intent.id));
    target.searchParams.set("payment_intent_client_secret", String(intent.client_secret));
    target.searchParams.set("redirect_status", approved ? "succeeded" : "failed");
    return { location: target.href };
  }

  /** Who calls: the portal's server (the secret key), or Stripe.js (the publishable key and a client secret). */
  function credentials(req: IncomingMessage, params: Json, query: URLSearchParams): Credentials {
    const bearer = /^Bearer (\S+)$/.exec(req.headers.authorization ?? "")?.[1];
    if (bearer === secretKey) return { kind: "secret" };
    const key = params.key ?? query.get("key");
    if (key === publishableKey) {
      return { kind: "publishable", clientSecret: String(params.client_secret ?? query.get("client_secret") ?? "") };
    }
    return null;
  }

  /** What the publishable key may do: read and confirm an intent whose client secret it holds. */
  const BROWSER_CALL = /^\/v1\/(setup_intents|payment_intents)\/([^/]+)(\/confirm|\/authenticate)?$/;

  function route(method: string, path: string, params: Json, query: URLSearchParams, auth: Credentials): Answer {
    let match: RegExpExecArray | null;
    if (!auth) return error(401, "invalid_request_error", "Invalid API Key provided.");
    if (auth.kind === "publishable") {
      match = BROWSER_CALL.exec(path);
      const intent = match && (match[1] === "setup_intents" ? setupIntents : paymentIntents).get(match[2]!);
      const browserCall = match && (method === "GET" ? !match[3] : method === "POST" && match[3] !== undefined);
      if (!browserCall) return error(403, "invalid_request_error", "This API call cannot be made with a publishable API key.");
      if (!intent || intent.client_secret !== auth.clientSecret)
        return error(404, "invalid_request_error", `No such ${match![1]!.slice(0, -1)}`, { code: "resource_missing" });
    } else if (path.endsWith("/authenticate")) {
      // The bank's authentication page answers the customer, never the merchant.
      return error(404, "invalid_request_error", `Unrecognized request URL (${method}: ${path})`);
    }
    if (method === "POST" && path === "/v1/customers") {
      const customer = {
        id: newId("cus"),
        object: "customer",
        email: params.email,
        name: params.name,
        metadata: params.metadata ?? {},
      };
      customers.set(customer.id, customer);
      return { status: 200, body: customer };
    }
    if ((match = /^\/v1\/customers\/([^/]+)$/.exec(path)) && method === "DELETE") {
      if (!customers.delete(match[1]!))
        return error(404, "invalid_request_error", "No such customer", { code: "resource_missing" });
      return { status: 200, body: { id: match[1], object: "customer", deleted: true } };
    }
    if (method === "POST" && path === "/v1/setup_intents") {
      if (params.payment_method_types)
        return error(400, "invalid_request_error", "Received unknown parameter: payment_method_types");
      if (!customers.has(String(params.customer))) return error(400, "invalid_request_error", "No such customer");
      const id = newId("seti");
      const intent = {
        id,
        object: "setup_intent",
        status: "requires_payment_method",
        client_secret: `${id}_secret_${randomBytes(6).toString("hex")}`,
        customer: params.customer,
        usage: params.usage,
        metadata: params.metadata ?? {},
        last_setup_error: null,
        method: null,
      };
      setupIntents.set(id, intent);
      return { status: 200, body: setupView(intent, false) };
    }
    if ((match = /^\/v1\/setup_intents\/([^/]+)(\/confirm|\/cancel|\/authenticate)?$/.exec(path))) {
      const intent = setupIntents.get(match[1]!);
      if (!intent) return error(404, "invalid_request_error", "No such setup_intent", { code: "resource_missing" });
      const expanded = [...query].some(([name, value]) => /^expand\[\d*\]$/.test(name) && value === "payment_method");
      if (method === "GET") return { status: 200, body: setupView(intent, expanded) };
      if (match[2] === "/cancel") {
        if (intent.status === "succeeded") return error(400, "invalid_request_error", "This SetupIntent has succeeded");
        intent.status = "canceled";
        return { status: 200, body: setupView(intent, false) };
      }
      if (match[2] === "/confirm") {
        const pm = String(params.payment_method) as TestMethod;
        if (!(pm in TEST_METHODS)) return error(400, "invalid_request_error", "No such PaymentMethod");
        if (intent.status !== "requires_payment_method" && intent.status !== "requires_confirmation")
          return error(400, "invalid_request_error", `This SetupIntent's status is ${String(intent.status)}`, {
            code: "setup_intent_unexpected_state",
          });
        if (TEST_METHODS[pm].behaviour === "setup_declined") {
          intent.method = null;
          intent.status = "requires_payment_method";
          intent.last_setup_error = { type: "card_error", code: "card_declined", message: MESSAGES.declinedAtSetup };
          return error(402, "card_error", MESSAGES.declinedAtSetup, {
            code: "card_declined",
            decline_code: "generic_decline",
            setup_intent: setupView(intent, false),
          });
        }
        intent.method = pm;
        intent.last_setup_error = null;
        intent.status = TEST_METHODS[pm].behaviour === "setup_authentication" ? "requires_action" : "succeeded";
        return { status: 200, body: setupView(intent, false) };
      }
      if (match[2] === "/authenticate" && method === "POST") {
        // The bank's 3-D Secure page of the card step (Stripe.js shows it in a frame).
        if (intent.status !== "requires_action") return error(400, "invalid_request_error", "This SetupIntent waits for nothing");
        if (params.result === "approve") intent.status = "succeeded";
        else {
          intent.method = null;
          intent.status = "requires_payment_method";
          intent.last_setup_error = {
            type: "card_error",
            code: "setup_intent_authentication_failure",
            message: MESSAGES.setupAuthenticationFailed,
          };
        }
        return { status: 200, body: setupView(intent, false) };
      }
    }
    if (method === "POST" && path === "/v1/payment_intents") {
      if (params.payment_method_types)
        return error(400, "invalid_request_error", "Received unknown parameter: payment_method_types");
      const method = params.payment_method as TestMethod;
      if (!(method in TEST_METHODS)) return error(400, "invalid_request_error", "No such PaymentMethod");
      // A deleted Customer's cards were detached with it.
      if (params.customer && !customers.has(String(params.customer)))
        return error(400, "invalid_request_error", "No such customer");
      const id = newId("pi");
      const intent = {
        id,
        object: "payment_intent",
        status: "requires_confirmation",
        amount: Number(params.amount),
        currency: params.currency,
        customer: params.customer,
        client_secret: `${id}_secret_${randomBytes(6).toString("hex")}`,
        description: params.description,
        metadata: params.metadata ?? {},
        last_payment_error: null,
        method,
        confirmed: false,
      };
      paymentIntents.set(id, intent);
      return { status: 200, body: paymentView(intent) };
    }
    if ((match = /^\/v1\/payment_intents\/([^/]+)(\/confirm|\/authenticate|\/cancel)?$/.exec(path))) {
      const intent = paymentIntents.get(match[1]!);
      if (!intent) return error(404, "invalid_request_error", "No such payment_intent", { code: "resource_missing" });
      if (method === "GET") return { status: 200, body: paymentView(intent) };
      if (match[2] === "/authenticate") {
        // The bank's 3-D Secure page of a charge (Stripe.js's handleNextAction shows it).
        if (intent.status !== "requires_action")
          return error(400, "invalid_request_error", "This PaymentIntent waits for nothing");
        authenticatePayment(intent, params.result === "approve");
        return { status: 200, body: paymentView(intent) };
      }
      if (match[2] === "/cancel") {
        if (intent.status === "succeeded" || intent.status === "canceled")
          return error(
            400,
            "invalid_request_error",
            `You cannot cancel this PaymentIntent because it has a status of ${String(intent.status)}.`,
            {
              code: "payment_intent_unexpected_state",
            },
          );
        intent.status = "canceled";
        intent.next_action = null;
        return { status: 200, body: paymentView(intent) };
      }
      if (intent.status === "succeeded")
        return error(400, "invalid_request_error", "This PaymentIntent has already succeeded", {
          code: "payment_intent_unexpected_state",
        });
      const behaviour = TEST_METHODS[intent.method].behaviour;
      if (behaviour === "declined") {
        intent.status = "requires_payment_method";
        intent.last_payment_error = {
          type: "card_error",
          code: "card_declined",
          decline_code: "insufficient_funds",
          message: MESSAGES.insufficientFunds,
        };
        return error(402, "card_error", MESSAGES.insufficientFunds, {
          code: "card_declined",
          decline_code: "insufficient_funds",
          payment_intent: paymentView(intent),
        });
      }
      intent.offSession = params.off_session === "true";
      if (behaviour === "charge_authentication" && !intent.confirmed) {
        intent.confirmed = true;
        intent.status = params.off_session ? "requires_payment_method" : "requires_action";
        // Without use_stripe_sdk the bank's page is one to send the customer to, back to return_url.
        if (!params.off_session && params.use_stripe_sdk !== "true" && typeof params.return_url === "string") {
          intent.next_action = {
            type: "redirect_to_url",
            redirect_to_url: { url: `${base}/3ds/pay/${String(intent.id)}`, return_url: params.return_url },
          };
        }
        if (params.off_session) {
          intent.last_payment_error = {
            type: "card_error",
            code: "authentication_required",
            message: "Serve l'autenticazione della carta.",
          };
          return error(402, "card_error", "Serve l'autenticazione della carta.", {
            code: "authentication_required",
            payment_intent: paymentView(intent),
          });
        }
        return { status: 200, body: paymentView(intent) };
      }
      intent.status = "succeeded";
      succeededCharges.push(String(intent.id));
      return { status: 200, body: paymentView(intent) };
    }
    if (method === "POST" && path === "/v1/refunds") {
      const intent = paymentIntents.get(String(params.payment_intent));
      if (!intent) return error(404, "invalid_request_error", "No such payment_intent", { code: "resource_missing" });
      if (intent.status !== "succeeded")
        return error(400, "invalid_request_error", "This PaymentIntent does not have a successful charge to refund.");
      const intentId = String(intent.id);
      const left = Number(intent.amount) - refundedOf(intentId);
      if (left <= 0)
        return error(400, "invalid_request_error", `Charge for ${intentId} has already been refunded.`, {
          code: "charge_already_refunded",
        });
      const amount = params.amount === undefined ? left : Number(params.amount);
      if (!Number.isInteger(amount) || amount < 1)
        return error(400, "invalid_request_error", "Invalid positive integer", { code: "parameter_invalid_integer" });
      if (amount > left)
        return error(
          400,
          "invalid_request_error",
          `Refund amount (€${(amount / 100).toFixed(2)}) is greater than unrefunded amount on charge (€${(left / 100).toFixed(2)})`,
        );
      const refund = {
        id: newId("re"),
        object: "refund",
        amount,
        currency: intent.currency,
        payment_intent: intentId,
        status: heldRefunds.has(intentId) ? "pending" : "succeeded",
        failure_reason: null as string | null,
        metadata: params.metadata ?? {},
      };
      refunds.set(refund.id, refund);
      // A copy: a key replayed answers what the first request got, as Stripe does.
      return { status: 200, body: { ...refund } };
    }
    if (method === "GET" && path === "/v1/refunds") {
      const data = [...refunds.values()].filter((refund) => refund.payment_intent === query.get("payment_intent")).reverse();
      return { status: 200, body: { object: "list", data, has_more: false, url: "/v1/refunds" } };
    }
    const refundPath = /^\/v1\/refunds\/([^/]+)$/.exec(path);
    if (method === "GET" && refundPath) {
      const refund = refunds.get(refundPath[1]!);
      if (!refund) return error(404, "invalid_request_error", "No such refund", { code: "resource_missing" });
      return { status: 200, body: refund };
    }
    if (method === "POST" && path === "/v1/checkout/sessions") {
      if (params.mode !== "setup") return error(400, "invalid_request_error", "The fake answers only sessions in setup mode");
      if (!customers.has(String(params.customer))) return error(400, "invalid_request_error", "No such customer");
      if (typeof params.success_url !== "string" || typeof params.cancel_url !== "string")
        return error(400, "invalid_request_error", "Missing success_url or cancel_url");
      const id = newId("cs_test");
      const session = {
        id,
        object: "checkout.session",
        mode: "setup",
        status: "open",
        currency: params.currency,
        customer: params.customer,
        locale: params.locale ?? null,
        success_url: params.success_url,
        cancel_url: params.cancel_url,
        url: `https://checkout.stripe.com/c/pay/${id}`,
        setup_intent: null as string | null,
        metadata: params.metadata ?? {},
        setupIntentData: (params.setup_intent_data ?? {}) as Json,
      };
      checkoutSessions.set(id, session);
      return { status: 200, body: sessionView(session, false) };
    }
    if ((match = /^\/v1\/checkout\/sessions\/([^/]+)$/.exec(path)) && method === "GET") {
      const session = checkoutSessions.get(match[1]!);
      if (!session) return error(404, "invalid_request_error", "No such checkout.session", { code: "resource_missing" });
      const expanded = [...query].some(([name, value]) => /^expand\[\d*\]$/.test(name) && value === "setup_intent");
      return { status: 200, body: sessionView(session, expanded) };
    }
    return error(404, "invalid_request_error", `Unrecognized request URL (${method}: ${path})`);
  }

  function sessionView(session: Json & { setupIntentData: Json }, expand: boolean): Json {
    const { setupIntentData: _data, ...rest } = session;
    const intent = typeof session.setup_intent === "string" ? setupIntents.get(session.setup_intent) : undefined;
    return {
      ...rest,
      url: session.status === "open" ? session.url : null,
      setup_intent: expand && intent ? setupView(intent, false) : session.setup_intent,
    };
  }

  /** checkout.stripe.com's page of a session: the card, 'Paga' and 'Annulla'. */
  function hostedPage(id: string, problem: string | null = null): { status: number; html: string } {
    const session = checkoutSessions.get(id);
    const body =
      session?.status !== "open"
        ? `<h1>Sessione non disponibile</h1><p>Questa pagina di pagamento è scaduta o è già stata usata.</p>`
        : `<h1>Novalex Editore</h1>
<p>Pagina di pagamento di Stripe (di prova): la carta viene salvata per l'addebito dell'ordine.</p>
${problem ? `<p role="alert">${html(problem)}</p>` : ""}
<form method="post" action="/c/pay/${html(id)}">
<p><label for="card">Numero carta</label> <input id="card" name="card" inputmode="numeric" autocomplete="cc-number" value="4242 4242 4242 4242"></p>
<p><button type="submit" name="action" value="pay">Paga</button> <button type="submit" name="action" value="cancel">Annulla</button></p>
</form>`;
    return {
      status: session ? 200 : 404,
      html: `<!doctype html><html lang="it"><head><meta charset="utf-8"><title>Pagamento · Stripe (prova)</title></head><body><main>${body}</main></body></html>`,
    };
  }

  /** The customer's choice on the hosted page: where the browser goes next, or the page again. */
  function payHostedPage(id: string, form: Json): { location: string } | { status: number; html: string } {
    const session = checkoutSessions.get(id);
    if (session?.status !== "open") return hostedPage(id);
    if (form.action === "cancel") return { location: String(session.cancel_url) };
    const method = TEST_CARDS[String(form.card ?? "").replace(/\D/g, "")];
    if (!method) return { ...hostedPage(id, MESSAGES.invalidNumber), status: 402 };
    if (TEST_METHODS[method].behaviour === "setup_declined") return { ...hostedPage(id, MESSAGES.declinedAtSetup), status: 402 };
    // The session's own SetupIntent, confirmed by the page (its 3-D Secure passes).
    const setupId = newId("seti");
    setupIntents.set(setupId, {
      id: setupId,
      object: "setup_intent",
      status: "succeeded",
      client_secret: `${setupId}_secret_${randomBytes(6).toString("hex")}`,
      customer: session.customer,
      usage: "off_session",
      metadata: session.setupIntentData.metadata ?? {},
      last_setup_error: null,
      method,
    });
    session.status = "complete";
    session.setup_intent = setupId;
    return { location: String(session.success_url).replace("{CHECKOUT_SESSION_ID}", id) };
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? "/", "http://fake-stripe");
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString();
    const key = req.headers["idempotency-key"] as string | undefined;
    requests.push({ method: req.method ?? "", path: url.pathname, idempotencyKey: key });
    const cors = { "access-control-allow-origin": "*" };
    if (req.method === "OPTIONS") {
      res.writeHead(204, {
        ...cors,
        "access-control-allow-methods": "GET, POST",
        "access-control-allow-headers": "content-type",
      });
      res.end();
      return;
    }
    // js.stripe.com: the fake Stripe.js, whatever the release train in the address.
    if (req.method === "GET" && /^\/[a-z0-9]+\/stripe\.js$/.test(url.pathname)) {
      res.writeHead(200, { ...cors, "content-type": "text/javascript; charset=utf-8" });
      res.end(fakeStripeJsSource(TEST_CARDS));
      return;
    }
    // hooks.stripe.com: the bank's 3-D Secure page of a charge.
    const bank = /^\/3ds\/pay\/([^/]+)$/.exec(url.pathname);
    if (bank) {
      const next = bankPage(bank[1]!, req.method === "POST" ? parseForm(text) : null);
      if ("location" in next) res.writeHead(303, { location: next.location });
      else res.writeHead(next.status, { "content-type": "text/html; charset=utf-8" });
      res.end("location" in next ? "" : next.html);
      return;
    }
    // checkout.stripe.com: a session's hosted page.
    const page = /^\/c\/pay\/([^/]+)$/.exec(url.pathname);
    if (page) {
      const next = req.method === "POST" ? payHostedPage(page[1]!, parseForm(text)) : hostedPage(page[1]!);
      if ("location" in next) res.writeHead(303, { location: next.location });
      else res.writeHead(next.status, { "content-type": "text/html; charset=utf-8" });
      res.end("location" in next ? "" : next.html);
      return;
    }
    let answer: Answer;
    if (failing.count > 0 && failing.path.test(url.pathname)) {
      failing.count--;
      answer = error(500, "api_error", "Something went wrong on Stripe's end (fake).");
    } else if (req.method === "POST" && key && idempotency.has(key)) {
      const earlier = idempotency.get(key)!;
      answer =
        earlier.params === `${url.pathname}?${text}`
          ? earlier.answer
          : error(
              400,
              "idempotency_error",
              "Keys for idempotent requests can only be used with the same parameters they were first used with.",
            );
    } else {
      const params = parseForm(text);
      answer = route(req.method ?? "GET", url.pathname, params, url.searchParams, credentials(req, params, url.searchParams));
      if (req.method === "POST" && key && answer.status < 500)
        idempotency.set(key, { params: `${url.pathname}?${text}`, answer });
    }
    res.writeHead(answer.status, { ...cors, "content-type": "application/json", "request-id": newId("req") });
    res.end(JSON.stringify(answer.body));
  }

  /** A signed event as Stripe sends it (its SDK's own test helper signs it). */
  function signedEvent(type: string, object: Json, { id = newId("evt"), timestamp }: { id?: string; timestamp?: number } = {}) {
    const payload = JSON.stringify({
      id,
      object: "event",
      api_version: "2026-10-28.endive",
      created: Math.floor(Date.now() / 1000),
      type,
      data: { object },
    });
    const signature = new Stripe("sk_test_fake").webhooks.generateTestHeaderString({
      payload,
      secret: "whsec_fake_0123456789",
      timestamp,
    });
    return { id, payload, signature };
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      res.writeHead(500);
      res.end(String(err));
    });
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const address = server.address() as AddressInfo;
  base = `http://127.0.0.1:${address.port}`;

  return {
    apiBase: base,
    secretKey,
    publishableKey,
    webhookSecret: "whsec_fake_0123456789",
    /** The portal's settings that point it at this stand-in. */
    env: {
      STRIPE_SECRET_KEY: secretKey,
      STRIPE_PUBLISHABLE_KEY: publishableKey,
      STRIPE_WEBHOOK_SECRET: "whsec_fake_0123456789",
      STRIPE_API_BASE: base,
    },
    requests,
    succeededCharges,
    /** The refunds made, each with the PaymentIntent it gave back. */
    refunds: () => [...refunds.values()],
    setupIntent: (id: string) => setupIntents.get(id),
    customers: () => [...customers.values()],
    checkoutSession: (id: string) => checkoutSessions.get(id),
    paymentIntent: (id: string) => paymentIntents.get(id),
    /** The next `count` calls to a matching path answer 500 (Stripe's side failing), doing nothing. */
    failNextCalls(count: number, path = /./) {
      failing = { count, path };
    },
    /** What Stripe.js does in the browser: the customer's card confirms the setup (3-D Secure passes). */
    confirmSetup(setupId: string, method: TestMethod, { authenticate = true } = {}) {
      const intent = setupIntents.get(setupId);
      if (!intent) throw new Error(`no setup ${setupId}`);
      intent.method = method;
      const needsAuth = TEST_METHODS[method].behaviour === "setup_authentication";
      intent.status = needsAuth && !authenticate ? "requires_payment_method" : "succeeded";
      if (needsAuth && !authenticate) {
        intent.last_setup_error = {
          type: "card_error",
          code: "setup_intent_authentication_failure",
          message: "Autenticazione non riuscita.",
        };
      }
    },
    /** The customer passes the bank's authentication of a charge (Stripe.js handleNextAction). */
    authenticateCharge(chargeId: string) {
      const intent = paymentIntents.get(chargeId);
      if (intent?.status !== "requires_action") throw new Error(`charge ${chargeId} waits for nothing`);
      intent.status = "succeeded";
      succeededCharges.push(String(intent.id));
    },
    /** The PaymentIntent's next refunds stay `pending` (a bank's slow refund) until `settleRefund`; false: they succeed at once. */
    holdRefunds(chargeId: string, hold: boolean) {
      if (hold) heldRefunds.add(chargeId);
      else heldRefunds.delete(chargeId);
    },
    /**
     * Ends a pending refund as the bank does (failed: Stripe's `expired_or_canceled_card`), and
     * gives the event Stripe sends about it, signed: `refund.updated`, or `refund.failed`.
     */
    settleRefund(refundId: string, outcome: "succeeded" | "failed") {
      const refund = refunds.get(refundId);
      if (refund?.status !== "pending") throw new Error(`refund ${refundId} is not pending`);
      refund.status = outcome;
      refund.failure_reason = outcome === "failed" ? "expired_or_canceled_card" : null;
      return signedEvent(outcome === "failed" ? "refund.failed" : "refund.updated", { ...refund });
    },
    signedEvent,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // The portal's SDK keeps its connections open.
        server.closeAllConnections();
      }),
  };
}
