// /checkout/:order (spec §2, §4, §5, §8): the order's owner only (anyone else goes to /). A
// `new` order shows the form; 'Completa l'acquisto' checks it in §5's order (the first message
// in the dialog 'Errore', each beside its field), writes it and starts the card payment. The
// card step returns here with the gateway's parameters (setup_intent, redirect_status), which
// are only hints: the loader reads the setup and the attempt. A paid order shows 'Ordine
// confermato'; a closed one 'Ordine annullato/scaduto o interrotto'.
//
// The card step is the gateway's. The sandbox takes the card in this form. Stripe takes it in its
// Payment Element (components/stripe-card-panel.tsx, loaded after hydration): the page posts the
// form, the action answers the SetupIntent's client secret, and Stripe.js confirms the card and
// returns here. Without JavaScript (or before hydration) the action sends the customer to
// Stripe's hosted card page, which returns through /pagamenti/carta/ritorno/ (stripe-card-return.tsx).
import { Fragment, lazy, Suspense, useCallback, useEffect, useRef, useState } from "react";
import {
  Form,
  Link,
  redirect,
  useFetcher,
  useNavigation,
  useRevalidator,
  useSubmit,
  type ShouldRevalidateFunctionArgs,
} from "react-router";
import type { Route } from "./+types/checkout";
import { requestContext, servicesContext, settingsContext } from "../../shared/context.ts";
import { checkoutOrderPath, receiptPath, STRIPE_CARD_PAGE_RETURN_PATH } from "../../shared/links.ts";
import type { SettleResult } from "../../server/payments/service";
import type { CardStep, CardWidget, CardWidgetState } from "../lib/card-widget";
import { useHydrated } from "../lib/use-hydrated";
import { AddressFields, BillingFields, PaymentMethods, SandboxCardFields } from "../components/checkout-form";
import { CheckoutSummary } from "../components/checkout-summary";
import { customerOf } from "../lib/customer.server";
import { CHECKOUT_MESSAGES as M } from "../../shared/checkout-messages.ts";
import { cardSchema, checkoutDetails, checkoutSchema } from "../lib/checkout-form.server";
import { keepFormOnNetworkFailure, revalidateUnlessNetworkFailed } from "../lib/communication-failure";
import { readReply, type FormReply } from "../lib/form-reply";
import { parseForm, refuse } from "../lib/form-reply.server";
import { CheckboxField, TextField } from "../components/form-fields";
import { SandboxNotice } from "../components/sandbox-notice";

/** Spec §9: a succeeded card step is checked 3 times, 2 000 ms apart. */
const PAYMENT_CHECKS = 3;
const PAYMENT_CHECK_INTERVAL_MS = 2000;
/** Spec §9: a processing card step reloads the page after 1 000 ms. */
const PROCESSING_RELOAD_MS = 1000;

type Notice = { title: string; text: string; detail?: string | null; seq?: number };

/** The card widget's three messages (spec §5: after every other check). */
const WIDGET_MESSAGES: Record<Exclude<CardWidgetState, "ready">, string> = {
  provider_loading: M.cardProviderNotReady,
  element_loading: M.cardElementNotReady,
  failed: M.cardProviderFailed,
};
const isWidgetState = (value: unknown): value is CardWidgetState =>
  value === "ready" || (typeof value === "string" && value in WIDGET_MESSAGES);

