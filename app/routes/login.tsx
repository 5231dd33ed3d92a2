// /login/: starts the redirect sign-in at once (spec §2), coming back to `redirect`. With
// `via=social` (the registration page's social button) the login screen hands over to social login.
import { data, redirect } from "react-router";
import { requestContext, servicesContext } from "#shared/context.ts";
import { safeRedirectTarget } from "#app/lib/redirects.ts";
import type { Route } from "./+types/login";
import { AuthError } from "#app/components/auth-error.tsx";
import { getUser } from "#app/lib/auth.server.ts";

export async function loader({ request, context }: Route.LoaderArgs) {
  const params = new URL(request.url).searchParams;
  const returnTo = safeRedirectTarget(params.get("redirect"));
  const { auth, socialLogin } = context.get(servicesContext);
  if (await getUser(request, context)) throw redirect(returnTo);
  try {
    return await auth.startSignIn(request, returnTo);
  } catch (error) {
    if (error instanceof Response) {
      if (params.get("via") === "social" && socialLogin.enabled)
        error.headers.append("Set-Cookie", await socialLogin.markIntent());
      throw error;
    }
    context.get(requestContext).log.error({ err: error }, "sign-in could not start");
    return data({ failed: true }, { status: 503 });
  }
}

export default function Login() {
  return <AuthError message="Sign-in failed" />;
}
