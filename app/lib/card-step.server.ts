// What a card step's form posts (the checkout, the subscription's card update; the card step
// itself is server/payments/card-step.ts): whether Stripe.js is in the page and where its widget
// stands, and the sandbox's card fields.
import { z } from "zod";
import { cardDigits, isCardNumber, isExpired, parseCardExpiry } from "#shared/payment-cards.ts";
import { CHECKOUT_MESSAGES as M } from "#shared/checkout-messages.ts";
import { text, withProblems, type Problem } from "#shared/checkout-rules.server.ts";
import type { CardStep as CardStepService } from "#server/payments/card-step.ts";
import { widgetNotReadyMessage } from "./card-widget";
import { secret } from "./form-reply.server";

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

/** The sandbox's card form: never echoed back (the number and the code), never stored. */
export const cardShape = {
  cc_name: text(),
  cc_number: secret(z.string().max(40).optional()),
  cc_exp: text(10),
  cc_csc: secret(z.string().max(10).optional()),
};

type CardValues = z.output<z.ZodObject<typeof cardShape>>;

/** What is wrong with the sandbox's card fields, in the order the page says it (spec §5). */
export function cardProblems(v: CardValues, now: Date): Problem[] {
  const problems: Problem[] = [];
  if (!v.cc_name) problems.push({ field: "cc_name", message: M.cardNameMissing });
  const digits = cardDigits(v.cc_number ?? "");
  if (digits === "") problems.push({ field: "cc_number", message: M.cardNumberMissing });
  else if (!isCardNumber(digits)) problems.push({ field: "cc_number", message: M.cardNumberInvalid });
  const expiry = parseCardExpiry(v.cc_exp ?? "");
  if (!v.cc_exp) problems.push({ field: "cc_exp", message: M.cardExpiryMissing });
  else if (!expiry) problems.push({ field: "cc_exp", message: M.cardExpiryInvalid });
  else if (isExpired(expiry, now)) problems.push({ field: "cc_exp", message: M.cardExpired });
  const csc = (v.cc_csc ?? "").trim();
  if (csc === "") problems.push({ field: "cc_csc", message: M.cardCscMissing });
  else if (!/^\d{3,4}$/.test(csc)) problems.push({ field: "cc_csc", message: M.cardCscInvalid });
  return problems;
}

/**
 * Only the sandbox's card: the subscription's card update, and a checkout whose card step waits
 * for another card (the order's data is written).
 */
export function cardSchema(now: Date) {
  return z.object(cardShape).superRefine(withProblems((v: CardValues) => cardProblems(v, now)));
}
