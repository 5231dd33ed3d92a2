// The checkout page's form: the customer's data, read here and checked by the use-case both doors
// share (server/commerce/start-payment.ts, with shared/checkout-rules.server.ts's rules), and
// the page's own card step: the sandbox's card fields (app/lib/card-step.server.ts), Stripe's
// card widget.
import { z } from "zod";
import { customerShape, type Problem } from "#shared/checkout-rules.server.ts";
import type { CardStepCheck, FieldErrors } from "#server/commerce/start-payment.ts";
import { cardProblems, cardShape } from "#app/lib/card-step.server.ts";

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
