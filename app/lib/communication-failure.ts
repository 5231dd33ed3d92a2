// With JavaScript, forms are submitted through fetch. When that fails (offline, a dropped
// connection) React Router would replace the page with its error boundary and lose what was
// typed. Every form route's clientAction goes through `keepFormOnNetworkFailure` instead: the
// page stays as it is, and the root shows the alert 'Errore di comunicazione' (spec §8). The
// loaders are not asked again after such a failure (`revalidateUnlessNetworkFailed`, exported as
// shouldRevalidate by the root and every page): they would fail the same way. A form route says
// both in one line (lib/form-route.ts). The alert's words are shared/communication-failure.ts.
import { useSyncExternalStore } from "react";
import type { ShouldRevalidateFunctionArgs } from "react-router";

/** The action data of a submission that never reached the server. */
export const NETWORK_FAILURE = Object.freeze({ networkFailure: true as const });

let lastFailure = 0;
const listeners = new Set<() => void>();

export async function keepFormOnNetworkFailure<T>(serverAction: () => Promise<T>): Promise<T | typeof NETWORK_FAILURE> {
  try {
    return await serverAction();
  } catch (error) {
    // fetch rejects with a TypeError when no answer arrived; answers (errors included) go on.
    if (!(error instanceof TypeError)) throw error;
    lastFailure += 1;
    for (const listener of listeners) listener();
    return NETWORK_FAILURE;
  }
}

/** The action data a form shows: a network failure has none (the root's alert tells it). */
export function replyOf<T>(actionData: T | typeof NETWORK_FAILURE | undefined): T | undefined {
  return actionData === NETWORK_FAILURE ? undefined : (actionData as T | undefined);
}

export function revalidateUnlessNetworkFailed({ actionResult, defaultShouldRevalidate }: ShouldRevalidateFunctionArgs) {
  return actionResult === NETWORK_FAILURE ? false : defaultShouldRevalidate;
}

/** How many submissions have failed on the network so far (0 on the server and before any). */
export function useCommunicationFailures(): number {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => lastFailure,
    () => 0,
  );
}