export async function loader({ request, params, context }: Route.LoaderArgs) {
  const { user } = customerOf(context);
  const { checkout, payments, stripeCardStep } = context.get(servicesContext);
  const order = await checkout.view(user.id, params.order);
  if (!order) throw redirect("/");

  // The card step's return (spec §4): what the dialog says, from the setup and the attempt.
  const url = new URL(request.url);
  const setupId = url.searchParams.get("setup_intent");
  let returned: { redirectStatus: string; setupStatus: string } | null = null;
  let notice: Notice | null = null;
  /**
   * The card step of the order's open attempt is done at the gateway (Stripe's, read now), though
   * nothing has checked it yet: the page verifies the payment rather than ask for a card.
   */
  let cardStepDone = false;
  if (setupId && order.status !== "payed") {
    const setup = await payments.setupState(user.id, order.id, setupId);
    if (setup) {
      returned = { redirectStatus: url.searchParams.get("redirect_status") ?? "", setupStatus: setup.status };
      const attempt = order.attempt?.setupId === setupId ? order.attempt : null;
      cardStepDone = attempt?.status === "awaiting_customer" && (setup.status === "succeeded" || setup.status === "processing");
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
    cardStepDone,
    sandbox: payments.gatewayName === "sandbox",
    /** Stripe.js's publishable key (public by design); null with the sandbox. */
    stripeKey: stripeCardStep?.publishableKey ?? null,
  };
}

const INTENTS = ["pay", "coupon-apply", "coupon-remove", "check", "reset"] as const;

export async function action({ request, params, context }: Route.ActionArgs) {
  const { user } = customerOf(context);
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
    const { payments, sandbox, stripeCardStep } = services;
    const now = services.clock();
    // With JavaScript, Stripe's card widget is in the page, and the page tells where it stands.
    const widget = stripeCardStep && form.get("card_step") === "elements" ? form.get("card_state") : null;
    const refuseWith = (reply: FormReply<string>, status = 400) => {
      const first = Object.values(reply.fieldErrors ?? {})[0];
      return refuse<string>(
        { ...reply, alert: reply.alert ?? { title: M.errorTitle, text: first ?? M.paymentCancelled } },
        status,
      );
    };

    /** Spec §5's last checks: the card widget is not ready, or failed to load. */
    const refuseWidget = (state: FormDataEntryValue, values?: FormReply<string>["values"]) =>
      refuseWith({
        alert: {
          title: M.errorTitle,
          text: isWidgetState(state) && state !== "ready" ? WIDGET_MESSAGES[state] : M.cardProviderNotReady,
        },
        values,
      });

    let setupId: string;
    if (order!.status === "new") {
      const schema = checkoutSchema({ needsShipment: order!.hasShipment, sandboxCard: sandbox !== null, now });
      const parsed = await parseForm(form, schema);
      if (!parsed.ok) return refuseWith(parsed.reply);
      if (widget !== null && widget !== "ready") return refuseWidget(widget, parsed.values);
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
          case "edu_active":
            return refuseWith({ alert: { title: M.errorTitle, text: M.eduAlreadyActive }, values: parsed.values }, 409);
          default:
            throw redirect(page);
        }
      }
      setupId = started.setupId;
    } else {
      // The card step waits for another card (declined at setup, authentication failed).
      const pending = await payments.pendingSetup(user.id, order!.id);
      if (!pending) throw redirect(page);
      if (sandbox) {
        const parsed = await parseForm(form, cardSchema(now));
        if (!parsed.ok) return refuseWith(parsed.reply);
      } else if (widget !== null && widget !== "ready") {
        return refuseWidget(widget);
      }
      setupId = pending;
    }

    if (stripeCardStep) {
      const { publicOrigin } = context.get(settingsContext);
      const checkoutUrl = `${publicOrigin}${checkoutOrderPath(order!.id)}`;
      let next: { cardStep: CardStep } | string;
      try {
        next =
          widget !== null
            ? // Stripe.js confirms the card in the page, then comes back to the checkout address.
              { cardStep: { clientSecret: await stripeCardStep.clientSecret(setupId), returnUrl: checkoutUrl } }
            : // Without JavaScript: Stripe's hosted card page, which returns through the portal.
              await stripeCardStep.hostedPage(setupId, {
                successUrl: `${publicOrigin}${STRIPE_CARD_PAGE_RETURN_PATH}?session_id={CHECKOUT_SESSION_ID}`,
                cancelUrl: checkoutUrl,
              });
      } catch (err) {
        // The order waits for its card step: the customer can try again (or give up) from the page.
        context.get(requestContext).log.error({ err, orderId: order!.id }, "stripe's card step could not be opened");
        return refuseWith({ alert: { title: M.errorTitle, text: M.gatewayUnavailable } }, 503);
      }
      if (typeof next === "string") throw redirect(next, 303);
      return next;
    }
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

