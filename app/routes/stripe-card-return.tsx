// Where Stripe's hosted card page (the card step without JavaScript) sends the customer back:
// /pagamenti/carta/ritorno/?session_id=cs_… . The session is read from Stripe, never trusted from
// the address: it must be complete, of the signed-in customer, for an attempt of theirs, and that
// attempt then adopts the session's SetupIntent (server/payments/stripe-card-step.ts). The customer
// goes on to the checkout's return, with the same parameters as from Stripe.js (setup_intent,
// redirect_status), where the page checks and settles the payment by POST as usual. Anyone else,
// or a session that is not one, goes to /.
//
// A GET that writes: Stripe sends the customer here by GET. What it writes is what Stripe states
// (this session's SetupIntent belongs to this attempt), as the setup_intent.succeeded webhook
// does; repeating it changes nothing, and no money moves here.
import { redirect } from "react-router";
import type { Route } from "./+types/stripe-card-return";
import { servicesContext } from "#shared/context.ts";
import { cardStepReturnPath, checkoutOrderPath, HOME_PATH } from "#shared/links.ts";
import { customerOf } from "#app/lib/customer.server.ts";

export async function loader({ request, context }: Route.LoaderArgs) {
  const { user } = customerOf(context);
  const { stripeCardStep } = context.get(servicesContext);
  const sessionId = new URL(request.url).searchParams.get("session_id") ?? "";
  const back = stripeCardStep ? await stripeCardStep.hostedReturn(user.id, sessionId) : null;
  if (!back) throw redirect(HOME_PATH);
  // The attempt no longer waits for a card (given up, or paid another way): the order shows where it stands.
  if (!back.setupId) throw redirect(checkoutOrderPath(back.orderId));
  throw redirect(cardStepReturnPath(checkoutOrderPath(back.orderId), back.setupId, back.redirectStatus));
}
