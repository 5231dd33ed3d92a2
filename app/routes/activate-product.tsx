// /prodotti/attiva — where 'ESPANDI IL LIBRO' posts. With JavaScript the modal's fetchers call
// it (mode=fetch) to check a code as it is typed and to activate it; without JavaScript the
// modal's form posts here. Either way a good code goes to the dashboard with the success toast,
// and a bad one gets the invalid mark (without JavaScript, on this page). Only signed-in
// customers; failures are rate limited by the service.
import { data } from "react-router";
import type { Route } from "./+types/activate-product";
import { ActivationIntro } from "#app/components/activation-dialog.tsx";
import {
  ACTIVATION_CODE_FIELD_ID,
  ActivationForm,
  MARK_TEXT,
  type ActivationResult,
  type CodeMark,
} from "#app/components/activation-form.tsx";
import { ErrorSummary } from "#app/components/error-summary.tsx";
import { documentTitle } from "#app/components/page-title.tsx";
import { ACTIVATION_REFUSALS, type ActivationRefusal } from "#shared/activation-refusals.ts";
import { requestContext, servicesContext } from "#shared/context.ts";
import { customerOf, signInFirst } from "#app/lib/customer.server.ts";
import { MESSAGES } from "#shared/messages.ts";
import { redirectWithToast } from "#app/lib/toast.server.ts";
import { formatDate } from "#shared/format.ts";
import { replyOf } from "#app/lib/communication-failure.ts";
import { DASHBOARD_PATH } from "#shared/links.ts";

/** Longer input cannot be a code; it is refused before any lookup. */
const MAX_CODE_LENGTH = 64;

export const loader = signInFirst;

export async function action({
  request,
  context,
}: Route.ActionArgs): Promise<ActivationResult | Response | ReturnType<typeof refusedCode>> {
  const { user } = customerOf(context);
  const form = await request.formData();
  const code = String(form.get("code") ?? "").trim();
  const viaFetcher = form.get("mode") === "fetch";
  // Empty: no mark, and Conferma does nothing (spec §5).
  if (code === "") return { state: "empty", code };
  const verifying = form.get("intent") === "verify";
  if (code.length > MAX_CODE_LENGTH) {
    const cut = code.slice(0, MAX_CODE_LENGTH);
    return verifying ? { state: "invalid", code: cut } : refusedCode("invalid", cut);
  }

  const { activation } = context.get(servicesContext).library;
  const who = { userId: user.id, ip: context.get(requestContext).ip, code };
  // A check is no refusal (the API's order_verify_codiceattivazione answers false): its mark only.
  if (verifying) {
    const verdict = await activation.verify(who);
    return { state: verdict === "already_redeemed" ? "already" : verdict, code };
  }

  const result = await activation.activate(who);
  // The refusal's status is the table's, the API's too; the form shows the table's message.
  if (!result.ok) return refusedCode(result.reason, code);
  // The router follows a fetcher's redirect as a navigation, whose data brings the toast. It
  // replaces the modal's history entry (…?show=activateProduct), so Back does not reopen it.
  return redirectWithToast(
    context,
    DASHBOARD_PATH,
    {
      type: "success",
      title: MESSAGES.productActivated,
      message: `${result.productName}: accesso fino al ${formatDate(result.expiresAt)}.`,
    },
    { replace: viaFetcher },
  );
}

/** A code not redeemed: its mark, with the status both doors answer. */
function refusedCode(reason: ActivationRefusal, code: string) {
  const state: CodeMark = reason === "already_redeemed" ? "already" : "invalid";
  return data<ActivationResult>({ state, code }, { status: ACTIVATION_REFUSALS[reason].status });
}

export { clientAction, shouldRevalidate } from "#app/lib/form-route.ts";

export default function ActivateProduct({ actionData }: Route.ComponentProps) {
  const result = replyOf(actionData);
  // A refused code (without JavaScript, the reply is this page): the title says so and the error
  // summary, first after the heading, links to the field, as on every refused form.
  const refusal = result?.state === "invalid" || result?.state === "already" ? MARK_TEXT[result.state] : undefined;
  return (
    <section className="mx-auto max-w-lg px-4 py-12">
      <title>{documentTitle(MESSAGES.activationTitle, refusal !== undefined)}</title>
      <div className="card p-6 md:p-8">
        <ActivationIntro heading="h1" />
        <ErrorSummary errors={{ [ACTIVATION_CODE_FIELD_ID]: refusal }} />
        <ActivationForm cancelTo={DASHBOARD_PATH} result={result} />
      </div>
    </section>
  );
}
