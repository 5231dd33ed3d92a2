import { CHECKOUT_MESSAGES as M } from "#shared/checkout-messages.ts";

/**
 * Said plainly on every page that takes a card while the sandbox gateway runs (docs/payments.md,
 * "Payments"): no money moves, whatever the page seems to confirm.
 */
export function SandboxNotice() {
  return (
    <p role="note" className="mb-4 rounded-md border border-gold bg-gold/20 p-3 text-center font-semibold">
      {M.sandboxNotice}
    </p>
  );
}
