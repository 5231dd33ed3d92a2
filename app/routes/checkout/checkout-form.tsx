// The checkout's form (spec §2, §4, §5): the customer's data, shipment and billing, the payment
// method with the card step, the terms, and 'Completa l'acquisto'; the summary beside it. While
// the order waits for its card step the data are locked (as they were sent, terms included) and
// only the card can be given again, or the payment given up.
import { Fragment, useState } from "react";
import { Form, useNavigation } from "react-router";
import { CHECKOUT_MESSAGES as M } from "#shared/checkout-messages.ts";
import { CardStepFields } from "#app/components/card-step.tsx";
import { CheckboxField, TextField } from "#app/components/form-fields.tsx";
import { SandboxNotice } from "#app/components/sandbox-notice.tsx";
import { readReply, type FormReply } from "#app/lib/form-reply.ts";
import { useCardStep } from "#app/lib/use-card-step.ts";
import type { loader } from "./route";
import { ErrorDialog, type Notice } from "./error-dialog";
import { AddressFields, BillingFields, PaymentMethods } from "./form-parts";
import { CheckoutSummary } from "./order-summary";
import { usePaymentVerification, VerifyingPayment } from "./payment-verification";

type CheckoutData = Awaited<ReturnType<typeof loader>>;

/** The payment checks and resets answer fetchers, and Stripe's card step the card widget: the rest is a form's reply. */
function isFormReply(actionData: unknown): actionData is FormReply<string> {
  return (
    typeof actionData === "object" &&
    actionData !== null &&
    !("check" in actionData || "reset" in actionData || "cardStep" in actionData)
  );
}

