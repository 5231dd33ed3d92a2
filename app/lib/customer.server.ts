// The signed-in customer's pages sit under one layout route (app/routes/customer-layout.tsx)
// whose middleware signs visitors in first: a signed-out visitor goes to the sign-in, which
// comes back to the address asked for, and a signed-out POST reaches no action. The loaders
// and actions below it read the customer from the context.
import { createContext, type MiddlewareFunction, type RouterContextProvider } from "react-router";
import { currentUser, loginRedirect } from "./auth.server";
import type { SessionUser } from "#server/accounts/service.ts";

type Customer = { user: SessionUser; sessionId: string };

const customerContext = createContext<Customer>();

export const requireCustomer: MiddlewareFunction<Response> = async ({ request, context }, next) => {
  const current = await currentUser(request, context);
  if (!current) throw loginRedirect(request);
  context.set(customerContext, current);
  return next();
};

/** The signed-in customer and their session, as the layout's middleware found them. */
export function customerOf(context: Readonly<RouterContextProvider>): Customer {
  return context.get(customerContext);
}

/**
 * The loader of a customer's page that needs no data: a client-side navigation asks the server
 * only for a route with a loader, and only then does the layout's middleware run.
 */
export function signInFirst() {
  return null;
}
