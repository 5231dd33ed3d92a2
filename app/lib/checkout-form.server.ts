// The checkout page's form: the customer's data (shared/checkout-rules.server.ts, the rules the
// API applies too) and, when the sandbox takes the card, its card fields.
import { z } from "zod";
import { cardDigits, isCardNumber, isExpired, parseCardExpiry } from "../../shared/payment-cards.ts";
import { CHECKOUT_MESSAGES as M } from "../../shared/checkout-messages.ts";
import { customerProblems, customerShape, text, withProblems, type Problem } from "../../shared/checkout-rules.server.ts";
import { secret } from "./form-reply.server";

export { checkoutDetails } from "../../shared/checkout-rules.server.ts";

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

/**
 * The whole checkout form, as 'Completa l'acquisto' posts it while the order is `new`; with
 * the sandbox's card fields when the sandbox takes the card.
 */
/** 'Applica' of the coupon box: a code that is not one finds no coupon; one longer than any is cut. */
export const couponSchema = z.object({
  couponcode: z
    .string()
    .optional()
    .transform((code) => (code ?? "").slice(0, 100)),
});

export function checkoutSchema({ needsShipment, sandboxCard, now }: { needsShipment: boolean; sandboxCard: boolean; now: Date }) {
  return z.object({ ...customerShape, ...cardShape }).superRefine(
    withProblems((v) => {
      const problems = customerProblems(v, { needsShipment });
      // The card is checked once the rest is right: the spec's order ends with the card step.
      return problems.length === 0 && sandboxCard && v.paymenthub === "card" ? cardProblems(v, now) : problems;
    }),
  );
}

/** Only the card, for a card step that waits for another card (the order's data is written). */
export function cardSchema(now: Date) {
  return z.object(cardShape).superRefine(withProblems((v: CardValues) => cardProblems(v, now)));
}
