// A stand-in of Stripe.js for the browser tests, served by the fake Stripe (fake-stripe.ts) in
// place of https://js.stripe.com/<train>/stripe.js. It is what @stripe/react-stripe-js checks for
// (elements, createToken, createPaymentMethod, confirmCardPayment) and what the portal calls:
// elements({ mode: 'setup', … }).create('payment') with mount/on/off/update/destroy, getElement,
// submit, update, confirmSetup, handleNextAction. The card fields are plain inputs in the page
// (Stripe's are in its frames) without names, so nothing of the card goes with the portal's form.
// Like Stripe.js it talks to https://api.stripe.com with the publishable key and the intent's
// client secret, and a test card that asks for 3-D Secure shows a bank's page ('Autorizza',
// 'Nega') in a modal dialog.
//
// The function is sent to the browser as its source text (`fakeStripeJsSource`): it must not use
// anything from outside itself.

/** Stripe's test card numbers the browser tests type, and the fake API's payment method for each. */
export type BrowserCards = Record<string, string>;

function installFakeStripe(cards: BrowserCards, api: string): void {
  type Listener = (event?: unknown) => void;
  type Json = Record<string, unknown>;
  type StripeError = { type: string; message: string; code?: string };
  type FakeElements = ReturnType<typeof createElements>;

  const digits = (value: string) => value.replace(/\D/g, "");

  async function call(method: "GET" | "POST", path: string, params: Record<string, string>) {
    const query = new URLSearchParams(params);
    const response =
      method === "GET"
        ? await fetch(`${api}${path}?${query}`)
        : await fetch(`${api}${path}`, {
            method: "POST",
            headers: { "content-type": "application/x-www-form-urlencoded" },
            body: query,
          });
    const body = (await response.json()) as Json;
    return { ok: response.ok, body, error: (body.error ?? null) as StripeError | null };
  }

  /** The bank's authentication page, as Stripe.js shows it: a modal dialog. */
  function authenticate(): Promise<boolean> {
    return new Promise((resolve) => {
      const dialog = document.createElement("dialog");
      dialog.setAttribute("aria-labelledby", "fake-stripe-3ds-title");
      const title = document.createElement("h2");
      title.id = "fake-stripe-3ds-title";
      title.textContent = "Autenticazione 3-D Secure";
      const text = document.createElement("p");
      text.textContent = "La tua banca chiede di confermare l'operazione (Stripe di prova).";
      dialog.append(title, text);
      for (const [label, approve] of [
        ["Autorizza", true],
        ["Nega", false],
      ] as const) {
        const button = document.createElement("button");
        button.type = "button";
        button.textContent = label;
        button.addEventListener("click", () => {
          dialog.close();
          dialog.remove();
          resolve(approve);
        });
        dialog.append(button);
      }
      document.body.append(dialog);
      dialog.showModal();
    });
  }

  function createElements() {
    const listeners = new Map<string, Set<Listener>>();
    let container: HTMLElement | null = null;
    let submitted = false;
    const emit = (name: string, event?: unknown) => {
      for (const listener of listeners.get(name) ?? []) listener(event);
    };
    const field = (name: string) => container?.querySelector<HTMLInputElement>(`[data-fake-stripe="${name}"]`)?.value ?? "";

    const element = {
      mount(target: HTMLElement | string) {
        container = typeof target === "string" ? document.querySelector<HTMLElement>(target) : target;
        if (!container) throw new Error("fake Stripe.js: nowhere to mount the Payment Element");
        const parts: [string, string, string][] = [
          ["number", "Numero carta", "cc-number"],
          ["expiry", "Data di scadenza", "cc-exp"],
          ["cvc", "Codice di sicurezza", "cc-csc"],
        ];
        for (const [name, label, autocomplete] of parts) {
          const wrapper = document.createElement("label");
          wrapper.className = "field-label block";
          wrapper.append(label);
          const input = document.createElement("input");
          input.dataset.fakeStripe = name;
          input.setAttribute("autocomplete", autocomplete);
          input.className = "field-input mt-1 block w-full";
          input.addEventListener("input", () => emit("change", { elementType: "payment", complete: false }));
          wrapper.append(input);
          container.append(wrapper);
        }
        setTimeout(() => emit("ready", { elementType: "payment" }), 0);
      },
      on(name: string, listener: Listener) {
        if (!listeners.has(name)) listeners.set(name, new Set());
        listeners.get(name)!.add(listener);
        return element;
      },
      off(name: string, listener: Listener) {
        listeners.get(name)?.delete(listener);
        return element;
      },
      update() {
        return element;
      },
      unmount() {
        container?.replaceChildren();
        container = null;
      },
      destroy() {
        element.unmount();
        listeners.clear();
      },
      focus() {},
      blur() {},
      clear() {},
      collapse() {},
    };

    return {
      create(type: string) {
        if (type !== "payment") throw new Error(`fake Stripe.js: no ${type} element`);
        return element;
      },
      getElement(type: string) {
        return type === "payment" && container ? element : null;
      },
      update() {},
      async fetchUpdates() {
        return {};
      },
      /** elements.submit(): the fields' own checks, in Stripe's words. */
      async submit(): Promise<{ error?: StripeError }> {
        const number = digits(field("number"));
        const problem =
          number === ""
            ? "Il numero della carta è incompleto."
            : !cards[number]
              ? "Il numero della carta non è valido."
              : field("expiry").trim() === ""
                ? "La data di scadenza della carta è incompleta."
                : field("cvc").trim() === ""
                  ? "Il codice di sicurezza della carta è incompleto."
                  : null;
        submitted = problem === null;
        return problem ? { error: { type: "validation_error", message: problem } } : {};
      },
      /** What confirmSetup reads: the card's payment method, once submit() passed. */
      method(): string | null {
        return submitted ? (cards[digits(field("number"))] ?? null) : null;
      },
    };
  }

  const idOf = (clientSecret: string) => clientSecret.split("_secret_")[0] ?? "";

  function Stripe(key: string) {
    const stripe = {
      elements: (_options?: unknown) => createElements(),
      async createToken() {
        return { error: { type: "invalid_request_error", message: "fake Stripe.js: not used" } };
      },
      async createPaymentMethod() {
        return { error: { type: "invalid_request_error", message: "fake Stripe.js: not used" } };
      },
      async confirmCardPayment() {
        return { error: { type: "invalid_request_error", message: "fake Stripe.js: not used" } };
      },
      registerAppInfo() {},
      _registerWrapper() {},

      async retrieveSetupIntent(clientSecret: string) {
        const answer = await call("GET", `/v1/setup_intents/${idOf(clientSecret)}`, { key, client_secret: clientSecret });
        return answer.error ? { error: answer.error } : { setupIntent: answer.body };
      },

      async confirmSetup({
        elements,
        clientSecret,
        confirmParams,
      }: {
        elements: FakeElements;
        clientSecret: string;
        confirmParams: { return_url: string };
      }): Promise<{ error: StripeError }> {
        const method = elements.method();
        if (!method) {
          return {
            error: {
              type: "invalid_request_error",
              code: "integration_error",
              message: "elements.submit() must be called before stripe.confirmSetup().",
            },
          };
        }
        const id = idOf(clientSecret);
        const auth = { key, client_secret: clientSecret };
        const confirmed = await call("POST", `/v1/setup_intents/${id}/confirm`, {
          ...auth,
          payment_method: method,
          return_url: confirmParams.return_url,
        });
        if (confirmed.error) return { error: confirmed.error };
        let intent = confirmed.body;
        if (intent.status === "requires_action") {
          const approve = await authenticate();
          const answered = await call("POST", `/v1/setup_intents/${id}/authenticate`, {
            ...auth,
            result: approve ? "approve" : "deny",
          });
          if (answered.error) return { error: answered.error };
          intent = answered.body;
          if (intent.status !== "succeeded") return { error: intent.last_setup_error as StripeError };
        }
        const back = new URL(confirmParams.return_url);
        back.searchParams.set("setup_intent", id);
        back.searchParams.set("setup_intent_client_secret", clientSecret);
        back.searchParams.set("redirect_status", intent.status === "succeeded" ? "succeeded" : "failed");
        window.location.assign(back.href);
        return new Promise<never>(() => {});
      },

      async handleNextAction({ clientSecret }: { clientSecret: string }) {
        const id = idOf(clientSecret);
        const kind = id.startsWith("pi_") ? "payment_intents" : "setup_intents";
        const auth = { key, client_secret: clientSecret };
        const current = await call("GET", `/v1/${kind}/${id}`, auth);
        if (current.error) return { error: current.error };
        if (current.body.status !== "requires_action") {
          return { error: { type: "invalid_request_error", message: `fake Stripe.js: ${id} waits for nothing` } };
        }
        const approve = await authenticate();
        const answered = await call("POST", `/v1/${kind}/${id}/authenticate`, { ...auth, result: approve ? "approve" : "deny" });
        if (answered.error) return { error: answered.error };
        const intent = answered.body;
        if (intent.status === "succeeded")
          return kind === "payment_intents" ? { paymentIntent: intent } : { setupIntent: intent };
        return { error: (intent.last_payment_error ?? intent.last_setup_error) as StripeError };
      },
    };
    return stripe;
  }
  // What @stripe/stripe-js compares with its release train.
  Object.assign(Stripe, { version: "endive" });
  Object.assign(window, { Stripe });
}

/** The script the fake serves at js.stripe.com's address. */
export function fakeStripeJsSource(cards: BrowserCards, api = "https://api.stripe.com"): string {
  return `(${installFakeStripe.toString()})(${JSON.stringify(cards)}, ${JSON.stringify(api)});\n`;
}
