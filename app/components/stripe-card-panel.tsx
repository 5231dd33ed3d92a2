// Stripe's card widget on the pages that take a card (docs/payments.md, "Stripe"). Client
// only: components/card-step.tsx loads this module with React.lazy once the page is hydrated,
// and nothing else imports it, so Stripe's code is in no other page's JavaScript. Stripe.js itself is fetched from
// js.stripe.com only when this module asks for it (`@stripe/stripe-js/pure`).
//
// Deferred intent (Stripe's "collect payment details before creating an Intent"): the Payment
// Element in setup mode, cards only, in Italian; 'Completa l'acquisto' runs elements.submit(),
// then the page's action starts the payment and answers the SetupIntent's client secret, then
// stripe.confirmSetup() returns to the page's address with setup_intent, redirect_status.
import { useEffect, useState } from "react";
import { Elements, PaymentElement, useElements, useStripe } from "@stripe/react-stripe-js";
import { loadStripe } from "@stripe/stripe-js/pure";
import type { Stripe, StripeElementsOptionsMode } from "@stripe/stripe-js";
import type { CardWidget, CardWidgetState } from "#app/lib/card-widget.ts";
import { CHECKOUT_MESSAGES as M } from "#shared/checkout-messages.ts";

/**
 * Stripe.js, once per page (loadStripe itself tries a failed load once more): rejected when it
 * could not be loaded, and then the widget asks for a reload of the page.
 */
let loading: { key: string; stripe: Promise<Stripe | null> } | null = null;

function stripeFor(publishableKey: string): Promise<Stripe | null> {
  if (loading?.key !== publishableKey) loading = { key: publishableKey, stripe: loadStripe(publishableKey, { locale: "it" }) };
  return loading.stripe;
}

/** <Elements> takes a promise that does not reject: null while (or because) Stripe.js is not there. */
const settled = new Map<Promise<Stripe | null>, Promise<Stripe | null>>();
function settledStripe(stripe: Promise<Stripe | null>) {
  let quiet = settled.get(stripe);
  if (!quiet) {
    quiet = stripe.catch(() => null);
    settled.set(stripe, quiet);
  }
  return quiet;
}

const ELEMENTS_OPTIONS: StripeElementsOptionsMode = {
  mode: "setup",
  currency: "eur",
  allowedPaymentMethodTypes: ["card"],
  locale: "it",
  appearance: {
    theme: "stripe",
    variables: { colorPrimary: "#0b2545", colorDanger: "#a4243b", fontFamily: "system-ui, sans-serif", borderRadius: "6px" },
  },
};

/**
 * A charge the bank asks the customer to authenticate (3-D Secure after the card step):
 * stripe.handleNextAction. Null when it went through, else the provider's message.
 */
export async function completeNextAction(publishableKey: string, clientSecret: string): Promise<string | null> {
  let stripe: Stripe | null;
  try {
    stripe = await stripeFor(publishableKey);
  } catch {
    return M.cardProviderFailed;
  }
  if (!stripe) return M.cardProviderNotReady;
  const { error } = await stripe.handleNextAction({ clientSecret });
  return error ? (error.message ?? M.cardPaymentFailed) : null;
}

type PanelProps = {
  publishableKey: string;
  /** Told the widget once it is there (null when it goes). */
  onWidget: (widget: CardWidget | null) => void;
};

export default function StripeCardPanel({ publishableKey, onWidget }: PanelProps) {
  const stripe = stripeFor(publishableKey);
  const [provider, setProvider] = useState<{ of: Promise<Stripe | null>; failed: boolean } | null>(null);
  useEffect(() => {
    let live = true;
    stripe.then(
      (loaded) => live && setProvider({ of: stripe, failed: loaded === null }),
      () => live && setProvider({ of: stripe, failed: true }),
    );
    return () => {
      live = false;
    };
  }, [stripe]);
  const failed = provider?.of === stripe && provider.failed;
  return (
    <Elements stripe={settledStripe(stripe)} options={ELEMENTS_OPTIONS}>
      <CardElement providerFailed={failed} onWidget={onWidget} />
    </Elements>
  );
}

function CardElement({ providerFailed, onWidget }: { providerFailed: boolean; onWidget: PanelProps["onWidget"] }) {
  const stripe = useStripe();
  const elements = useElements();
  const [element, setElement] = useState<"loading" | "ready" | "failed">("loading");

  useEffect(() => {
    const state = (): CardWidgetState => {
      if (providerFailed || element === "failed") return "failed";
      if (!stripe || !elements) return "provider_loading";
      return element === "ready" ? "ready" : "element_loading";
    };
    onWidget({
      state,
      async submit() {
        if (!elements) return M.cardProviderNotReady;
        const { error } = await elements.submit();
        return error ? (error.message ?? M.cardElementNotReady) : null;
      },
      async confirm(clientSecret, returnUrl) {
        if (!stripe || !elements) return M.cardProviderNotReady;
        const { error } = await stripe.confirmSetup({ elements, clientSecret, confirmParams: { return_url: returnUrl } });
        return error.message ?? M.paymentCancelled;
      },
    });
    return () => onWidget(null);
  }, [stripe, elements, element, providerFailed, onWidget]);

  if (providerFailed || element === "failed") {
    return (
      <p role="alert" className="field-error">
        {M.cardProviderFailed}
      </p>
    );
  }
  return (
    <div className="space-y-2">
      {element === "loading" && <p className="text-muted">{M.cardWidgetLoading}</p>}
      <PaymentElement
        id="card-element"
        options={{ layout: "tabs" }}
        onReady={() => setElement("ready")}
        onLoadError={() => setElement("failed")}
      />
    </div>
  );
}
