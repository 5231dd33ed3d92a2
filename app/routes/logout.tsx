// /logout/: POST signs out in one step (the portal session and the identity provider's behind it)
// and continues to /login/?redirect=<where it was>. A GET changes nothing.
import { data, redirect } from "react-router";
import { requestContext, servicesContext } from "#shared/context.ts";
import { safeRedirectTarget } from "#app/lib/redirects.ts";
import type { Route } from "./+types/logout";
import { AuthError } from "#app/components/auth-error.tsx";
import { HOME_PATH } from "#shared/links.ts";

export function loader() {
  return redirect(HOME_PATH);
}

export async function action({ request, context }: Route.ActionArgs) {
  const form = await request.formData();
  const returnTo = safeRedirectTarget(String(form.get("redirect") ?? HOME_PATH));
  try {
    return await context.get(servicesContext).auth.signOut(request, returnTo);
  } catch (error) {
    context.get(requestContext).log.error({ err: error }, "sign-out failed");
    return data({ failed: true }, { status: 500 });
  }
}

export { clientAction, shouldRevalidate } from "#app/lib/form-route.ts";

export default function Logout() {
  return <AuthError message="Sign-out failed" />;
}
