// /create-checkout/:productcode (spec §2, §4): the customer's open order for the product, or a
// new one, then its checkout. The portal's buy buttons post here; a plain link (a mail, another
// site) gets the product and one button that posts, since a GET changes nothing. An open order
// is reused, so links, reloads and double clicks never pile up orders.
import { data, Form, redirect } from "react-router";
import type { Route } from "./+types/create-checkout";
import { servicesContext } from "#shared/context.ts";
import { formatEuro } from "#shared/euro.ts";
import { checkoutOrderPath, DASHBOARD_PATH } from "#shared/links.ts";
import { safeRedirectTarget } from "#shared/safe-redirect.ts";
import { AlertBox } from "#app/components/form-fields.tsx";
import { customerOf } from "#app/lib/customer.server.ts";
import { CHECKOUT_MESSAGES as M } from "#shared/checkout-messages.ts";
import { PageHeading } from "#app/components/page-heading.tsx";

/** Where 'Torna indietro' leads: the page the customer came from, if it is the portal's. */
function backTarget(request: Request): string {
  const referer = request.headers.get("referer");
  if (!referer) return DASHBOARD_PATH;
  try {
    const from = new URL(referer);
    if (from.origin !== new URL(request.url).origin) return DASHBOARD_PATH;
    return safeRedirectTarget(from.pathname + from.search, DASHBOARD_PATH);
  } catch {
    return DASHBOARD_PATH;
  }
}

const unavailable = (request: Request, description: string) =>
  data({ error: description, back: backTarget(request), product: null }, { status: 404 });

export async function loader({ request, params, context }: Route.LoaderArgs) {
  const { user } = customerOf(context);
  const preview = await context.get(servicesContext).checkout.preview(user.id, params.productcode);
  if (!preview) return unavailable(request, M.productUnavailable);
  if (preview.openOrderId) throw redirect(checkoutOrderPath(preview.openOrderId));
  return { error: null, back: backTarget(request), product: preview.product };
}

export async function action({ request, params, context }: Route.ActionArgs) {
  const { user } = customerOf(context);
  const opened = await context.get(servicesContext).checkout.open(user.id, params.productcode);
  if (opened.ok) throw redirect(checkoutOrderPath(opened.orderId));
  return unavailable(request, opened.reason === "edu_active" ? M.eduAlreadyActive : M.productUnavailable);
}

export default function CreateCheckout({ loaderData, actionData }: Route.ComponentProps) {
  const { error, back, product } = actionData ?? loaderData;
  return (
    <section className="mx-auto w-full max-w-xl px-4 py-10">
      <PageHeading title="Acquista" />
      {error ? (
        <>
          <AlertBox alert={{ title: M.errorTitle, text: error }} />
          <a href={back} className="button-outline mt-6">
            {M.back}
          </a>
        </>
      ) : (
        product && (
          <Form method="post" className="card mt-6 p-6">
            <p className="kicker">{product.typeName}</p>
            <h2 className="mt-1 font-serif text-xl font-bold">{product.name}</h2>
            <p className="mt-2 text-lg font-semibold">
              {product.monthlyPriceCents !== null
                ? `${formatEuro(product.monthlyPriceCents)} al mese`
                : formatEuro(product.priceCents)}
            </p>
            <div className="mt-6 flex flex-wrap gap-3">
              <button type="submit" className="button-primary">
                Procedi all'acquisto
              </button>
              <a href={back} className="button-outline">
                {M.back}
              </a>
            </div>
          </Form>
        )
      )}
    </section>
  );
}
