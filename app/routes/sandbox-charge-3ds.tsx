// The sandbox gateway's 3-D Secure page of a charge made with the customer present: a month of
// the EDU subscription paid with 'Paga ora' when the bank wants it authenticated. 'Autorizza' or
// 'Nega' posts, and the customer returns to the subscription's page with the charge's id, as
// Stripe's page of a PaymentIntent sends them back.
import { redirect } from "react-router";
import type { Route } from "./+types/sandbox-charge-3ds";
import { servicesContext } from "#shared/context.ts";
import { HOME_PATH, SUBSCRIPTION_PATH } from "#shared/links.ts";
import { SandboxAuthentication } from "#app/components/sandbox-authentication.tsx";
import { customerOf } from "#app/lib/customer.server.ts";

async function pendingCharge(request: Request, context: Route.LoaderArgs["context"], chargeId: string) {
  const { user } = customerOf(context);
  const { sandbox, subscriptions } = context.get(servicesContext);
  if (!sandbox || !(await subscriptions.isMonthChargeOf(user.id, chargeId))) throw redirect(HOME_PATH);
  return sandbox;
}

const back = (chargeId: string) => `${SUBSCRIPTION_PATH}?${new URLSearchParams({ payment_intent: chargeId })}`;

export async function loader({ request, params, context }: Route.LoaderArgs) {
  const sandbox = await pendingCharge(request, context, params.charge);
  if (!(await sandbox.chargeAwaitsAuthentication(params.charge))) throw redirect(back(params.charge));
  return null;
}

export async function action({ request, params, context }: Route.ActionArgs) {
  const sandbox = await pendingCharge(request, context, params.charge);
  const form = await request.formData();
  await sandbox.authenticateCharge(params.charge, form.get("decision") === "approve");
  throw redirect(back(params.charge));
}

export default SandboxAuthentication;
