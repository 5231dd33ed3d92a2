// The sandbox gateway's 3-D Secure page (README, "Payments"): what a bank's authentication page
// is for a real card. The test card 4000 0025 0000 3155 comes here; 'Autorizza' or 'Nega'
// posts, and the customer returns to the checkout with the same parameters as from Stripe.
import { Form, redirect } from "react-router";
import type { Route } from "./+types/sandbox-3ds";
import { servicesContext } from "../../shared/context.ts";
import { requireUser } from "../lib/auth.server";

/** The customer's order whose card step waits on this setup, or a redirect away. */
async function pendingOrder(request: Request, context: Route.LoaderArgs["context"], setupId: string) {
  const { user } = await requireUser(request, context);
  const { sandbox, payments } = context.get(servicesContext);
  const orderId = sandbox ? await payments.orderOfSetup(user.id, setupId) : null;
  if (!sandbox || !orderId) throw redirect("/");
  return { sandbox, payments, orderId };
}

export async function loader({ request, params, context }: Route.LoaderArgs) {
  const { sandbox, payments, orderId } = await pendingOrder(request, context, params.setup);
  if (!(await sandbox.awaitsAuthentication(params.setup))) throw redirect(payments.returnUrl(orderId, params.setup, "failed"));
  return null;
}

export async function action({ request, params, context }: Route.ActionArgs) {
  const { sandbox, payments, orderId } = await pendingOrder(request, context, params.setup);
  const form = await request.formData();
  const result = await sandbox.authenticate(params.setup, form.get("decision") === "approve");
  if (result.status !== "succeeded") throw redirect(payments.returnUrl(orderId, params.setup, "failed"));
  await payments.settleSetup(params.setup);
  throw redirect(payments.returnUrl(orderId, params.setup, "succeeded"));
}

export default function SandboxAuthentication() {
  return (
    <section className="mx-auto w-full max-w-md px-4 py-10">
      <title>Autenticazione 3-D Secure · Ambiente di prova</title>
      <div className="card p-6">
        <p className="kicker">Ambiente di prova</p>
        <h1 className="mt-1 font-serif text-2xl font-bold text-brand">Autenticazione 3-D Secure</h1>
        <p className="mt-3">
          La tua banca chiede di confermare il pagamento. In questo ambiente di prova scegli tu l'esito: nessun addebito è reale.
        </p>
        <Form method="post" className="mt-6 flex flex-wrap gap-3">
          <button type="submit" name="decision" value="approve" className="button-primary">
            Autorizza
          </button>
          <button type="submit" name="decision" value="deny" className="button-outline">
            Nega
          </button>
        </Form>
      </div>
    </section>
  );
}
