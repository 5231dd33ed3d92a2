// A local stand-in of Stripe's API for the tests (DESIGN.md: replaced at the network boundary, so
// the real `stripe` SDK still does the HTTP, the form encoding, the retries and the errors). It
// keeps state: customers, SetupIntents, PaymentIntents with Stripe's test payment methods, and
// idempotency keys as Stripe documents them (the same key and parameters replay the first
// answer; other parameters are an error). It answers only the calls the portal makes; anything
// else is a 404 in Stripe's shape, so an unplanned call fails loudly. It can also sign and send
// webhook events the way Stripe does.
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import Stripe from "stripe";

/** Stripe's test payment methods the tests use, and what each does. */
const TEST_METHODS = {
  pm_card_visa: { last4: "4242", behaviour: "succeeds" },
  pm_card_visa_chargeDeclinedInsufficientFunds: { last4: "9995", behaviour: "declined" },
  pm_card_authenticationRequiredOnSetup: { last4: "3155", behaviour: "setup_authentication" },
  pm_card_authenticationRequired: { last4: "3184", behaviour: "charge_authentication" },
} as const;
export type TestMethod = keyof typeof TEST_METHODS;

type Json = Record<string, unknown>;
type Answer = { status: number; body: Json };

const newId = (prefix: string) => `${prefix}_${randomBytes(10).toString("hex")}`;

/** `a[b]=1&c[0]=x` → { a: { b: "1" }, c: ["x"] } (Stripe's form encoding, one level deep is enough here). */
function parseForm(text: string): Json {
  const result: Json = {};
  for (const [key, value] of new URLSearchParams(text)) {
    const nested = /^([^[]+)\[([^\]]*)\]$/.exec(key);
    if (!nested) {
      result[key] = value;
      continue;
    }
    const name = nested[1]!;
    const inner = nested[2]!;
    if (/^\d+$/.test(inner)) ((result[name] ??= []) as unknown[]).push(value);
    else ((result[name] ??= {}) as Json)[inner] = value;
  }
  return result;
}

export type FakeStripe = Awaited<ReturnType<typeof startFakeStripe>>;

export async function startFakeStripe() {
  const customers = new Map<string, Json>();
  const setupIntents = new Map<string, Json & { method: TestMethod | null }>();
  const paymentIntents = new Map<string, Json & { method: TestMethod; confirmed: boolean }>();
  const idempotency = new Map<string, { params: string; answer: Answer }>();
  /** Every request, for assertions: method, path, idempotency key. */
  const requests: { method: string; path: string; idempotencyKey: string | undefined }[] = [];
  /** Charges that moved money: one per succeeded confirmation. */
  const succeededCharges: string[] = [];
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
  const paymentView = (intent: Json & { method: TestMethod; confirmed: boolean }): Json => {
    const { method, confirmed: _confirmed, ...rest } = intent;
    return { ...rest, payment_method: method };
  };

  function route(method: string, path: string, params: Json, query: URLSearchParams): Answer {
    let match: RegExpExecArray | null;
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
    if ((match = /^\/v1\/setup_intents\/([^/]+)(\/confirm|\/cancel)?$/.exec(path))) {
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
        intent.method = pm;
        intent.status = TEST_METHODS[pm].behaviour === "setup_authentication" ? "requires_action" : "succeeded";
        return { status: 200, body: setupView(intent, false) };
      }
    }
    if (method === "POST" && path === "/v1/payment_intents") {
      if (params.payment_method_types)
        return error(400, "invalid_request_error", "Received unknown parameter: payment_method_types");
      const method = params.payment_method as TestMethod;
      if (!(method in TEST_METHODS)) return error(400, "invalid_request_error", "No such PaymentMethod");
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
    if ((match = /^\/v1\/payment_intents\/([^/]+)(\/confirm)?$/.exec(path))) {
      const intent = paymentIntents.get(match[1]!);
      if (!intent) return error(404, "invalid_request_error", "No such payment_intent", { code: "resource_missing" });
      if (method === "GET") return { status: 200, body: paymentView(intent) };
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
          message: "La carta non ha fondi sufficienti.",
        };
        return error(402, "card_error", "La carta non ha fondi sufficienti.", {
          code: "card_declined",
          decline_code: "insufficient_funds",
          payment_intent: paymentView(intent),
        });
      }
      if (behaviour === "charge_authentication" && !intent.confirmed) {
        intent.confirmed = true;
        intent.status = params.off_session ? "requires_payment_method" : "requires_action";
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
    return error(404, "invalid_request_error", `Unrecognized request URL (${method}: ${path})`);
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? "/", "http://fake-stripe");
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString();
    const key = req.headers["idempotency-key"] as string | undefined;
    requests.push({ method: req.method ?? "", path: url.pathname, idempotencyKey: key });
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
      answer = route(req.method ?? "GET", url.pathname, parseForm(text), url.searchParams);
      if (req.method === "POST" && key && answer.status < 500)
        idempotency.set(key, { params: `${url.pathname}?${text}`, answer });
    }
    res.writeHead(answer.status, { "content-type": "application/json", "request-id": newId("req") });
    res.end(JSON.stringify(answer.body));
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      res.writeHead(500);
      res.end(String(err));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    apiBase: `http://127.0.0.1:${port}`,
    secretKey: "sk_test_fake",
    publishableKey: "pk_test_fake",
    webhookSecret: "whsec_fake_0123456789",
    requests,
    succeededCharges,
    setupIntent: (id: string) => setupIntents.get(id),
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
    /** A signed event as Stripe sends it (its SDK's own test helper signs it). */
    signedEvent(type: string, object: Json, { id = newId("evt"), timestamp }: { id?: string; timestamp?: number } = {}) {
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
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
