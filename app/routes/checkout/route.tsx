// /checkout/:order (spec §2, §4, §5, §8): the order's owner only (anyone else goes to /). A
// `new` order shows the form; 'Completa l'acquisto' checks it in §5's order (the first message
// in the dialog 'Errore', each beside its field), writes it and starts the card payment (the
// use-case the API's checkpaymenthub shares, server/commerce/start-payment.ts). The
// card step (server/payments/card-step.ts) returns here with the gateway's parameters
// (setup_intent, redirect_status), which are only hints: the loader reads the setup and the
// attempt. A paid order shows 'Ordine confermato'; a closed one 'Ordine annullato/scaduto o
// interrotto'. Stripe's hosted card page returns through /pagamenti/carta/ritorno/.
import { redirect } from "react-router";
import type { Route } from "./+types/route";
import { servicesContext } from "#shared/context.ts";
import { CHECKOUT_MESSAGES as M, START_PAYMENT_REFUSALS } from "#shared/checkout-messages.ts";
import { checkoutOrderPath, HOME_PATH, STRIPE_CARD_PAGE_RETURN_PATH } from "#shared/links.ts";
import { cardSchema, readCardStepForm } from "#app/lib/card-step.server.ts";
import { customerOf } from "#app/lib/customer.server.ts";
import { refusalOf, type FormReply } from "#app/lib/form-reply.ts";
import { documentTitle } from "#app/components/page-title.tsx";
import { parseForm, refuse } from "#app/lib/form-reply.server.ts";
import { shouldRevalidateCardStep } from "#app/lib/use-card-step.ts";
import { CheckoutForm } from "./checkout-form";
import { cardStepCheck, checkoutFormSchema, couponSchema } from "./checkout-form.server";
import { Closed, Confirmed } from "./order-outcome";
import type { Notice } from "./error-dialog";

export async function loader({ request, params, context }: Route.LoaderArgs) {
  const { user } = customerOf(context);
  const { checkout, payments, cardStep } = context.get(servicesContext);
  const order = await checkout.view(user.id, params.order);
  if (!order) throw redirect(HOME_PATH);

  // The card step's return (spec §4): what the dialog says, from the setup and the attempt.
  const back = await cardStep.readReturn(user.id, new URL(request.url).searchParams);
  let returned: { setupId: string; redirectStatus: string; setupStatus: string } | null = null;
  let notice: Notice | null = null;
  /** The open attempt's card step is done at the gateway though nothing has checked it yet: the page verifies the payment. */
  let cardStepDone = false;
  const setup =
    back.kind === "setup" && order.status !== "payed" ? await payments.setupState(user.id, order.id, back.setupId) : null;
  if (back.kind === "setup" && setup) {
    returned = { setupId: back.setupId, redirectStatus: back.redirectStatus, setupStatus: setup.status };
    const attempt = order.attempt?.setupId === back.setupId ? order.attempt : null;
    cardStepDone = attempt?.status === "awaiting_customer" && (setup.status === "succeeded" || setup.status === "processing");
    if (attempt?.status === "failed") notice = { title: M.errorTitle, text: M.cardPaymentFailed, detail: attempt.errorMessage };
    else if (attempt?.status === "canceled" || setup.status === "canceled")
      notice = { title: M.errorTitle, text: M.cardPaymentCancelled };
    else if (setup.status.startsWith("requires_") && setup.errorMessage)
      notice = { title: M.errorTitle, text: setup.errorMessage };
  }
  return { order, returned, notice, cardStepDone, sandbox: cardStep.sandbox, stripeKey: cardStep.publishableKey };
}

const INTENTS = ["pay", "coupon-apply", "coupon-remove", "check", "reset"] as const;

/** A refusal of 'Completa l'acquisto': the dialog 'Errore' says the first problem. */
function refusePayment(reply: FormReply<string>, status = 400) {
  const first = Object.values(reply.fieldErrors ?? {})[0];
  return refuse<string>({ ...reply, alert: reply.alert ?? { title: M.errorTitle, text: first ?? M.paymentCancelled } }, status);
}
const refuseWith = (text: string, values?: FormReply<string>["values"], status = 400) =>
  refusePayment({ alert: { title: M.errorTitle, text }, values }, status);

