// The checkout page's form: the customer's data, read here and checked by the use-case both doors
// share (server/commerce/start-payment.ts, with shared/checkout-rules.server.ts's rules), and
// the page's own card step: the sandbox's card fields, Stripe's card widget.
import { z } from "zod";
import { cardDigits, isCardNumber, isExpired, parseCardExpiry } from "../../shared/payment-cards.ts";
import { CHECKOUT_MESSAGES as M } from "../../shared/checkout-messages.ts";
import { customerShape, text, withProblems, type Problem } from "../../shared/checkout-rules.server.ts";
import type { CardStepCheck, FieldErrors } from "../../server/commerce/start-payment.ts";
import { secret } from "./form-reply.server";

/** The sandbox's card form: never echoed back (the number and the code), never stored. */
const cardShape = {
  cc_name: text(),
  cc_number: secret(z.string().max(40).optional()),
  cc_exp: text(10),
  cc_csc: secret(z.string().max(10).optional()),
};

type CardValues = z.output<z.ZodObject<typeof cardShape>>;

function cardProblems(v: CardValues, now: Date): Problem[] {
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

/** 'Applica' of the coupon box: a code that is not one finds no coupon; one longer than any is cut. */
export const couponSchema = z.object({
  couponcode: z
    .string()
    .optional()
    .transform((code) => (code ?? "").slice(0, 100)),
});

/**
 * The whole checkout form, as 'Completa l'acquisto' posts it while the order is `new`: read and
 * bounded here; the customer's data is checked by the use-case (the API's rules), the card below.
 */
export const checkoutFormSchema = z.object({ ...customerShape, ...cardShape });

const fieldErrorsOf = (problems: Problem[]): FieldErrors => {
  const errors: FieldErrors = {};
  for (const { field, message } of problems) errors[field] ??= message;
  return errors;
};

/**
 * The page's card step, checked once the customer's data is right (the spec's order ends with
 * it): the sandbox's card fields, then the card widget that is not ready.
 */
export function cardStepCheck(
  form: z.output<typeof checkoutFormSchema>,
  { sandboxCard, now, widgetProblem }: { sandboxCard: boolean; now: Date; widgetProblem: string | null },
): CardStepCheck {
  return (customer) => {
    const problems = sandboxCard && customer.paymenthub === "card" ? cardProblems(form, now) : [];
    if (problems.length > 0) return { fieldErrors: fieldErrorsOf(problems) };
    return widgetProblem ? { message: widgetProblem } : null;
  };
}

/** Only the card, for a card step that waits for another card (the order's data is written). */
export function cardSchema(now: Date) {
  return z.object(cardShape).superRefine(withProblems((v: CardValues) => cardProblems(v, now)));
}
