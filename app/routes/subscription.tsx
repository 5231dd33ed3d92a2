// /my-products/abbonamento/ — the customer's EDU subscription (docs/payments.md, "EDU
// subscription"): the plan, its price, the instalment 'n di 6', the next charge, the card, the
// months paid with their receipts. 'Disdici' asks for a confirmation first (a dialog the server
// renders at ?disdici, so without JavaScript too), 'Riattiva' while the paid month lasts, 'Aggiorna
// carta', and 'Paga ora' when a charge failed. The bank's 3-D Secure page of 'Paga ora' comes back
// here with the charge's id (?payment_intent=…), which is read at the provider and recorded.
import { Form, Link, redirect, useNavigation } from "react-router";
import { z } from "zod";
import type { Route } from "./+types/subscription";
import type { SubscriptionView } from "#server/commerce/subscriptions.ts";
import { servicesContext, settingsContext } from "#shared/context.ts";
import { formatDate, withArticle } from "#shared/format.ts";
import { formatEuro } from "#shared/euro.ts";
import { EDU_PATH, MY_PRODUCTS_PATH, SUBSCRIPTION_PATH } from "#shared/links.ts";
import { cardBrandLabel } from "#shared/commerce-constants.ts";
import { AlertBox } from "#app/components/form-fields.tsx";
import { customerOf } from "#app/lib/customer.server.ts";
import { readReply } from "#app/lib/form-reply.ts";
import { parseForm, refuse } from "#app/lib/form-reply.server.ts";
import { SUBSCRIPTION_MESSAGES as M, SUBSCRIPTION_STATUS_LABELS } from "#shared/subscription-messages.ts";
import { paymentToast } from "#app/lib/subscription-toasts.server.ts";
import { ModalDialog } from "#app/components/modal-dialog.tsx";
import { PaymentRefunds } from "#app/components/payment-refunds.tsx";
import { SandboxNotice } from "#app/components/sandbox-notice.tsx";
import { redirectWithToast, type Toast } from "#app/lib/toast.server.ts";
import { PageHeading } from "#app/components/page-heading.tsx";

const CANCEL_CONFIRMATION = `${SUBSCRIPTION_PATH}?disdici#disdetta`;

export async function loader({ request, context }: Route.LoaderArgs) {
  const { user } = customerOf(context);
  const { subscriptions, payments } = context.get(servicesContext);
  const url = new URL(request.url);
  // Back from the bank's page: its answer is the provider's, read there and recorded.
  const chargeId = url.searchParams.get("payment_intent");
  if (chargeId) {
    const outcome = await subscriptions.finishPayment(user.id, chargeId);
    throw await redirectWithToast(context, SUBSCRIPTION_PATH, paymentToast(outcome), { replace: true });
  }
  return {
    subscription: await subscriptions.ofCustomer(user.id),
    confirmingCancel: url.searchParams.has("disdici"),
    sandbox: payments.gatewayName === "sandbox",
  };
}

const schema = z.object({ intent: z.enum(["cancel", "resume", "pay"]) });

export async function action({ request, context }: Route.ActionArgs) {
  const { user } = customerOf(context);
  const { subscriptions } = context.get(servicesContext);
  const parsed = await parseForm(request, schema);
  if (!parsed.ok) return refuse({ alert: { title: M.notPossible, text: M.notPossibleText } });
  const done = (toast: Toast) => redirectWithToast(context, SUBSCRIPTION_PATH, toast);
  const notPossible = refuse({ alert: { title: M.notPossible, text: M.notPossibleText } }, 409);
  switch (parsed.data.intent) {
    case "cancel":
      return (await subscriptions.cancel(user.id)).ok
        ? done({ type: "success", title: M.cancelled, message: M.cancelledText })
        : notPossible;
    case "resume":
      return (await subscriptions.resume(user.id)).ok
        ? done({ type: "success", title: M.resumed, message: M.resumedText })
        : notPossible;
    case "pay": {
      const returnUrl = `${context.get(settingsContext).publicOrigin}${SUBSCRIPTION_PATH}`;
      const outcome = await subscriptions.payNow(user.id, returnUrl);
      if (!outcome) return notPossible;
      // The bank's 3-D Secure page; it sends the customer back here.
      if (outcome.state === "requires_action") throw redirect(outcome.redirectUrl, 303);
      if (outcome.state === "rate_limited") return refuse({ alert: { title: M.paymentFailed, text: M.tooManyPayments } }, 429);
      return done(paymentToast(outcome));
    }
  }
}

