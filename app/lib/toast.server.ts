// Toasts after a redirect (see server/lib/flash-toast.ts): the root middleware reads and clears
// the cookie; actions answer with redirectWithToast.
import { createContext, redirect, replace, type MiddlewareFunction, type RouterContextProvider } from "react-router";
import { servicesContext } from "#shared/context.ts";
import type { Toast } from "#server/lib/flash-toast.ts";

export type { Toast } from "#server/lib/flash-toast.ts";

/** The toast arriving with this request. */
export const toastContext = createContext<Toast | null>(null);

export const toastMiddleware: MiddlewareFunction<Response> = async ({ request, context }, next) => {
  const { flash } = context.get(servicesContext);
  context.set(toastContext, await flash.read(request));
  const response = await next();
  // A redirect passes the toast on (e.g. / → /dashboard/); the page that shows it clears it.
  const isRedirect = response.status >= 300 && response.status < 400;
  if (flash.isPresent(request) && !isRedirect) response.headers.append("Set-Cookie", await flash.clear());
  return response;
};

/**
 * A redirect that shows `toast` on the next page. `replace`: a client-side navigation replaces
 * the current history entry instead of adding one (browsers without JavaScript ignore it).
 */
export async function redirectWithToast(
  context: Readonly<RouterContextProvider>,
  url: string,
  toast: Toast,
  { replace: replaceEntry = false, ...init }: ResponseInit & { replace?: boolean } = {},
) {
  const headers = new Headers(init.headers);
  headers.append("Set-Cookie", await context.get(servicesContext).flash.set(toast));
  return (replaceEntry ? replace : redirect)(url, { ...init, headers });
}
