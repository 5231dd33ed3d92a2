// The sandbox gateway's 3-D Secure page of a card being set up (docs/payments.md, "Payments"): what
// a bank's authentication page is for a real card. The test card 4000 0025 0000 3155 comes here,
// from the checkout or from a subscription's card update; 'Autorizza' or 'Nega' posts, and the
// customer returns where the card step started with the same parameters as from Stripe.
import { redirect } from "react-router";
import type { Route } from "./+types/sandbox-3ds";
import { servicesContext } from "#shared/context.ts";
import { cardStepReturnPath, checkoutOrderPath, HOME_PATH, SUBSCRIPTION_CARD_PATH } from "#shared/links.ts";
import { SandboxAuthentication } from "#app/components/sandbox-authentication.tsx";
import { customerOf } from "#app/lib/customer.server.ts";

/** The page whose card step waits on this setup (a checkout's or a card update's), or a redirect away. */
async function pendingStep(context: Route.LoaderArgs["context"], setupId: string) {
  const { user } = customerOf(context);
  const { sandbox, payments, subscriptions, cardStep } = context.get(servicesContext);
  if (!sandbox) throw redirect(HOME_PATH);
  const orderId = await payments.orderOfSetup(user.id, setupId);
  const page = orderId
    ? checkoutOrderPath(orderId)
    : (await subscriptions.isCardUpdateOf(user.id, setupId))
      ? SUBSCRIPTION_CARD_PATH
      : null;
  if (!page) throw redirect(HOME_PATH);
  return { sandbox, cardStep, page };
}

export async function loader({ params, context }: Route.LoaderArgs) {
  const { sandbox, page } = await pendingStep(context, params.setup);
  if (!(await sandbox.awaitsAuthentication(params.setup))) throw redirect(cardStepReturnPath(page, params.setup, "failed"));
  return null;
}

export async function action({ request, params, context }: Route.ActionArgs) {
  const { sandbox, cardStep, page } = await pendingStep(context, params.setup);
  const form = await request.formData();
  const result = await sandbox.authenticate(params.setup, form.get("decision") === "approve");
  if (result.status !== "succeeded") throw redirect(cardStepReturnPath(page, params.setup, "failed"));
  throw redirect(await cardStep.settledReturn(page, params.setup));
}

export default SandboxAuthentication;