export { clientAction, shouldRevalidate } from "#app/lib/form-route.ts";

export default function Subscription({ loaderData, actionData }: Route.ComponentProps) {
  const { subscription, confirmingCancel, sandbox } = loaderData;
  const reply = readReply(actionData);
  return (
    <div className="mx-auto max-w-4xl px-4 py-8 md:py-10">
      {/* 'Paga ora' charges the card from this page. */}
      {sandbox && subscription?.status === "past_due" && <SandboxNotice />}
      <p>
        <Link to={MY_PRODUCTS_PATH} className="link text-sm">
          <span aria-hidden="true">← </span>
          {M.backToPurchases}
        </Link>
      </p>
      <PageHeading title={M.title} className="mt-4" />
      <AlertBox alert={reply.alert} />
      {subscription ? (
        <>
          <SubscriptionCard subscription={subscription} />
          {confirmingCancel && subscription.status === "active" && <CancelDialog />}
          <PaidMonths subscription={subscription} />
        </>
      ) : (
        <p className="card mt-6 p-6">
          Non hai un abbonamento EDU.{" "}
          <Link to={EDU_PATH} className="link">
            Scopri EDU
          </Link>
        </p>
      )}
    </div>
  );
}

function SubscriptionCard({ subscription: s }: { subscription: SubscriptionView }) {
  const navigation = useNavigation();
  const busy = navigation.state !== "idle" && navigation.formMethod?.toUpperCase() === "POST";
  const term = "text-xs font-semibold tracking-wide text-muted uppercase";
  const live = s.status === "active" || s.status === "past_due";
  return (
    <section aria-labelledby="piano" className="card mt-6 p-6">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <h2 id="piano" className="font-serif text-2xl font-bold text-brand">
          {s.planName}
        </h2>
        <span className="badge">{SUBSCRIPTION_STATUS_LABELS[s.status]}</span>
      </div>

      {s.status === "past_due" && s.retry && (
        <div role="alert" className="mt-4 rounded-md border border-accent bg-accent/5 p-4 text-sm">
          <p className="font-semibold text-accent-dark">{M.statusPastDue}</p>
          <p className="mt-1">
            {s.retry.errorMessage ?? "La banca ha rifiutato l'addebito."}{" "}
            {s.retry.at && `Riproveremo in automatico ${withArticle("il", formatDate(s.retry.at))}. `}
            Nel frattempo l'accesso a EDU è sospeso: paga ora o aggiorna la carta.
          </p>
        </div>
      )}
      {s.status === "active" && s.freeUntil && (
        <p role="status" className="mt-4 rounded-md bg-gold/20 p-4 text-sm">
          {s.freeBy === "operator"
            ? `Il servizio clienti ti ha concesso in omaggio i mesi fino ${withArticle("al", formatDate(s.freeUntil))}`
            : `Con il codice eBook+EDU che hai attivato i mesi fino ${withArticle("al", formatDate(s.freeUntil))} sono inclusi`}
          : fino ad allora non ti addebiteremo rate.
        </p>
      )}
      {s.status === "cancelled" && s.cancelledAt && (
        <p role="status" className="mt-4 rounded-md bg-gold/20 p-4 text-sm">
          Hai disdetto l'abbonamento {withArticle("il", formatDate(s.cancelledAt))}: non ti addebiteremo altre rate. L'accesso a
          EDU resta attivo fino {withArticle("al", formatDate(s.paidUntil))}
          {s.canResume && ", e fino ad allora puoi riattivarlo"}.
        </p>
      )}
      {s.status === "ended" && (
        <div className="mt-4 rounded-md bg-paper p-4 text-sm">
          <p className="font-semibold">{M.endedTitle}</p>
          <p className="mt-1">
            {s.endedReason === "payment_failed"
              ? M.endedPaymentFailed
              : s.endedReason === "refunded"
                ? M.endedRefunded
                : M.endedCancelled}{" "}
            {s.endedAt && `L'accesso a EDU si è concluso ${withArticle("il", formatDate(s.endedAt))}.`}
          </p>
          <Link to={EDU_PATH} className="button-primary mt-3">
            {M.subscribeAgain}
          </Link>
        </div>
      )}

      <dl className="mt-6 grid gap-x-8 gap-y-4 sm:grid-cols-2">
        <div>
          <dt className={term}>{M.price}</dt>
          <dd className="mt-0.5 font-semibold">
            {formatEuro(s.monthlyPriceCents)} {M.perMonth}
          </dd>
        </div>
        <div>
          <dt className={term}>{M.instalment}</dt>
          <dd className="mt-0.5">
            {s.instalment} di {s.instalments}
          </dd>
        </div>
        {s.nextCharge && (
          <div>
            <dt className={term}>{M.nextCharge}</dt>
            <dd className="mt-0.5">
              {withArticle("il", formatDate(s.nextCharge.at))} — {formatEuro(s.nextCharge.amountCents)} (rata{" "}
              {s.nextCharge.instalment} di {s.instalments})
            </dd>
          </div>
        )}
        <div>
          <dt className={term}>{M.accessUntil}</dt>
          <dd className="mt-0.5">{formatDate(s.paidUntil)}</dd>
        </div>
        <div>
          <dt className={term}>{M.card}</dt>
          <dd className="mt-0.5">
            {cardBrandLabel(s.card.brand)}
            {s.card.last4 && <> •••• {s.card.last4}</>}
          </dd>
        </div>
      </dl>
      {s.status === "active" && <p className="mt-4 text-sm text-muted">{M.renewsNote}</p>}

      <div className="mt-6 flex flex-wrap gap-3">
        {s.status === "past_due" && (
          <Form method="post">
            <button type="submit" name="intent" value="pay" className="button-primary" disabled={busy}>
              {M.payNow} ({formatEuro(s.nextCharge?.amountCents ?? s.monthlyPriceCents)})
            </button>
          </Form>
        )}
        {s.canResume && (
          <Form method="post">
            <button type="submit" name="intent" value="resume" className="button-primary" disabled={busy}>
              {M.resume}
            </button>
          </Form>
        )}
        {live && (
          <Link to={`${SUBSCRIPTION_PATH}carta/`} className="button-outline">
            {M.updateCard}
          </Link>
        )}
        {s.status === "active" && (
          <Link to={CANCEL_CONFIRMATION} className="button-outline">
            {M.cancel}
          </Link>
        )}
        {s.status === "past_due" && (
          <Form method="post">
            <button type="submit" name="intent" value="cancel" className="button-outline" disabled={busy}>
              {M.cancel}
            </button>
          </Form>
        )}
      </div>
    </section>
  );
}

