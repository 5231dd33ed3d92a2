import { data } from "react-router";
import { NotFound } from "../components/not-found";
import { revalidateUnlessNetworkFailed } from "../lib/communication-failure";

export function loader() {
  return data(null, { status: 404 });
}

// A form of the header's dialogs may fail on the network here: see lib/communication-failure.
export const shouldRevalidate = revalidateUnlessNetworkFailed;

export default NotFound;
