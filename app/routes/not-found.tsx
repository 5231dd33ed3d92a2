import { data } from "react-router";
import { NotFound } from "#app/components/not-found.tsx";
import { revalidateUnlessNetworkFailed } from "#app/lib/communication-failure.ts";

export function loader() {
  return data(null, { status: 404 });
}

// A form of the header's dialogs may fail on the network here: see lib/communication-failure.
export const shouldRevalidate = revalidateUnlessNetworkFailed;

export default NotFound;
