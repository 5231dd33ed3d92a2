// Guards for route loaders and actions: who is signed in, and where others are sent.
import { redirect, type RouterContextProvider } from "react-router";
import { servicesContext } from "#shared/context.ts";
import { withRedirect } from "./redirects";
import type { SessionUser, User } from "#server/accounts/service.ts";
import { HOME_PATH, LOGIN_PATH } from "#shared/links.ts";

/** `/login/?redirect=<this address>`: where a signed-out visitor of a private page goes. */
export function loginRedirect(request: Request) {
  const url = new URL(request.url);
  return redirect(withRedirect(LOGIN_PATH, url.pathname + url.search));
}

type CurrentUser = { user: SessionUser; sessionId: string } | null;
const perRequest = new WeakMap<object, Promise<CurrentUser>>();

/**
 * The signed-in user and session of this request, looked up once however many loaders ask (the
 * root's and the page's): the context object is new for every request. It is the user as the
 * request began; actions that change the user answer with a redirect, so pages see the change.
 */
export function currentUser(request: Request, context: Readonly<RouterContextProvider>): Promise<CurrentUser> {
  let found = perRequest.get(context);
  if (!found) {
    found = context.get(servicesContext).auth.currentUser(request);
    perRequest.set(context, found);
  }
  return found;
}

export async function getUser(request: Request, context: Readonly<RouterContextProvider>): Promise<SessionUser | null> {
  return (await currentUser(request, context))?.user ?? null;
}

/** Sign-in, registration and reset pages are for signed-out visitors only. */
export async function requireSignedOut(request: Request, context: Readonly<RouterContextProvider>, to = HOME_PATH) {
  if (await getUser(request, context)) throw redirect(to);
}

/** The initials of the header's user button: given and family name, or "U". */
export function initialsOf(user: Pick<User, "firstname" | "lastname">): string {
  const initials = `${user.firstname?.trim()[0] ?? ""}${user.lastname?.trim()[0] ?? ""}`.toUpperCase();
  return initials || "U";
}
