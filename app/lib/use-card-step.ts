// A card step's page with Stripe and JavaScript (the checkout, the subscription's card update):
// the widget's own checks first (elements.submit(), which Stripe wants before any other work),
// then the form goes to the page's action with where the widget stands; the action checks the
// data (the widget's messages last, spec §5), starts the setup and answers its client secret
// (`{ cardStep }`); Stripe.js confirms the card and leaves for the page's return address. What
// Stripe.js refuses (a declined card, a failed check) is the hook's `problem`, and the page is
// revalidated: its card step now waits for another card. With the sandbox, or before hydration,
// the form posts as it is.
import { useCallback, useEffect, useRef, useState } from "react";
import { useRevalidator, useSubmit, type ShouldRevalidateFunctionArgs } from "react-router";
import { CHECKOUT_MESSAGES as M } from "#shared/checkout-messages.ts";
import type { CardStep, CardWidget, CardWidgetState } from "./card-widget";
import { revalidateUnlessNetworkFailed } from "./communication-failure";

/** The action's answer for Stripe.js, if that is what it answered. */
export function cardStepOf(actionData: unknown): CardStep | null {
  return typeof actionData === "object" && actionData !== null && "cardStep" in actionData
    ? (actionData.cardStep as CardStep)
    : null;
}

/** Stripe.js confirms the card with the page as it is: no revalidation would move the widget meanwhile. */
export function shouldRevalidateCardStep(args: ShouldRevalidateFunctionArgs) {
  return cardStepOf(args.actionResult) === null && revalidateUnlessNetworkFailed(args);
}

export type CardStepProblem = { text: string; seq: number };

export function useCardStep(publishableKey: string | null, actionData: unknown) {
  const widget = useRef<CardWidget | null>(null);
  const onWidget = useCallback((next: CardWidget | null) => {
    widget.current = next;
  }, []);
  const submit = useSubmit();
  const revalidator = useRevalidator();
  const [checking, setChecking] = useState(false);
  const [problem, setProblem] = useState<CardStepProblem | null>(null);
  const [settled, setSettled] = useState<CardStep | null>(null);
  const seq = useRef(0);
  const step = cardStepOf(actionData);

  // One confirmation per answer of the action, whatever renders meanwhile.
  const confirming = useRef<CardStep | null>(null);
  useEffect(() => {
    if (!step || confirming.current === step) return;
    confirming.current = step;
    const confirm = widget.current
      ? widget.current.confirm(step.clientSecret, step.returnUrl)
      : Promise.resolve(M.cardElementNotReady);
    void confirm.then((message) => {
      setSettled(step);
      setProblem({ text: message, seq: ++seq.current });
      void revalidator.revalidate();
    });
  }, [step, revalidator]);

  async function submitWithWidget(data: FormData) {
    const current = widget.current;
    const state: CardWidgetState = current?.state() ?? "provider_loading";
    // Another payment method chosen: the server refuses it before anything of the card matters.
    const hub = data.get("paymenthub");
    if (current && state === "ready" && (hub === null || hub === "card")) {
      setChecking(true);
      const refused = await current.submit();
      setChecking(false);
      if (refused) {
        setProblem({ text: refused, seq: ++seq.current });
        return;
      }
    }
    data.set("card_step", "elements");
    data.set("card_state", state);
    await submit(data, { method: "post" });
  }

  return {
    /** Given to the card panel: the widget, once it is there. */
    onWidget,
    /** What Stripe.js refused last (its message), until the next submission. */
    problem,
    /** The widget checks the card, or Stripe.js confirms it: a second submission waits. */
    busy: checking || (step !== null && settled !== step),
    onSubmit(event: React.FormEvent<HTMLFormElement>) {
      if (!publishableKey) return; // The sandbox's card fields go with the form.
      const submitter = (event.nativeEvent as SubmitEvent).submitter;
      event.preventDefault();
      setProblem(null);
      void submitWithWidget(new FormData(event.currentTarget, submitter));
    },
  };
}
