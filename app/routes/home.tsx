import { redirect } from "react-router";
import { revalidateUnlessNetworkFailed } from "../lib/communication-failure";

export function loader() {
  return redirect("/dashboard/");
}

// A form of the header's dialogs may fail on the network here: see lib/communication-failure.
export const shouldRevalidate = revalidateUnlessNetworkFailed;
