// The checkout's payment being verified (spec §4, §9): the return of the card step, checked.
// With JavaScript the page checks by itself; without, it offers a check and a reload link.
import { useEffect, useRef, useState } from "react";
import { Form, useFetcher, useNavigate, useRevalidator } from "react-router";
import type { SettleResult } from "#server/payments/service.ts";
import { CHECKOUT_MESSAGES as M } from "#shared/checkout-messages.ts";
import type { Notice } from "./error-dialog";

/** Spec §9: a succeeded card step is checked 3 times, 2 000 ms apart. */
const PAYMENT_CHECKS = 3;
const PAYMENT_CHECK_INTERVAL_MS = 2000;
/** Spec §9: a processing card step reloads the page after 1 000 ms. */
const PROCESSING_RELOAD_MS = 1000;

/** What the checkout's loader says of the order and the card step's return. */
type VerificationState = {
  order: { status: string; attempt: { status: string } | null };
  returned: { setupId: string; redirectStatus: string; setupStatus: string } | null;
  stripeKey: string | null;
  cardStepDone: boolean;
};

/** The payment is being verified: a check the customer can ask for, and a plain reload link. */
export function VerifyingPayment() {
  return (
    <div role="status" className="card mt-4 p-5">
      <p className="font-semibold">{M.paymentInProgress}</p>
      <p className="mt-1 text-sm">{M.paymentInProgressNoScript}</p>
      <div className="mt-3 flex flex-wrap gap-3">
        <Form method="post">
          <button type="submit" name="intent" value="check" className="button-outline">
            Verifica il pagamento
          </button>
        </Form>
        <a href="" className="button-outline">
          Aggiorna
        </a>
      </div>
    </div>
  );
}

/**
 * With JavaScript, the return of the card step goes as spec §4 says: succeeded → up to 3 checks
 * 2 s apart, then the paid order, or a reset and 'Card Payment Failed'; processing → a reload
 * after 1 s. A charge the bank asks the customer to authenticate (Stripe) is completed with
 * stripe.handleNextAction, then checked again. Without JavaScript the server has settled what it
 * could before answering, and the page offers a check and a reload link.
 */
export function usePaymentVerification(loaded: VerificationState): Notice | null {
  const [notice, setNotice] = useState<Notice | null>(null);
  const fetcher = useFetcher<{ check?: SettleResult }>();
  const revalidator = useRevalidator();
  const navigate = useNavigate();
  const checks = useRef(0);
  /** The charge's authentication: asked for once per page, and no check while it runs. */
  const authentication = useRef<"none" | "running" | "done">("none");
  const { returned, order, stripeKey, cardStepDone } = loaded;
  const waiting = order.status === "waitforpayment" && (order.attempt?.status !== "awaiting_customer" || cardStepDone);

  useEffect(() => {
    if (!returned || !waiting) return;
    if (returned.setupStatus === "processing") {
      const timer = setTimeout(() => void revalidator.revalidate(), PROCESSING_RELOAD_MS);
      return () => clearTimeout(timer);
    }
    if (returned.setupStatus !== "succeeded" || fetcher.state !== "idle" || authentication.current === "running") return;
    const result = fetcher.data?.check;
    if (result?.state === "requires_action" && authentication.current === "none" && stripeKey) {
      authentication.current = "running";
      const { clientSecret } = result;
      void import("#app/components/stripe-card-panel.tsx")
        .then(({ completeNextAction }) => completeNextAction(stripeKey, clientSecret))
        .catch(() => M.cardProviderFailed)
        .then((problem) => {
          authentication.current = "done";
          // Stripe.js could not ask: the dialog says so. A refused authentication is the charge's
          // answer, which the next check reads ('Card Payment Failed' with the bank's reason).
          if (problem === M.cardProviderFailed || problem === M.cardProviderNotReady)
            setNotice({ title: M.errorTitle, text: problem });
          checks.current = 0;
          fetcher.submit({ intent: "check", mode: "fetch" }, { method: "post" });
        });
      return;
    }
    // Paid: the page shows it.
    if (result?.state === "paid") {
      void revalidator.revalidate();
      return;
    }
    // Ended for good (declined, cancelled): the page shows it with its dialog, and the address
    // no longer claims a succeeded card step.
    if (result && result.state !== "pending" && result.state !== "requires_customer" && result.state !== "requires_action") {
      const failed = new URLSearchParams({ setup_intent: returned.setupId, redirect_status: "failed" });
      void navigate(`?${failed}`, { replace: true, preventScrollReset: true });
      return;
    }
    if (checks.current >= PAYMENT_CHECKS) {
      fetcher.submit({ intent: "reset", mode: "fetch" }, { method: "post" });
      setNotice({ title: M.errorTitle, text: M.cardPaymentFailed });
      return;
    }
    const timer = setTimeout(
      () => {
        checks.current += 1;
        fetcher.submit({ intent: "check", mode: "fetch" }, { method: "post" });
      },
      checks.current === 0 ? 0 : PAYMENT_CHECK_INTERVAL_MS,
    );
    return () => clearTimeout(timer);
  }, [returned, waiting, fetcher, revalidator, navigate, stripeKey]);

  return notice;
}
