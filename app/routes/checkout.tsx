// /checkout/:order (spec §2, §4, §5, §8): the order's owner only (anyone else goes to /). A
// `new` order shows the form; 'Completa l'acquisto' checks it in §5's order (the first message
// in the dialog 'Errore', each beside its field), writes it and starts the card payment. The
// card step returns here with the gateway's parameters (setup_intent, redirect_status), which
// are only hints: the loader reads the setup and the attempt. A paid order shows 'Ordine
// confermato'; a closed one 'Ordine annullato/scaduto o interrotto'.
import { useEffect, useRef, useState } from "react";
import { Form, Link, redirect, useFetcher, useNavigation, useRevalidator } from "react-router";
import type { Route } from "./+types/checkout";
import { servicesContext } from "../../shared/context.ts";
import { checkoutOrderPath, receiptPath } from "../../shared/links.ts";
import type { SettleResult } from "../../server/payments/service";
import { AddressFields, BillingFields, CheckboxField, PaymentMethods, SandboxCardFields } from "../components/checkout-form";
import { CheckoutSummary } from "../components/checkout-summary";
import { requireUser } from "../lib/auth.server";
import { CHECKOUT_MESSAGES as M } from "../lib/checkout-messages";
import { cardSchema, checkoutDetails, checkoutSchema } from "../lib/checkout-form.server";
import { keepFormOnNetworkFailure, revalidateUnlessNetworkFailed } from "../lib/communication-failure";
import { readReply, type FormReply } from "../lib/form-reply";
import { parseForm, refuse } from "../lib/form-reply.server";
import { TextField } from "../components/form-fields";

/** Spec §9: a succeeded card step is checked 3 times, 2 000 ms apart. */
const PAYMENT_CHECKS = 3;
const PAYMENT_CHECK_INTERVAL_MS = 2000;
/** Spec §9: a processing card step reloads the page after 1 000 ms. */
const PROCESSING_RELOAD_MS = 1000;

type Notice = { title: string; text: string; detail?: string | null };

export async function loader({ request, params, context }: Route.LoaderArgs) {
  const { user } = await requireUser(request, context);
  const { checkout, payments } = context.get(servicesContext);
  const order = await checkout.view(user.id, params.order);
  if (!order) throw redirect("/");

  // The card step's return (spec §4): what the dialog says, from the setup and the attempt.
  const url = new URL(request.url);
  const setupId = url.searchParams.get("setup_intent");
  let returned: { redirectStatus: string; setupStatus: string } | null = null;
  let notice: Notice | null = null;
  if (setupId && order.status !== "payed") {
    const setup = await payments.setupState(user.id, order.id, setupId);
    if (setup) {
      returned = { redirectStatus: url.searchParams.get("redirect_status") ?? "", setupStatus: setup.status };
      const attempt = order.attempt?.setupId === setupId ? order.attempt : null;
      if (attempt?.status === "failed") notice = { title: M.errorTitle, text: M.cardPaymentFailed, detail: attempt.errorMessage };
      else if (attempt?.status === "canceled" || setup.status === "canceled")
        notice = { title: M.errorTitle, text: M.cardPaymentCancelled };
      else if (setup.status.startsWith("requires_") && setup.errorMessage)
        notice = { title: M.errorTitle, text: setup.errorMessage };
    }
  }
  return {
    order,
    returned,
    notice,
    sandbox: payments.gatewayName === "sandbox",
  };
}

const INTENTS = ["pay", "coupon-apply", "coupon-remove", "check", "reset"] as const;

