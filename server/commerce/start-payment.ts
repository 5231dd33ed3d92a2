// Start a payment: the one home of the use-case both doors serve, the checkout page's 'Completa
// l'acquisto' and the API's checkpaymenthub with a body. It checks where the order stands, reads
// the customer's data (spec §3's fields) with the checkout's rules (spec §5), and starts the
// card payment. The doors show its refusals from one table, START_PAYMENT_REFUSALS
// (shared/checkout-messages.ts), so both say the same thing with the same status.
import { checkoutDetails, customerSchema, type CustomerValues } from "#shared/checkout-rules.server.ts";
import { CHECKOUT_MESSAGES as M } from "#shared/checkout-messages.ts";
import { italianIssue } from "#server/lib/italian-issues.ts";
import type { CheckoutView } from "./checkout.ts";
import type { createOrderPayments } from "./order-payments.ts";

/** A refusal both doors show from the shared table (the invalid fields are the form's own messages). */
export type StartPaymentRefusal = "in_progress" | "paid" | "closed" | "coupon_changed" | "rate_limited" | "edu_active";

/** The fields at fault, each with its message, in the spec's order (the first is the dialog's). */
export type FieldErrors = Record<string, string>;

export type StartPaymentOutcome =
  | { ok: true; setupId: string; clientSecret: string }
  | { ok: false; reason: "invalid"; fieldErrors: FieldErrors; message?: string }
  | { ok: false; reason: Exclude<StartPaymentRefusal, "rate_limited"> }
  | { ok: false; reason: "rate_limited"; retryAfterSeconds: number };

/** A door's own check of its card step, once the customer's data is right: what is wrong, or null. */
export type CardStepCheck = (data: CustomerValues) => { fieldErrors?: FieldErrors; message?: string } | null;

export type StartPaymentInput = {
  userId: string;
  /** The customer's order, as the door read it (another's, or none, is the door's not-found). */
  order: Pick<CheckoutView, "id" | "status" | "hasShipment">;
  /** The submitted fields, by §3's names; others are not read. */
  fields: Record<string, unknown>;
  cardStep?: CardStepCheck;
};

export async function startPayment(
  payments: Pick<ReturnType<typeof createOrderPayments>, "start">,
  { userId, order, fields, cardStep }: StartPaymentInput,
): Promise<StartPaymentOutcome> {
  // Where the order stands, before its data: a payment under way is not started again.
  if (order.status === "waitforpayment") return { ok: false, reason: "in_progress" };
  if (order.status === "payed") return { ok: false, reason: "paid" };
  if (order.status !== "new") return { ok: false, reason: "closed" };

  const needsShipment = order.hasShipment;
  const parsed = customerSchema({ needsShipment }).safeParse(fields, { error: italianIssue });
  if (!parsed.success) {
    const fieldErrors: FieldErrors = {};
    for (const issue of parsed.error.issues) fieldErrors[String(issue.path[0] ?? "")] ??= issue.message;
    return { ok: false, reason: "invalid", fieldErrors };
  }
  const cardProblem = cardStep?.(parsed.data);
  if (cardProblem)
    return { ok: false, reason: "invalid", fieldErrors: cardProblem.fieldErrors ?? {}, message: cardProblem.message };

  const started = await payments.start(userId, order.id, checkoutDetails(parsed.data, { needsShipment }));
  if (started.ok) return started;
  switch (started.reason) {
    case "rate_limited":
      return started;
    case "coupon_changed":
    case "edu_active":
      return { ok: false, reason: started.reason };
    case "not_card":
      // The rules refuse any other hub first; kept for a hub they would let through.
      return { ok: false, reason: "invalid", fieldErrors: { paymenthub: M.paymentHubUnsupported } };
    case "not_new":
      // Another submit moved the order while this one was at it: its payment is under way.
      return { ok: false, reason: "in_progress" };
    case "not_found":
      // Gone meanwhile (read a moment ago by the door): nothing can be paid.
      return { ok: false, reason: "closed" };
  }
}