export function CheckoutForm({ data: loaded, actionData }: { data: CheckoutData; actionData: unknown }) {
  const { order, sandbox, stripeKey } = loaded;
  // The payment checks and resets answer fetchers, and Stripe's card step the page's card widget;
  // the rest of the page's action data is a form's reply.
  const reply = readReply<string>(isFormReply(actionData) ? actionData : undefined);
  const editable = order.status === "new";
  const attempt = order.attempt;
  const waitsForCard = order.status === "waitforpayment" && attempt?.status === "awaiting_customer" && !loaded.cardStepDone;
  const verifying = order.status === "waitforpayment" && !waitsForCard;
  // An attempt whose card step never began (its instance died) can be given up as one waiting for a card.
  const canGiveUp = waitsForCard || (order.status === "waitforpayment" && attempt?.status === "created");
  const clientNotice = usePaymentVerification(loaded);
  const card = useCardStep(stripeKey, actionData);
  const cardNotice = card.problem && { title: M.errorTitle, text: card.problem.text, seq: card.problem.seq };
  const replyNotice = reply.alert ? { title: reply.alert.title, text: reply.alert.text ?? "" } : null;
  const notice: Notice | null = clientNotice ?? cardNotice ?? replyNotice ?? loaded.notice;
  // Each refusal shows its dialog again, one the same as the last too (a new key).
  const replySeq = useReplySeq(isFormReply(actionData) ? actionData : undefined);
  // Spec §4: a second submit is blocked while one is in progress.
  const submitting = useNavigation().state !== "idle" || card.busy;
  // What was typed comes back with a refusal: the fields take it (a new key). The card's fields
  // keep what was typed (CardStepFields), and the card widget stays.
  const typed = JSON.stringify(reply.values ?? null);
  const cardFields = (
    <CardStepFields
      sandbox={sandbox}
      publishableKey={stripeKey}
      onWidget={card.onWidget}
      reply={reply}
      hostedNote={M.cardOnStripePage}
    />
  );

  return (
    <>
      {sandbox && <SandboxNotice />}
      <h1 className="font-serif text-3xl font-bold text-brand">Checkout</h1>
      <p className="mt-1 text-sm text-muted">Ordine n° {order.orderCode}</p>
      {notice && (
        <ErrorDialog key={`${notice.text}${notice.seq ?? ""}${notice === replyNotice ? replySeq : ""}`} notice={notice} />
      )}
      {verifying && <VerifyingPayment />}

      <div className="mt-6 grid gap-8 lg:grid-cols-[1fr_22rem]">
        {/* Before the form in the page as on a phone's screen (order-summary.tsx). */}
        <CheckoutSummary order={order} editable={editable} />
        <Form
          method="post"
          id="checkout"
          noValidate
          className="space-y-6 lg:col-start-1 lg:row-start-1"
          onSubmit={(event) => {
            if (submitting) event.preventDefault();
            else card.onSubmit(event);
          }}
        >
          <fieldset disabled={!editable} className="space-y-6">
            <Fragment key={`data ${typed}`}>
              <fieldset className="card grid gap-4 p-5 sm:grid-cols-2">
                <legend className="px-1 font-serif text-lg font-bold text-brand">I tuoi dati</legend>
                <TextField
                  label="Nome"
                  autoComplete="given-name"
                  {...reply.field("customer_firstname", order.customer.firstname)}
                />
                <TextField
                  label="Cognome"
                  autoComplete="family-name"
                  {...reply.field("customer_lastname", order.customer.lastname)}
                />
                <div className="sm:col-span-2">
                  <TextField
                    label="Email"
                    type="email"
                    autoComplete="email"
                    {...reply.field("customer_email", order.customer.email)}
                  />
                </div>
              </fieldset>

              {order.hasShipment && (
                <fieldset className="card space-y-4 p-5">
                  <legend className="px-1 font-serif text-lg font-bold text-brand">Spedizione</legend>
                  <AddressFields prefix="shipment" section="shipping" address={order.shipment} reply={reply} />
                  <CheckboxField
                    name="shipment_save"
                    defaultChecked={reply.values ? reply.value("shipment_save") !== undefined : order.shipmentSave}
                  >
                    Salva l'indirizzo per i prossimi acquisti
                  </CheckboxField>
                </fieldset>
              )}

              <BillingFields
                billing={order.billing}
                save={order.billingSave}
                hasShipment={order.hasShipment}
                customer={order.customer}
                reply={reply}
              />
            </Fragment>

            <PaymentMethods
              hub={reply.value("paymenthub") ?? order.paymentHub ?? "card"}
              resetKey={typed}
              orderCode={order.orderCode}
              amountCents={order.totalCents + order.shipmentPriceCents}
              error={reply.error("paymenthub")}
              // While the card step waits for another card, its fields are below, outside the locked data.
              cardPanel={waitsForCard ? null : cardFields}
            />

            <div className="card space-y-3 p-5" key={`terms ${typed}`}>
              <CheckboxField
                name="terms_sales"
                defaultChecked={reply.values ? reply.value("terms_sales") !== undefined : !editable}
                error={reply.error("terms_sales")}
              >
                Ho letto e accetto le{" "}
                <a href="https://www.novalexeditore.it/condizioni-di-vendita" className="link">
                  condizioni di vendita
                </a>
              </CheckboxField>
              <CheckboxField
                name="terms_cancel"
                defaultChecked={reply.values ? reply.value("terms_cancel") !== undefined : !editable}
                error={reply.error("terms_cancel")}
              >
                Ho letto e accetto le condizioni di recesso e cancellazione
              </CheckboxField>
            </div>
          </fieldset>

          {waitsForCard && (
            <div className="card space-y-4 p-5">
              <h2 className="font-serif text-lg font-bold text-brand">Carta di Credito</h2>
              <p className="text-sm">Il pagamento non è stato completato: puoi riprovare con un'altra carta.</p>
              {cardFields}
            </div>
          )}

          {(editable || waitsForCard) && (
            <button
              type="submit"
              name="intent"
              value="pay"
              className="button-primary w-full py-3 text-base"
              aria-disabled={submitting || undefined}
            >
              Completa l'acquisto
            </button>
          )}
        </Form>
      </div>

      {canGiveUp && (
        <Form method="post" className="mt-4">
          <button type="submit" name="intent" value="reset" className="link text-sm">
            Annulla il pagamento e modifica i dati
          </button>
        </Form>
      )}
    </>
  );
}

/** A number that changes with each reply of the page's form (a new object each time). */
function useReplySeq(actionData: unknown): number {
  const [seen, setSeen] = useState({ actionData, seq: 0 });
  // Adjusted while rendering, as React advises for state that follows a prop.
  if (seen.actionData !== actionData) setSeen({ actionData, seq: seen.seq + 1 });
  return seen.actionData === actionData ? seen.seq : seen.seq + 1;
}
