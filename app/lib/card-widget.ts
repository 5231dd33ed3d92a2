// What the checkout page asks of the card widget (Stripe's Payment Element, in the client-only
// module components/stripe-card-panel.tsx, loaded only by the checkout page). Types only, so the
// page's own code carries nothing of Stripe.

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

/** What 'Completa l'acquisto' answers when Stripe.js is to confirm the card step in the page. */
export type CardStep = { clientSecret: string; returnUrl: string };
