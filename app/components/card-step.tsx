// The card fields of a card step (the checkout, the subscription's card update): the sandbox's
// own card form; or Stripe's widget, loaded once the page is hydrated (components/
// stripe-card-panel.tsx, its own chunk); or, before hydration and without JavaScript, a note that
// the card is taken on Stripe's hosted page after the form is sent.
import { lazy, Suspense } from "react";
import type { ReplyView } from "#app/lib/form-reply.ts";
import type { CardWidget } from "#app/lib/card-widget.ts";
import { useHydrated } from "#app/lib/use-hydrated.ts";
import { CHECKOUT_MESSAGES as M } from "#shared/checkout-messages.ts";
import { TextField } from "./form-fields";

type Reply = ReplyView<string>;

const LazyStripeCardPanel = lazy(() => import("./stripe-card-panel"));

export function CardStepFields({
  sandbox,
  publishableKey,
  onWidget,
  reply,
  disabled = false,
  hostedNote,
}: {
  sandbox: boolean;
  publishableKey: string | null;
  onWidget: (widget: CardWidget | null) => void;
  reply: Reply;
  disabled?: boolean;
  /** What the page says of Stripe's hosted page, where the card goes without JavaScript. */
  hostedNote: string;
}) {
  const hydrated = useHydrated();
  if (sandbox) return <SandboxCardFields reply={reply} disabled={disabled} />;
  if (!publishableKey) return null;
  if (!hydrated) return <p>{hostedNote}</p>;
  return (
    <Suspense fallback={<p className="text-muted">{M.cardWidgetLoading}</p>}>
      <LazyStripeCardPanel publishableKey={publishableKey} onWidget={onWidget} />
    </Suspense>
  );
}

/**
 * The sandbox's card form: the embedded gateway's test cards, posted with the page's form. With
 * JavaScript a field keeps what the customer typed across the server's answers (the number and
 * the code never come back from it), unless the server refused that field: a new key then.
 */
function SandboxCardFields({ reply, disabled }: { reply: Reply; disabled: boolean }) {
  return (
    <fieldset disabled={disabled} className="space-y-4">
      <legend className="sr-only">Dati della carta</legend>
      <p className="rounded-md bg-gold/20 p-3">{M.sandboxCards}</p>
      <CardField reply={reply} name="cc_name" label="Titolare della carta" autoComplete="cc-name" />
      <CardField
        reply={reply}
        name="cc_number"
        label="Numero della carta"
        inputMode="numeric"
        autoComplete="cc-number"
        maxLength={23}
      />
      <div className="grid grid-cols-2 gap-4">
        <CardField reply={reply} name="cc_exp" label="Scadenza (MM/AA)" placeholder="MM/AA" autoComplete="cc-exp" maxLength={7} />
        <CardField
          reply={reply}
          name="cc_csc"
          label="Codice di sicurezza (CVC)"
          inputMode="numeric"
          autoComplete="cc-csc"
          maxLength={4}
        />
      </div>
    </fieldset>
  );
}

type CardFieldProps = Omit<Parameters<typeof TextField>[0], "name" | "error" | "defaultValue"> & {
  reply: Reply;
  name: "cc_name" | "cc_number" | "cc_exp" | "cc_csc";
};

/** A field of the sandbox's card form, keyed by the server's refusal of it: a new refusal remounts it with the server's value. */
function CardField({ reply, name, ...input }: CardFieldProps) {
  return <TextField key={reply.error(name) ?? ""} {...input} {...reply.field(name)} />;
}