/** 'Disdici' asks first: a dialog the server renders at ?disdici, its 'Annulla' a plain link back. */
function CancelDialog() {
  return (
    <ModalDialog labelledBy="disdetta-title" describedBy="disdetta-text" id="disdetta" closeTo={SUBSCRIPTION_PATH}>
      <h2 id="disdetta-title" className="font-serif text-2xl font-bold text-brand">
        {M.cancelTitle}
      </h2>
      <p id="disdetta-text" className="mt-3">
        {M.cancelText}
      </p>
      <Form method="post" action={SUBSCRIPTION_PATH} className="mt-6 flex flex-wrap justify-end gap-3">
        <Link to={SUBSCRIPTION_PATH} className="button-outline">
          {M.cancelBack}
        </Link>
        <button type="submit" name="intent" value="cancel" className="button-primary" autoFocus>
          {M.cancelConfirm}
        </button>
      </Form>
    </ModalDialog>
  );
}

function PaidMonths({ subscription }: { subscription: SubscriptionView }) {
  return (
    <section aria-labelledby="pagamenti" className="mt-10">
      <h2 id="pagamenti" className="section-title">
        {M.paymentsTitle}
      </h2>
      {subscription.paidMonths.length > 0 ? (
        <ol className="card mt-4 divide-y divide-line">
          {[...subscription.paidMonths].reverse().map((month) => (
            <li key={month.number} className="flex flex-wrap items-center justify-between gap-3 p-4 text-sm">
              <div>
                <span className="font-semibold">
                  Rata {month.instalment} di {subscription.instalments}
                </span>{" "}
                · {withArticle("dal", formatDate(month.startsAt))} {withArticle("al", formatDate(month.endsAt))} · pagata{" "}
                {withArticle("il", formatDate(month.paidAt))}
                <PaymentRefunds refunds={month.refunds} wholeCents={month.amountCents} />
              </div>
              <span className="flex items-center gap-4">
                <span className="font-semibold">{formatEuro(month.amountCents)}</span>
                {month.receiptHref && (
                  <Link to={month.receiptHref} className="button-outline">
                    {M.receipt}
                    <span className="sr-only">
                      {" "}
                      della rata {month.instalment} ({formatDate(month.startsAt)})
                    </span>
                  </Link>
                )}
              </span>
            </li>
          ))}
        </ol>
      ) : (
        <p className="mt-4 text-ink/85">{M.noPayments}</p>
      )}
    </section>
  );
}
