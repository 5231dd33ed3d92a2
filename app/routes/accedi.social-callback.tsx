// /accedi/social/callback — the redirect URI registered at the upstream provider.
import { data, redirect } from "react-router";
import { MINIMAL_CHROME } from "#app/lib/page-chrome.ts";
import { requestContext, servicesContext } from "#shared/context.ts";
import type { Route } from "./+types/accedi.social-callback";
import { AuthError } from "#app/components/auth-error.tsx";
import { socialLoginPath } from "#shared/links.ts";

export const handle = MINIMAL_CHROME;

export async function loader({ request, context }: Route.LoaderArgs) {
  const { socialLogin } = context.get(servicesContext);
  if (!socialLogin.enabled) throw new Response("Not Found", { status: 404 });
  try {
    const { uid, setCookie } = await socialLogin.complete(request);
    const headers = new Headers();
    for (const c of setCookie) headers.append("Set-Cookie", c);
    return redirect(socialLoginPath(uid), { headers });
  } catch (error) {
    context.get(requestContext).log.warn({ err: error }, "social login callback failed");
    return data({ failed: true }, { status: 400 });
  }
}

export default function SocialLoginCallback() {
  return <AuthError message="Sign-in failed" />;
}