export function shouldRevalidate(args: ShouldRevalidateFunctionArgs) {
  // Stripe.js confirms the card with the page as it is: the order's new state would move the widget.
  const result: unknown = args.actionResult;
  if (typeof result === "object" && result !== null && "cardStep" in result) return false;
  return revalidateUnlessNetworkFailed(args);
}

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

/**
 * The dialog 'Errore' (spec §5, §8), rendered by the server; 'Chiudi' closes it without JavaScript.
 * With JavaScript the page stays where the customer pressed 'Completa l'acquisto': the dialog is
 * brought into view there and takes the focus, so it is seen and read out.
 */
function ErrorDialog({ notice }: { notice: Notice }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    ref.current?.scrollIntoView({ block: "center" });
    ref.current?.focus();
  }, []);
  return (
    <dialog
      ref={ref}
      open
      tabIndex={-1}
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
type ActionData = Route.ComponentProps["actionData"];

const LazyStripeCardPanel = lazy(() => import("../components/stripe-card-panel"));

/**
 * Stripe's card widget, or what stands for it: before hydration and without JavaScript the card
 * is taken on Stripe's hosted page, after 'Completa l'acquisto'.
 */
function StripeCardSlot({ publishableKey, onWidget }: { publishableKey: string; onWidget: (widget: CardWidget | null) => void }) {
  const hydrated = useHydrated();
  if (!hydrated) return <p>{M.cardOnStripePage}</p>;
  return (
    <Suspense fallback={<p className="text-muted">{M.cardWidgetLoading}</p>}>
      <LazyStripeCardPanel publishableKey={publishableKey} onWidget={onWidget} />
    </Suspense>
  );
}

function CheckoutForm({ data: loaded, actionData }: { data: Data; actionData: ActionData }) {
  const { order, sandbox, stripeKey } = loaded;
  // The payment checks and resets answer fetchers, and Stripe's card step the page's card widget;
  // the rest of the page's action data is a form's reply.
  const reply = readReply<string>(
    actionData && ("check" in actionData || "reset" in actionData || "cardStep" in actionData) ? undefined : actionData,
  );
  const editable = order.status === "new";
  const attempt = order.attempt;
  const waitsForCard = order.status === "waitforpayment" && attempt?.status === "awaiting_customer" && !loaded.cardStepDone;
  const verifying = order.status === "waitforpayment" && !waitsForCard;
  const clientNotice = useClientPaymentFlow(loaded);
  const card = useStripeCardStep(stripeKey, actionData);
  const notice: Notice | null =
    clientNotice ?? card.notice ?? (reply.alert ? { title: reply.alert.title, text: reply.alert.text ?? "" } : loaded.notice);
  // Spec §4: a second submit is blocked while one is in progress.
  const submitting = useNavigation().state !== "idle" || card.busy;
  // What was typed comes back with a refusal: the fields take it (a new key), the card widget stays.
  const typed = JSON.stringify(reply.values ?? null);
  const cardFields = sandbox ? (
    <SandboxCardFields key={typed} reply={reply} />
  ) : stripeKey ? (
    <StripeCardSlot publishableKey={stripeKey} onWidget={card.onWidget} />
  ) : null;

  return (
    <>
      {sandbox && <SandboxNotice />}
      <h1 className="font-serif text-3xl font-bold text-brand">Checkout</h1>
      <p className="mt-1 text-sm text-muted">Ordine n° {order.orderCode}</p>
      {notice && <ErrorDialog key={`${notice.text}${notice.seq ?? ""}${typed}`} notice={notice} />}
      {verifying && <VerifyingPayment />}

      <div className="mt-6 grid gap-8 lg:grid-cols-[1fr_22rem]">
        <Form
          method="post"
          id="checkout"
          noValidate
          className="space-y-6"
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

              <BillingFields billing={order.billing} save={order.billingSave} hasShipment={order.hasShipment} reply={reply} />
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

/**
 * 'Completa l'acquisto' with Stripe's card widget (spec §4): the widget's own checks first
 * (elements.submit(), which Stripe wants before any other work), then the form goes to the action
 * with where the widget stands; the action checks the data (§5's messages, the widget's last) and
 * starts the payment, answering the client secret; Stripe.js confirms the card and leaves for the
 * checkout's return address. What Stripe.js refuses (a declined card, a failed check) shows in
 * the dialog 'Errore' with its message, and the page then shows the card step waiting.
 */
function useStripeCardStep(stripeKey: string | null, actionData: ActionData) {
  const widget = useRef<CardWidget | null>(null);
  const onWidget = useCallback((next: CardWidget | null) => {
    widget.current = next;
  }, []);
  const submit = useSubmit();
  const revalidator = useRevalidator();
  const [checking, setChecking] = useState(false);
  const [notice, setNotice] = useState<Notice | null>(null);
  const [settled, setSettled] = useState<CardStep | null>(null);
  const seq = useRef(0);
  const step = actionData && "cardStep" in actionData ? actionData.cardStep : null;

  // One confirmation per answer of the action, whatever renders meanwhile.
  const confirming = useRef<CardStep | null>(null);
  useEffect(() => {
    if (!step || confirming.current === step) return;
    confirming.current = step;
    const confirm = widget.current
      ? widget.current.confirm(step.clientSecret, step.returnUrl)
      : Promise.resolve(M.cardElementNotReady);
    void confirm.then((message) => {
      setSettled(step);
      setNotice({ title: M.errorTitle, text: message, seq: ++seq.current });
      // The card step now waits for another card: the page shows it so.
      void revalidator.revalidate();
    });
  }, [step, revalidator]);

  async function payWithWidget(data: FormData) {
    const current = widget.current;
    const state: CardWidgetState = current?.state() ?? "provider_loading";
    // Another payment method chosen: the server refuses it before anything of the card matters.
    // (While the card step waits for another card, the method is locked and not posted.)
    const hub = data.get("paymenthub");
    if (current && state === "ready" && (hub === null || hub === "card")) {
      setChecking(true);
      const problem = await current.submit();
      setChecking(false);
      if (problem) {
        setNotice({ title: M.errorTitle, text: problem, seq: ++seq.current });
        return;
      }
    }
    data.set("card_step", "elements");
    data.set("card_state", state);
    await submit(data, { method: "post" });
  }

  return {
    notice,
    busy: checking || (step !== null && settled !== step),
    onWidget,
    onSubmit(event: React.FormEvent<HTMLFormElement>) {
      if (!stripeKey) return; // The sandbox's card fields go with the form.
      const submitter = (event.nativeEvent as SubmitEvent).submitter;
      event.preventDefault();
      setNotice(null);
      void payWithWidget(new FormData(event.currentTarget, submitter));
    },
  };
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
 * after 1 s. A charge the bank asks the customer to authenticate (Stripe) is completed with
 * stripe.handleNextAction, then checked again. Without JavaScript the server has settled what it
 * could before answering, and the page offers a check and a reload link.
 */
function useClientPaymentFlow(loaded: Data): Notice | null {
  const [notice, setNotice] = useState<Notice | null>(null);
  const fetcher = useFetcher<{ check?: SettleResult }>();
  const revalidator = useRevalidator();
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
      void import("../components/stripe-card-panel")
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
    // Paid, or ended for good (declined, cancelled): the page shows it, with its dialog.
    if (result && result.state !== "pending" && result.state !== "requires_customer" && result.state !== "requires_action") {
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
  }, [returned, waiting, fetcher, revalidator, stripeKey]);

  return notice;
}
