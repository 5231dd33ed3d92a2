// What a card step's page asks of the card widget (Stripe's Payment Element, in the client-only
// module components/stripe-card-panel.tsx, loaded only by the pages that take a card). Types and
// the widget's messages only, so the pages' own code carries nothing of Stripe.
import { CHECKOUT_MESSAGES as M } from "#shared/checkout-messages.ts";

/**
 * Where the widget stands. The page posts it with the form, so that the server's checks come
 * first and the widget's three messages after them, as spec §5 orders them.
 */
export type CardWidgetState = "ready" | "provider_loading" | "element_loading" | "failed";

export type CardWidget = {
  state(): CardWidgetState;
  /** The card's own checks (elements.submit()): the provider's message when it refuses, else null. */
  submit(): Promise<string | null>;
  /**
   * Confirms the card step (stripe.confirmSetup): on success the browser leaves for `returnUrl`
   * and this never resolves; otherwise it resolves with the provider's message.
   */
  confirm(clientSecret: string, returnUrl: string): Promise<string>;
};

/** What the page's action answers when Stripe.js is to confirm the card step in the page. */
export type CardStep = { clientSecret: string; returnUrl: string };

/** The card widget's three messages (spec §5: after every other check). */
const WIDGET_MESSAGES: Record<Exclude<CardWidgetState, "ready">, string> = {
  provider_loading: M.cardProviderNotReady,
  element_loading: M.cardElementNotReady,
  failed: M.cardProviderFailed,
};

/** What the customer is told when the form came with the widget not ready (any unknown state: not ready). */
export function widgetNotReadyMessage(state: unknown): string {
  return typeof state === "string" && state in WIDGET_MESSAGES
    ? WIDGET_MESSAGES[state as keyof typeof WIDGET_MESSAGES]
    : M.cardProviderNotReady;
}
