// /accedi/:uid/social — the social login of the login screen `uid`. First visit: off to the
// upstream provider. Back from its callback (the account proven): the login interaction finishes.
import { data, redirect } from "react-router";
import { MINIMAL_CHROME } from "#app/lib/page-chrome.ts";
import { requestContext, servicesContext } from "#shared/context.ts";
import type { Route } from "./+types/accedi.social";
import { AuthError } from "#app/components/auth-error.tsx";

export const handle = MINIMAL_CHROME;

export async function loader({ params, request, context }: Route.LoaderArgs) {
  const { socialLogin, identity, audit } = context.get(servicesContext);
  const { ip, log } = context.get(requestContext);
  const cookie = request.headers.get("cookie");
  if (!socialLogin.enabled) throw new Response("Not Found", { status: 404 });
  try {
    const proven = await socialLogin.provenAccount(request, params.uid);
    if (proven) {
      const returnTo = await identity.finishLogin(params.uid, cookie, proven.accountId);
      if (!returnTo) return data({ failed: true }, { status: 400, headers: { "Set-Cookie": proven.clearCookie } });
      await audit.record("sign_in_success", { userId: proven.accountId, ip });
      return redirect(returnTo, { headers: { "Set-Cookie": proven.clearCookie, "X-Remix-Reload-Document": "true" } });
    }
    if (!(await identity.getLoginInteraction(params.uid, cookie))) return data({ failed: true }, { status: 400 });
    const { url, setCookie } = await socialLogin.start(params.uid);
    return redirect(url, { headers: { "Set-Cookie": setCookie, "X-Remix-Reload-Document": "true" } });
  } catch (error) {
    log.warn({ err: error }, "social login failed");
    return data({ failed: true }, { status: 502 });
  }
}

export default function SocialLogin() {
  return <AuthError message="Sign-in failed" />;
}
