// What every route with a form exports, said in one line:
//
//   export { clientAction, shouldRevalidate } from "#app/lib/form-route.ts";
//
// A submission lost on the network keeps the page and what was typed, the root shows 'Errore di
// comunicazione', and the loaders are not asked again (communication-failure.ts). A route whose
// revalidation has more to it takes `clientAction` alone and composes its own shouldRevalidate
// with revalidateUnlessNetworkFailed (as the card step does, lib/use-card-step.ts).
import { keepFormOnNetworkFailure, type NETWORK_FAILURE } from "./communication-failure";

export { revalidateUnlessNetworkFailed as shouldRevalidate } from "./communication-failure";

/**
 * The form's submission, through fetch, or NETWORK_FAILURE when no answer arrived. Its type names
 * only NETWORK_FAILURE: React Router types a route's action data as its action's data or its
 * clientAction's, so the route's own action types the answers (a route's clientAction can name
 * neither, being shared).
 */
export function clientAction({ serverAction }: { serverAction: () => Promise<unknown> }) {
  return keepFormOnNetworkFailure(serverAction) as Promise<typeof NETWORK_FAILURE>;
}
