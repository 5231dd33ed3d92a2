// /oauthcb: the sign-in callback. Opens the portal session and goes back where the user was.
import { data, redirect } from "react-router";
import { requestContext, servicesContext } from "#shared/context.ts";
import type { Route } from "./+types/oauthcb";
import { AuthError } from "#app/components/auth-error.tsx";

export async function loader({ request, context }: Route.LoaderArgs) {
  try {
    const { ip } = context.get(requestContext);
    const { returnTo, headers } = await context.get(servicesContext).auth.finishSignIn(request, ip);
    return redirect(returnTo, { headers });
  } catch (error) {
    context.get(requestContext).log.warn({ err: error }, "sign-in callback failed");
    return data({ failed: true }, { status: 400 });
  }
}

export default function SignInCallback() {
  return <AuthError message="Sign-in failed" />;
}