export async function action({ request, params, context }: Route.ActionArgs) {
  const { user } = await requireUser(request, context);
  const services = context.get(servicesContext);
  const form = await request.formData();
  const intent = INTENTS.find((i) => i === form.get("intent")) ?? "pay";
  const viaFetcher = form.get("mode") === "fetch";
  const page = checkoutOrderPath(params.order);
  const order = await services.checkout.view(user.id, params.order);
  if (!order) throw redirect("/");

  switch (intent) {
    case "coupon-apply": {
      const code = form.get("couponcode");
      await services.checkout.applyCoupon(user.id, order.id, typeof code === "string" ? code.slice(0, 100) : "");
      throw redirect(page);
    }
    case "coupon-remove":
      await services.checkout.removeCoupon(user.id, order.id);
      throw redirect(page);
    case "check": {
      const result = await services.payments.check(user.id, order.id);
      if (viaFetcher) return { check: result };
      throw redirect(page);
    }
    case "reset":
      await services.payments.reset(user.id, order.id);
      if (viaFetcher) return { reset: true };
      throw redirect(page);
    case "pay":
      return pay();
  }

  async function pay() {
    const { payments, sandbox } = services;
    const now = new Date();
    const refuseWith = (reply: FormReply<string>, status = 400) => {
      const first = Object.values(reply.fieldErrors ?? {})[0];
      return refuse<string>(
        { ...reply, alert: reply.alert ?? { title: M.errorTitle, text: first ?? M.paymentCancelled } },
        status,
      );
    };

    let setupId: string;
    if (order!.status === "new") {
      const schema = checkoutSchema({ needsShipment: order!.hasShipment, sandboxCard: sandbox !== null, now });
      const parsed = await parseForm(form, schema);
      if (!parsed.ok) return refuseWith(parsed.reply);
      const started = await payments.start(
        user.id,
        order!.id,
        checkoutDetails(parsed.data, { needsShipment: order!.hasShipment }),
      );
      if (!started.ok) {
        switch (started.reason) {
          case "not_card":
            return refuseWith({ fieldErrors: { paymenthub: M.paymentHubUnsupported }, values: parsed.values });
          case "coupon_changed":
            return refuseWith({ alert: { title: M.errorTitle, text: M.couponChanged }, values: parsed.values });
          case "rate_limited":
            return refuseWith({ alert: { title: M.errorTitle, text: M.tooManyPayments }, values: parsed.values }, 429);
          default:
            throw redirect(page);
        }
      }
      setupId = started.setupId;
    } else {
      // The card step waits for another card (declined at setup, authentication failed).
      const pending = await payments.pendingSetup(user.id, order!.id);
      if (!pending) throw redirect(page);
      const parsed = await parseForm(form, cardSchema(now));
      if (!parsed.ok) return refuseWith(parsed.reply);
      setupId = pending;
    }

    // Stripe's card step runs in the browser (a later change); the sandbox takes the card here.
    if (!sandbox) throw redirect(page);
    const card = await sandbox.confirmCard(setupId, String(form.get("cc_number") ?? ""));
    if (card.status === "requires_action") throw redirect(`/pagamenti/prova/3ds/${encodeURIComponent(setupId)}/`);
    if (card.status === "succeeded") {
      // What Stripe's webhook does for its setups: settle now, so the return shows the result.
      await payments.settleSetup(setupId);
      throw redirect(payments.returnUrl(order!.id, setupId, "succeeded"));
    }
    throw redirect(payments.returnUrl(order!.id, setupId, "failed"));
  }
}

export const clientAction = ({ serverAction }: Route.ClientActionArgs) => keepFormOnNetworkFailure(serverAction);
export const shouldRevalidate = revalidateUnlessNetworkFailed;

export default function Checkout({ loaderData, actionData }: Route.ComponentProps) {
  const { order } = loaderData;
  return (
    <section className="mx-auto w-full max-w-6xl px-4 py-8">
      <title>Checkout · Novalex Editore</title>
      {order.status === "payed" ? (
        <Confirmed orderCode={order.orderCode} />
      ) : order.status === "new" || order.status === "waitforpayment" ? (
        <CheckoutForm data={loaderData} actionData={actionData} />
      ) : (
        <div className="card mx-auto max-w-xl p-8 text-center">
          <h1 className="font-serif text-2xl font-bold text-brand">{M.closedTitle}</h1>
          <Link to="/dashboard/" className="button-primary mt-6">
            {M.toDashboard}
          </Link>
        </div>
      )}
    </section>
  );
}

function Confirmed({ orderCode }: { orderCode: string }) {
  return (
    <div className="card mx-auto max-w-xl p-8 text-center" role="status">
      <h1 className="font-serif text-3xl font-bold text-brand">{M.confirmedTitle}</h1>
      <p className="mt-3 text-lg">{M.confirmedText}</p>
      <p className="mt-2 text-sm text-muted">Numero d'ordine {orderCode}. Ti abbiamo inviato la ricevuta per email.</p>
      <div className="mt-6 flex flex-wrap justify-center gap-3">
        {/* A document load: the header and the dashboard show what was just bought. */}
        <a href="/dashboard/" className="button-primary">
          {M.toDashboard}
        </a>
        <a href={receiptPath(orderCode)} className="button-outline">
          Ricevuta
        </a>
        <a href="/my-products/" className="button-outline">
          I miei acquisti
        </a>
      </div>
    </div>
  );
}

/** The dialog 'Errore' (spec §5, §8), rendered by the server; 'Chiudi' closes it without JavaScript. */
function ErrorDialog({ notice }: { notice: Notice }) {
  return (
    <dialog
      open
      aria-labelledby="checkout-error-title"
      className="relative mx-auto my-4 w-full max-w-xl rounded-lg border border-accent bg-white p-5 shadow-lg"
    >
      <h2 id="checkout-error-title" className="flex items-center gap-2 font-serif text-xl font-bold text-accent-dark">
        <span aria-hidden="true">⚠</span>
        {notice.title}
      </h2>
      <p role="alert" className="mt-2">
        {notice.text}
      </p>
      {notice.detail && <p className="mt-1 text-sm">{notice.detail}</p>}
      <form method="dialog" className="mt-4 text-right">
        <button type="submit" className="button-outline">
          Chiudi
        </button>
      </form>
    </dialog>
  );
}

