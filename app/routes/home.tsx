import { redirect } from "react-router";
import { revalidateUnlessNetworkFailed } from "#app/lib/communication-failure.ts";
import { DASHBOARD_PATH } from "#shared/links.ts";

export function loader() {
  return redirect(DASHBOARD_PATH);
}

// A form of the header's dialogs may fail on the network here: see lib/communication-failure.
export const shouldRevalidate = revalidateUnlessNetworkFailed;
