// /logout/: POST signs out (portal session, then the provider's through RP-initiated logout);
// the provider sends the browser back here (GET) and we continue to /login/?redirect=<where it was>.
import { data, redirect } from "react-router";
import { requestContext, servicesContext } from "../context";
import { safeRedirectTarget } from "../lib/redirects";
import type { Route } from "./+types/logout";
import { AuthError } from "../components/auth-error";

export function loader({ request }: Route.LoaderArgs) {
  const back = safeRedirectTarget(new URL(request.url).searchParams.get("state"));
  return redirect(`/login/?${new URLSearchParams({ redirect: back })}`);
}

export async function action({ request, context }: Route.ActionArgs) {
  const form = await request.formData();
  try {
    return await context.get(servicesContext).auth.signOut(request, safeRedirectTarget(String(form.get("redirect") ?? "/")));
  } catch (error) {
    context.get(requestContext).log.error({ err: error }, "sign-out failed");
    return data({ failed: true }, { status: 500 });
  }
}

export default function Logout() {
  return <AuthError message="Sign-out failed" />;
}
