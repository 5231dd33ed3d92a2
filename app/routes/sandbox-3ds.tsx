// The sandbox gateway's 3-D Secure page of a card being set up (README, "Payments"): what a
// bank's authentication page is for a real card. The test card 4000 0025 0000 3155 comes here,
// from the checkout or from a subscription's card update; 'Autorizza' or 'Nega' posts, and the
// customer returns where the card step started with the same parameters as from Stripe.
import { redirect } from "react-router";
import type { Route } from "./+types/sandbox-3ds";
import { servicesContext } from "../../shared/context.ts";
import { SUBSCRIPTION_PATH } from "../../shared/links.ts";
import { SandboxAuthentication } from "../components/sandbox-authentication";
import { customerOf } from "../lib/customer.server";

/** Whose card step waits on this setup (a checkout's or a card update's), or a redirect away. */
async function pendingStep(request: Request, context: Route.LoaderArgs["context"], setupId: string) {
  const { user } = customerOf(context);
  const { sandbox, payments, subscriptions } = context.get(servicesContext);
  if (!sandbox) throw redirect("/");
  const orderId = await payments.orderOfSetup(user.id, setupId);
  if (orderId) {
    return {
      sandbox,
      settle: () => payments.settleSetup(setupId),
      back: (status: "succeeded" | "failed") => payments.returnUrl(orderId, setupId, status),
    };
  }
  if (await subscriptions.isCardUpdateOf(user.id, setupId)) {
    return {
      sandbox,
      settle: async () => undefined,
      back: (status: "succeeded" | "failed") =>
        `${SUBSCRIPTION_PATH}carta/?${new URLSearchParams({ setup_intent: setupId, redirect_status: status })}`,
    };
  }
  throw redirect("/");
}

export async function loader({ request, params, context }: Route.LoaderArgs) {
  const { sandbox, back } = await pendingStep(request, context, params.setup);
  if (!(await sandbox.awaitsAuthentication(params.setup))) throw redirect(back("failed"));
  return null;
}

export async function action({ request, params, context }: Route.ActionArgs) {
  const { sandbox, settle, back } = await pendingStep(request, context, params.setup);
  const form = await request.formData();
  const result = await sandbox.authenticate(params.setup, form.get("decision") === "approve");
  if (result.status !== "succeeded") throw redirect(back("failed"));
  await settle();
  throw redirect(back("succeeded"));
}

export default SandboxAuthentication;
