// /my-products/abbonamento/carta/ — 'Aggiorna carta' of the EDU subscription (README, "EDU
// subscription"): a new card step through the gateway, after which the subscription charges that
// card (and a month waiting for a retry is charged at once). The sandbox takes the card in this
// form (its 3-D Secure page comes back here); Stripe takes it in its Payment Element with
// JavaScript (Stripe.js confirms the setup and comes back here), or on its hosted page without.
// Either way the return carries the setup (?setup_intent=…, or Stripe's ?session_id=…), whose
// state is read at the provider, never taken from the address.
import { lazy, Suspense, useCallback, useEffect, useRef, useState } from "react";
import { Form, Link, redirect, useNavigation, useSubmit } from "react-router";
import type { Route } from "./+types/subscription.card";
import { requestContext, servicesContext, settingsContext } from "../../shared/context.ts";
import { cardBrandLabel } from "../../shared/commerce-constants.ts";
import { SUBSCRIPTION_PATH } from "../../shared/links.ts";
import { SandboxCardFields } from "../components/checkout-form";
import { SandboxNotice } from "../components/sandbox-notice";
import { AlertBox } from "../components/form-fields";
import { customerOf } from "../lib/customer.server";
import type { CardStep, CardWidget } from "../lib/card-widget";
import { cardSchema } from "../lib/checkout-form.server";
import { keepFormOnNetworkFailure, revalidateUnlessNetworkFailed } from "../lib/communication-failure";
import { readReply, type FormReply } from "../lib/form-reply";
import { parseForm, refuse } from "../lib/form-reply.server";
import { SUBSCRIPTION_MESSAGES as M } from "../../shared/subscription-messages.ts";
import { paymentToast } from "../lib/subscription-toasts.server";
import { redirectWithToast } from "../lib/toast.server";
import { useHydrated } from "../lib/use-hydrated";

const CARD_PATH = `${SUBSCRIPTION_PATH}carta/`;

export async function loader({ request, context }: Route.LoaderArgs) {
  const { user } = customerOf(context);
  const { subscriptions, payments, stripeCardStep } = context.get(servicesContext);
  const query = new URL(request.url).searchParams;

  // Back from Stripe's hosted page: the session's setup becomes the card update's.
  const sessionId = query.get("session_id");
  let setupId = query.get("setup_intent");
  if (sessionId && stripeCardStep) {
    const hosted = await stripeCardStep.hostedSetup(user.id, sessionId);
    const updateId = hosted?.metadata.card_update_id;
    setupId = updateId && (await subscriptions.adoptCardUpdateSetup(user.id, updateId, hosted.id)) ? hosted.id : null;
    if (!setupId) throw redirect(CARD_PATH);
  }
  let problem: string | null = null;
  if (setupId) {
    const finished = await subscriptions.finishCardUpdate(user.id, setupId);
    if (!finished) throw redirect(CARD_PATH);
    if (finished.state === "updated") {
      throw await redirectWithToast(
        context,
        SUBSCRIPTION_PATH,
        finished.charge ? paymentToast(finished.charge) : { type: "success", title: M.cardUpdated, message: M.cardUpdatedText },
        { replace: true },
      );
    }
    problem = finished.state === "pending" ? M.paymentPendingText : (finished.errorMessage ?? M.cardNotSaved);
  }

  const subscription = await subscriptions.ofCustomer(user.id);
  if (subscription?.status !== "active" && subscription?.status !== "past_due") throw redirect(SUBSCRIPTION_PATH);
  return {
    card: subscription.card,
    problem,
    sandbox: payments.gatewayName === "sandbox",
    /** Stripe.js's key (public by design); null with the sandbox. */
    stripeKey: stripeCardStep?.publishableKey ?? null,
  };
}

export async function action({ request, context }: Route.ActionArgs) {
  const { user } = customerOf(context);
  const services = context.get(servicesContext);
  const { subscriptions, sandbox, stripeCardStep } = services;
  const form = await request.formData();
  const failed = (text: string, status = 400) => refuse({ alert: { title: M.cardNotSaved, text } }, status);

  let values: FormReply<string>["values"];
  if (sandbox) {
    const parsed = await parseForm(form, cardSchema(services.clock()));
    if (!parsed.ok) return refuse({ ...parsed.reply, alert: { title: M.cardNotSaved } });
    values = parsed.values;
  }
  const customer = { email: user.email ?? "", name: `${user.firstname ?? ""} ${user.lastname ?? ""}`.trim() };
  const started = await subscriptions.startCardUpdate(user.id, customer);
  if (!started.ok) {
    if (started.reason === "rate_limited") return failed(M.tooManyPayments, 429);
    throw redirect(SUBSCRIPTION_PATH);
  }

  if (stripeCardStep) {
    const { publicOrigin } = context.get(settingsContext);
    try {
      // With JavaScript, Stripe.js confirms the card in the page; without, Stripe's hosted page.
      if (form.get("card_step") === "elements") {
        return { cardStep: { clientSecret: started.clientSecret, returnUrl: `${publicOrigin}${CARD_PATH}` } satisfies CardStep };
      }
      const hosted = await stripeCardStep.hostedPage(started.setupId, {
        successUrl: `${publicOrigin}${CARD_PATH}?session_id={CHECKOUT_SESSION_ID}`,
        cancelUrl: `${publicOrigin}${CARD_PATH}`,
      });
      throw redirect(hosted, 303);
    } catch (err) {
      if (err instanceof Response) throw err;
      context.get(requestContext).log.error({ err }, "stripe's card step could not be opened for a card update");
      return failed(M.gatewayUnavailable, 503);
    }
  }
  if (!sandbox) throw redirect(SUBSCRIPTION_PATH);
  const card = await sandbox.confirmCard(started.setupId, String(form.get("cc_number") ?? ""));
  if (card.status === "requires_action") throw redirect(`/pagamenti/prova/3ds/${encodeURIComponent(started.setupId)}/`);
  if (card.status === "succeeded") {
    throw redirect(`${CARD_PATH}?${new URLSearchParams({ setup_intent: started.setupId, redirect_status: "succeeded" })}`);
  }
  return refuse({ alert: { title: M.cardNotSaved, text: "errorMessage" in card ? card.errorMessage : undefined }, values });
}