type Data = Route.ComponentProps["loaderData"];

function CheckoutForm({ data: loaded, actionData }: { data: Data; actionData: Route.ComponentProps["actionData"] }) {
  const { order, sandbox } = loaded;
  // The payment checks and resets answer fetchers; the page's own action data is a form's reply.
  const reply = readReply<string>(actionData && ("check" in actionData || "reset" in actionData) ? undefined : actionData);
  const editable = order.status === "new";
  const attempt = order.attempt;
  const waitsForCard = order.status === "waitforpayment" && attempt?.status === "awaiting_customer";
  const verifying = order.status === "waitforpayment" && !waitsForCard;
  const clientNotice = useClientPaymentFlow(loaded);
  const notice: Notice | null =
    clientNotice ?? (reply.alert ? { title: reply.alert.title, text: reply.alert.text ?? "" } : loaded.notice);
  // Spec §4: a second submit is blocked while one is in progress.
  const submitting = useNavigation().state !== "idle";

  return (
    <>
      <h1 className="font-serif text-3xl font-bold text-brand">Checkout</h1>
      <p className="mt-1 text-sm text-muted">Ordine n° {order.orderCode}</p>
      {notice && <ErrorDialog key={`${notice.text}${reply.values ? JSON.stringify(reply.values) : ""}`} notice={notice} />}
      {verifying && <VerifyingPayment />}

      <div className="mt-6 grid gap-8 lg:grid-cols-[1fr_22rem]">
        <Form
          method="post"
          id="checkout"
          noValidate
          className="space-y-6"
          onSubmit={(event) => {
            if (submitting) event.preventDefault();
          }}
          key={JSON.stringify(reply.values ?? null)}
        >
          <fieldset disabled={!editable} className="space-y-6">
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

            <BillingFields billing={order.billing} save={order.billingSave} hasShipment={order.hasShipment} reply={reply} />

            <PaymentMethods
              hub={reply.value("paymenthub") ?? order.paymentHub ?? "card"}
              orderCode={order.orderCode}
              amountCents={order.totalCents + order.shipmentPriceCents}
              error={reply.error("paymenthub")}
              cardPanel={
                // While the card step waits for another card, its fields are below, outside the locked data.
                waitsForCard ? null : sandbox ? <SandboxCardFields reply={reply} /> : <p>{M.cardProviderNotReady}</p>
              }
            />

            <div className="card space-y-3 p-5">
              <CheckboxField
                name="terms_sales"
                defaultChecked={reply.values ? reply.value("terms_sales") !== undefined : false}
                error={reply.error("terms_sales")}
              >
                Ho letto e accetto le{" "}
                <a href="https://www.novalexeditore.it/condizioni-di-vendita" className="link">
                  condizioni di vendita
                </a>
              </CheckboxField>
              <CheckboxField
                name="terms_cancel"
                defaultChecked={reply.values ? reply.value("terms_cancel") !== undefined : false}
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
              {sandbox && <SandboxCardFields reply={reply} />}
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

        <CheckoutSummary order={order} editable={editable} />
      </div>

      {waitsForCard && (
        <Form method="post" className="mt-4">
          <button type="submit" name="intent" value="reset" className="link text-sm">
            Annulla il pagamento e modifica i dati
          </button>
        </Form>
      )}
    </>
  );
}

/** The payment is being verified: a check the customer can ask for, and a plain reload link. */
function VerifyingPayment() {
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
 * after 1 s. Without JavaScript the server has settled what it could before answering, and the
 * page offers a check and a reload link.
 */
function useClientPaymentFlow(loaded: Data): Notice | null {
  const [notice, setNotice] = useState<Notice | null>(null);
  const fetcher = useFetcher<{ check?: SettleResult }>();
  const revalidator = useRevalidator();
  const checks = useRef(0);
  const { returned, order } = loaded;
  const waiting = order.status === "waitforpayment" && order.attempt?.status !== "awaiting_customer";

  useEffect(() => {
    if (!returned || !waiting) return;
    if (returned.setupStatus === "processing") {
      const timer = setTimeout(() => void revalidator.revalidate(), PROCESSING_RELOAD_MS);
      return () => clearTimeout(timer);
    }
    if (returned.setupStatus !== "succeeded" || fetcher.state !== "idle") return;
    const result = fetcher.data?.check;
    // Paid, or ended for good (declined, cancelled): the page shows it, with its dialog.
    if (result && result.state !== "pending" && result.state !== "requires_customer") {
      void revalidator.revalidate();
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
  }, [returned, waiting, fetcher, revalidator]);

  return notice;
}
