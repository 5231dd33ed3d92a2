// The signed-in customer's pages as React Router runs them: their loaders and actions behind the
// customer layout's middleware (app/routes/customer-layout.tsx), which signs visitors in first.
import { requireCustomer } from "#app/lib/customer.server.ts";

type Handler = (args: never) => unknown;
type SignedIn<H> = H extends (args: never) => infer R ? (args: unknown) => Promise<Awaited<R>> : H;

/** A customer page's loader or action, run after the layout's middleware. */
export function behindSignIn<H extends Handler>(handler: H): SignedIn<H> {
  return ((args: Parameters<H>[0]) => requireCustomer(args, async () => (await handler(args)) as never)) as SignedIn<H>;
}

/** A customer page's module, its loader and action run after the layout's middleware. */
export function customerPage<M extends { loader?: Handler; action?: Handler }>(
  route: M,
): { [K in keyof M]: K extends "loader" | "action" ? SignedIn<M[K]> : M[K] } {
  return {
    ...route,
    ...(route.loader && { loader: behindSignIn(route.loader) }),
    ...(route.action && { action: behindSignIn(route.action) }),
  } as never;
}
