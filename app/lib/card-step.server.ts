// What a card step's form posts (the checkout, the subscription's card update; the card step
// itself is server/payments/card-step.ts): whether Stripe.js is in the page and where its widget
// stands, and the sandbox's card number.
import type { CardStep as CardStepService } from "../../server/payments/card-step";
import { widgetNotReadyMessage } from "./card-widget";

export function readCardStepForm(form: FormData, cardStep: Pick<CardStepService, "publishableKey">) {
  // With JavaScript, Stripe's widget is in the page, and the page tells where it stands.
  const inPage = cardStep.publishableKey !== null && form.get("card_step") === "elements";
  const state = form.get("card_state");
  return {
    inPage,
    /** Spec §5's last checks: the widget is not ready, or failed to load (null: ready, or not in the page). */
    widgetProblem: inPage && state !== "ready" ? widgetNotReadyMessage(state) : null,
    cardNumber: String(form.get("cc_number") ?? ""),
  };
}