export async function action({ request, params, context }: Route.ActionArgs) {
  const { user } = customerOf(context);
  const { checkout, payments, startPayment, cardStep, clock } = context.get(servicesContext);
  const form = await request.formData();
  const intent = INTENTS.find((i) => i === form.get("intent")) ?? "pay";
  const viaFetcher = form.get("mode") === "fetch";
  const page = checkoutOrderPath(params.order);
  const order = await checkout.view(user.id, params.order);
  if (!order) throw redirect(HOME_PATH);

  switch (intent) {
    case "coupon-apply": {
      // Read by parseForm like every field, so a NUL is the field's error, not a query's.
      const parsed = await parseForm(form, couponSchema);
      if (!parsed.ok) return refusePayment(parsed.reply);
      await checkout.applyCoupon(user.id, order.id, parsed.data.couponcode);
      throw redirect(page);
    }
    case "coupon-remove":
      await checkout.removeCoupon(user.id, order.id);
      throw redirect(page);
    case "check": {
      const result = await payments.check(user.id, order.id);
      if (viaFetcher) return { check: result };
      throw redirect(page);
    }
    case "reset":
      await payments.reset(user.id, order.id);
      if (viaFetcher) return { reset: true };
      throw redirect(page);
    case "pay":
      break;
  }

  const { inPage, widgetProblem, cardNumber } = readCardStepForm(form, cardStep);
  // The card step waits for another card (declined at setup, authentication failed): only the card.
  let setupId = order.status === "waitforpayment" ? await payments.pendingSetup(user.id, order.id) : null;
  if (setupId !== null) {
    if (cardStep.sandbox) {
      const parsed = await parseForm(form, cardSchema(clock()));
      if (!parsed.ok) return refusePayment(parsed.reply);
    } else if (widgetProblem) {
      return refuseWith(widgetProblem);
    }
  } else {
    // Checking the card step may have closed the order (EDU active meanwhile): its page says why.
    if (order.status === "waitforpayment" && (await checkout.view(user.id, order.id))?.status !== "waitforpayment")
      throw redirect(page);
    // Start the payment, the use-case the API's checkpaymenthub shares: its refusals, its words.
    const parsed = await parseForm(form, checkoutFormSchema);
    if (!parsed.ok) return refusePayment(parsed.reply);
    const started = await startPayment({
      userId: user.id,
      order,
      fields: parsed.data,
      cardStep: cardStepCheck(parsed.data, { sandboxCard: cardStep.sandbox, now: clock(), widgetProblem }),
    });
    if (!started.ok) {
      if (started.reason === "invalid") {
        const alert = started.message ? { title: M.errorTitle, text: started.message } : undefined;
        return refusePayment({ fieldErrors: started.fieldErrors, values: parsed.values, alert });
      }
      const { message, status } = START_PAYMENT_REFUSALS[started.reason];
      return refuseWith(message, parsed.values, status);
    }
    setupId = started.setupId;
  }

  const next = await cardStep.begin(setupId, { page, hostedReturn: STRIPE_CARD_PAGE_RETURN_PATH, inPage, cardNumber });
  switch (next.kind) {
    case "in_page":
      return { cardStep: { clientSecret: next.clientSecret, returnUrl: next.returnUrl } };
    case "redirect":
      throw redirect(next.to, 303);
    case "refused":
      // The return shows the bank's message, as after Stripe's own card step.
      throw redirect(next.returnTo, 303);
    case "unavailable":
      // The order waits for its card step: the customer can try again (or give up) from the page.
      return refuseWith(M.gatewayUnavailable, undefined, 503);
  }
}

export { clientAction } from "#app/lib/form-route.ts";
export const shouldRevalidate = shouldRevalidateCardStep;

export default function Checkout({ loaderData, actionData }: Route.ComponentProps) {
  const { order } = loaderData;
  const open = order.status === "new" || order.status === "waitforpayment";
  // Each view its own title: what the customer reads in the tab and hears on arrival.
  const title = order.status === "payed" ? M.confirmedTitle : open ? "Checkout" : M.closedTitle;
  return (
    <section className="mx-auto w-full max-w-6xl px-4 py-8">
      <title>{documentTitle(title, open && Boolean(refusalOf(actionData)))}</title>
      {order.status === "payed" ? (
        <Confirmed orderCode={order.orderCode} />
      ) : open ? (
        <CheckoutForm data={loaderData} actionData={actionData} />
      ) : (
        <Closed closed={order.closed} />
      )}
    </section>
  );
}
