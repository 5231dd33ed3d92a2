// /my-products/abbonamento/carta/ — 'Aggiorna carta' of the EDU subscription (docs/payments.md,
// "EDU subscription"): a new card step through the gateway, after which the subscription charges
// that card (and a month waiting for a retry is charged at once). The sandbox takes the card in
// this form (its 3-D Secure page comes back here); Stripe takes it in its Payment Element with
// JavaScript (Stripe.js confirms the setup and comes back here), or on its hosted page without.
// Either way the return carries the setup (?setup_intent=…, or Stripe's ?session_id=…), whose state
// is read at the provider, never taken from the address.
import { Form, Link, redirect, useNavigation } from "react-router";
import type { Route } from "./+types/subscription.card";
import { servicesContext } from "#shared/context.ts";
import { cardBrandLabel } from "#shared/commerce-constants.ts";
import { SUBSCRIPTION_CARD_PATH, SUBSCRIPTION_PATH } from "#shared/links.ts";
import { CardStepFields } from "#app/components/card-step.tsx";
import { SandboxNotice } from "#app/components/sandbox-notice.tsx";
import { AlertBox } from "#app/components/form-fields.tsx";
import { cardSchema, readCardStepForm } from "#app/lib/card-step.server.ts";
import { customerOf } from "#app/lib/customer.server.ts";
import { readReply, type FormReply } from "#app/lib/form-reply.ts";
import { parseForm, refuse } from "#app/lib/form-reply.server.ts";
import { SUBSCRIPTION_MESSAGES as M } from "#shared/subscription-messages.ts";
import { paymentToast } from "#app/lib/subscription-toasts.server.ts";
import { redirectWithToast } from "#app/lib/toast.server.ts";
import { cardStepOf, shouldRevalidateCardStep, useCardStep } from "#app/lib/use-card-step.ts";
import { useHydrated } from "#app/lib/use-hydrated.ts";
import { PageHeading } from "#app/components/page-heading.tsx";

export async function loader({ request, context }: Route.LoaderArgs) {
  const { user } = customerOf(context);
  const { subscriptions, cardStep } = context.get(servicesContext);

  // Back from the card step: Stripe.js's or the sandbox's setup, or Stripe's hosted page, whose
  // setup becomes the card update's.
  const returned = await cardStep.readReturn(user.id, new URL(request.url).searchParams);
  let setupId: string | null = null;
  if (returned.kind === "invalid") throw redirect(SUBSCRIPTION_CARD_PATH);
  if (returned.kind === "setup") setupId = returned.setupId;
  if (returned.kind === "hosted") {
    const updateId = returned.metadata.card_update_id;
    if (!updateId || !(await subscriptions.adoptCardUpdateSetup(user.id, updateId, returned.setupId)))
      throw redirect(SUBSCRIPTION_CARD_PATH);
    setupId = returned.setupId;
  }
  let problem: string | null = null;
  if (setupId) {
    const finished = await subscriptions.finishCardUpdate(user.id, setupId);
    if (!finished) throw redirect(SUBSCRIPTION_CARD_PATH);
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
  return { card: subscription.card, problem, sandbox: cardStep.sandbox, stripeKey: cardStep.publishableKey };
}

export async function action({ request, context }: Route.ActionArgs) {
  const { user } = customerOf(context);
  const services = context.get(servicesContext);
  const { subscriptions, cardStep } = services;
  const form = await request.formData();
  const failed = (text: string | undefined, status = 400, values?: FormReply<string>["values"]) =>
    refuse({ alert: { title: M.cardNotSaved, text }, values }, status);

  const { inPage, widgetProblem, cardNumber } = readCardStepForm(form, cardStep);
  let values: FormReply<string>["values"];
  if (cardStep.sandbox) {
    const parsed = await parseForm(form, cardSchema(services.clock()));
    if (!parsed.ok) return refuse({ ...parsed.reply, alert: { title: M.cardNotSaved } });
    values = parsed.values;
  }
  if (widgetProblem) return failed(widgetProblem);
  const customer = { email: user.email ?? "", name: `${user.firstname ?? ""} ${user.lastname ?? ""}`.trim() };
  const started = await subscriptions.startCardUpdate(user.id, customer);
  if (!started.ok) {
    if (started.reason === "rate_limited") return failed(M.tooManyPayments, 429);
    throw redirect(SUBSCRIPTION_PATH);
  }

  const next = await cardStep.begin(started.setupId, { page: SUBSCRIPTION_CARD_PATH, inPage, cardNumber });
  switch (next.kind) {
    case "in_page":
      return { cardStep: { clientSecret: next.clientSecret, returnUrl: next.returnUrl } };
    case "redirect":
      throw redirect(next.to, 303);
    case "refused":
      return failed(next.message ?? undefined, 400, values);
    case "unavailable":
      return failed(M.gatewayUnavailable, 503);
  }
}

export { clientAction } from "#app/lib/form-route.ts";
export const shouldRevalidate = shouldRevalidateCardStep;

export default function SubscriptionCard({ loaderData, actionData }: Route.ComponentProps) {
  const { card, problem, sandbox, stripeKey } = loaderData;
  // The action answers the card step to Stripe.js, or a form's reply.
  const reply = readReply<string>(cardStepOf(actionData) ? undefined : (actionData as FormReply<string> | undefined));
  const navigation = useNavigation();
  const hydrated = useHydrated();
  const cardStep = useCardStep(stripeKey, actionData);
  const busy = navigation.state !== "idle" || cardStep.busy;
  const alert = cardStep.problem
    ? { title: M.cardNotSaved, text: cardStep.problem.text }
    : (reply.alert ?? (problem ? { title: M.cardNotSaved, text: problem } : undefined));
  return (
    <div className="mx-auto max-w-xl px-4 py-8 md:py-10">
      {sandbox && <SandboxNotice />}
      <p>
        <Link to={SUBSCRIPTION_PATH} className="link text-sm">
          <span aria-hidden="true">← </span>
          {M.title}
        </Link>
      </p>
      <PageHeading title={M.cardTitle} className="mt-4" />
      <p className="mt-3">
        {M.cardIntro} Carta attuale: {cardBrandLabel(card.brand)}
        {card.last4 && <> •••• {card.last4}</>}.
      </p>
      <AlertBox alert={alert} />
      <Form method="post" className="card mt-6 space-y-4 p-6" onSubmit={cardStep.onSubmit}>
        <CardStepFields
          sandbox={sandbox}
          publishableKey={stripeKey}
          onWidget={cardStep.onWidget}
          reply={reply}
          disabled={busy}
          hostedNote={M.cardHostedNote}
        />
        <button type="submit" className="button-primary" disabled={busy} aria-busy={busy || undefined}>
          {busy ? M.cardSaving : stripeKey && !hydrated ? M.cardHostedPage : M.cardSave}
        </button>
      </Form>
    </div>
  );
}
