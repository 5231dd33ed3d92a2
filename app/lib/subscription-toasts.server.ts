// What a month's charge came to, as the toast after 'Paga ora' or a card update says it.
import type { MonthOutcome } from "#server/commerce/subscription-charging.ts";
import { SUBSCRIPTION_MESSAGES as M } from "#shared/subscription-messages.ts";
import type { Toast } from "./toast.server";

export function paymentToast(outcome: MonthOutcome | null): Toast {
  switch (outcome?.state) {
    case "paid":
      return { type: "success", title: M.paid, message: M.paidText };
    case "pending":
    case "requires_action":
      return { type: "info", title: M.paymentPending, message: M.paymentPendingText };
    default:
      return { type: "error", title: M.paymentFailed, message: outcome?.errorMessage ?? undefined };
  }
}