export const clientAction = ({ serverAction }: Route.ClientActionArgs) => keepFormOnNetworkFailure(serverAction);
export const shouldRevalidate = revalidateUnlessNetworkFailed;

const LazyStripeCardPanel = lazy(() => import("../components/stripe-card-panel"));

export default function SubscriptionCard({ loaderData, actionData }: Route.ComponentProps) {
  const { card, problem, sandbox, stripeKey } = loaderData;
  const step = actionData && "cardStep" in actionData ? actionData.cardStep : null;
  // The action answers the card step to Stripe.js, or a form's reply.
  const reply = readReply<string>(step ? undefined : (actionData as FormReply<string> | undefined));
  const navigation = useNavigation();
  const hydrated = useHydrated();
  const widget = useStripeWidget(stripeKey, step);
  const busy = navigation.state !== "idle" || widget.busy;
  const alert = widget.problem
    ? { title: M.cardNotSaved, text: widget.problem }
    : (reply.alert ?? (problem ? { title: M.cardNotSaved, text: problem } : undefined));
  return (
    <div className="mx-auto max-w-xl px-4 py-8 md:py-10">
      <title>{`${M.cardTitle} · Novalex Editore`}</title>
      {sandbox && <SandboxNotice />}
      <p>
        <Link to={SUBSCRIPTION_PATH} className="link text-sm">
          <span aria-hidden="true">← </span>
          {M.title}
        </Link>
      </p>
      <h1 className="mt-4 font-serif text-3xl font-bold text-brand">{M.cardTitle}</h1>
      <p className="mt-3">
        {M.cardIntro} Carta attuale: {cardBrandLabel(card.brand)}
        {card.last4 && <> •••• {card.last4}</>}.
      </p>
      <AlertBox alert={alert} />
      <Form method="post" className="card mt-6 space-y-4 p-6" onSubmit={widget.onSubmit}>
        {sandbox && <SandboxCardFields reply={reply} disabled={busy} />}
        {stripeKey &&
          (hydrated ? (
            <Suspense fallback={<p className="text-muted">{M.cardSaving}</p>}>
              <LazyStripeCardPanel publishableKey={stripeKey} onWidget={widget.onWidget} />
            </Suspense>
          ) : (
            <p>{M.cardHostedNote}</p>
          ))}
        <button type="submit" className="button-primary" disabled={busy} aria-busy={busy || undefined}>
          {busy ? M.cardSaving : stripeKey && !hydrated ? M.cardHostedPage : M.cardSave}
        </button>
      </Form>
    </div>
  );
}

/**
 * With Stripe and JavaScript: the widget's own checks, then the action starts the card update and
 * answers the setup's client secret, and Stripe.js confirms it and leaves for this page's address.
 * What Stripe.js refuses shows above the form.
 */
function useStripeWidget(stripeKey: string | null, step: CardStep | null) {
  const widget = useRef<CardWidget | null>(null);
  const onWidget = useCallback((next: CardWidget | null) => {
    widget.current = next;
  }, []);
  const submit = useSubmit();
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const confirming = useRef<CardStep | null>(null);

  useEffect(() => {
    if (!step || confirming.current === step) return;
    confirming.current = step;
    void (widget.current?.confirm(step.clientSecret, step.returnUrl) ?? Promise.resolve(M.cardNotSaved)).then((message) => {
      setBusy(false);
      setProblem(message);
    });
  }, [step]);

  return {
    onWidget,
    problem,
    busy,
    onSubmit(event: React.FormEvent<HTMLFormElement>) {
      const current = widget.current;
      if (!stripeKey || !current) return; // The sandbox's fields, or Stripe's hosted page: a plain post.
      event.preventDefault();
      setProblem(null);
      setBusy(true);
      void current.submit().then((refused) => {
        if (refused) {
          setBusy(false);
          setProblem(refused);
          return;
        }
        void submit({ card_step: "elements" }, { method: "post" });
      });
    },
  };
}
