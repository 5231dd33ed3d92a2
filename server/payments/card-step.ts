// The card step, wherever a card is taken (the checkout, the subscription's card update): the
// gateway's side of a setup the page's own service has started (payments.start,
// subscriptions.startCardUpdate). How the card is taken depends on the gateway and the browser:
//   - Stripe with JavaScript: Stripe.js confirms the setup in the page (its client secret), then
//     returns to the page with ?setup_intent=…&redirect_status=….
//   - Stripe without JavaScript: Stripe's hosted card page, back through the page's hosted return
//     with ?session_id=… (read from Stripe, never trusted from the address).
//   - The sandbox (no keys): the card number posted with the form; a test card that asks for
//     3-D Secure goes to the sandbox's authentication page, which returns as Stripe.js does.
// `begin` answers what the page does next; `readReturn` tells what the page's address carries.
import { cardStepReturnPath, sandboxSetupAuthenticationPath } from "#shared/links.ts";
import type { Logger } from "#server/logger.ts";
import type { createSandboxGateway } from "./sandbox-gateway.ts";
import type { createStripeCardStep } from "./stripe-card-step.ts";

type Sandbox = Pick<ReturnType<typeof createSandboxGateway>, "confirmCard">;
type StripeCardStep = Pick<
  ReturnType<typeof createStripeCardStep>,
  "publishableKey" | "clientSecret" | "hostedPage" | "hostedSetup"
>;

/** What the page does after 'Completa l'acquisto' / 'Salva la carta'. */
export type CardStepStart =
  /** Stripe.js confirms the setup in the page and leaves for `returnUrl`. */
  | { kind: "in_page"; clientSecret: string; returnUrl: string }
  /** Stripe's hosted page, the sandbox's 3-D Secure page, or the page's return. */
  | { kind: "redirect"; to: string }
  /** The card was refused (the sandbox; Stripe.js refuses in the browser): the gateway's message. */
  | { kind: "refused"; message: string | null; returnTo: string }
  /** The gateway could not open the step (logged): nothing was charged, the customer may try again. */
  | { kind: "unavailable" };

/** What a page's address says of a card step that came back to it. */
export type CardStepReturn =
  | { kind: "none" }
  /** Stripe.js's or the sandbox's return: the setup, and the status the address claims (a hint). */
  | { kind: "setup"; setupId: string; redirectStatus: string }
  /** Stripe's hosted page: the customer's completed session, its setup and our metadata. */
  | { kind: "hosted"; setupId: string; metadata: Record<string, string> }
  /** A session that is not this customer's, not complete, or not one at all. */
  | { kind: "invalid" };

export function createCardStep({
  sandbox,
  stripe,
  settleSetup,
  publicOrigin,
  log,
}: {
  sandbox: Sandbox | null;
  stripe: StripeCardStep | null;
  /** What Stripe's setup_intent.succeeded webhook does: settles a checkout's attempt (a card update's setup: nothing). */
  settleSetup: (setupId: string) => Promise<{ state: string }>;
  publicOrigin: string;
  log: Logger;
}) {
  /**
   * A sandbox setup the card (or its 3-D Secure page) completed: settled now, as Stripe's webhook
   * settles its setups, so that the return shows the result; a charge the bank declined returns
   * as failed, so that the address does not claim otherwise.
   */
  async function settledReturn(page: string, setupId: string): Promise<string> {
    const settled = await settleSetup(setupId);
    return cardStepReturnPath(page, setupId, settled.state === "failed" ? "failed" : "succeeded");
  }

  return {
    /** Stripe.js's key (public by design); null with the sandbox. */
    publishableKey: stripe?.publishableKey ?? null,
    /** Whether the card is taken by the sandbox, in the page's own form (no real charge). */
    sandbox: sandbox !== null,

    /**
     * The card step of a started setup. `page` is where it returns (the checkout, the card
     * update); `hostedReturn` where Stripe's hosted page comes back (it appends the session);
     * `inPage` whether Stripe.js is in the page; `cardNumber` the sandbox's card field.
     */
    async begin(
      setupId: string,
      {
        page,
        hostedReturn = page,
        inPage,
        cardNumber,
      }: { page: string; hostedReturn?: string; inPage: boolean; cardNumber: string },
    ): Promise<CardStepStart> {
      if (stripe) {
        try {
          if (inPage)
            return { kind: "in_page", clientSecret: await stripe.clientSecret(setupId), returnUrl: `${publicOrigin}${page}` };
          const separator = hostedReturn.includes("?") ? "&" : "?";
          const to = await stripe.hostedPage(setupId, {
            successUrl: `${publicOrigin}${hostedReturn}${separator}session_id={CHECKOUT_SESSION_ID}`,
            cancelUrl: `${publicOrigin}${page}`,
          });
          return { kind: "redirect", to };
        } catch (err) {
          log.error({ err, setupId }, "stripe's card step could not be opened");
          return { kind: "unavailable" };
        }
      }
      if (!sandbox) return { kind: "unavailable" };
      const card = await sandbox.confirmCard(setupId, cardNumber);
      switch (card.status) {
        case "requires_action":
          return { kind: "redirect", to: sandboxSetupAuthenticationPath(setupId) };
        case "succeeded":
          return { kind: "redirect", to: await settledReturn(page, setupId) };
        case "requires_payment_method":
          return { kind: "refused", message: card.errorMessage, returnTo: cardStepReturnPath(page, setupId, "failed") };
        default:
          // Not waiting for a card any more: the page shows where it stands.
          return { kind: "redirect", to: page };
      }
    },

    settledReturn,

    /** What the page's address carries back from a card step (a hosted page's session is read from Stripe). */
    async readReturn(userId: string, query: URLSearchParams): Promise<CardStepReturn> {
      const sessionId = query.get("session_id");
      if (sessionId !== null) {
        const hosted = stripe ? await stripe.hostedSetup(userId, sessionId) : null;
        return hosted ? { kind: "hosted", setupId: hosted.id, metadata: hosted.metadata } : { kind: "invalid" };
      }
      const setupId = query.get("setup_intent");
      return setupId ? { kind: "setup", setupId, redirectStatus: query.get("redirect_status") ?? "" } : { kind: "none" };
    },
  };
}

export type CardStep = ReturnType<typeof createCardStep>;
