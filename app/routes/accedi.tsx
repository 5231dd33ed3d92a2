// /accedi/:uid — the identity provider's login screen, rendered by the portal (spec §2 "/login/":
// a separate login screen with e-mail and password and the social login link).
import { useState } from "react";
import { MINIMAL_CHROME } from "#app/lib/page-chrome.ts";
import { data, Form, redirect } from "react-router";
import { z } from "zod";
import { requestContext, servicesContext, settingsContext } from "#shared/context.ts";
import type { Route } from "./+types/accedi";
import { AuthError } from "#app/components/auth-error.tsx";
import { AlertBox, TextField } from "#app/components/form-fields.tsx";
import { readReply } from "#app/lib/form-reply.ts";
import { parseForm, refuse, secret } from "#app/lib/form-reply.server.ts";
import { MESSAGES } from "#shared/messages.ts";
import { accountFields } from "#shared/account-rules.server.ts";
import { withRedirect } from "#app/lib/redirects.ts";
import { FORGOT_PASSWORD_PATH, REGISTER_PATH, socialLoginPath } from "#shared/links.ts";
import { PageHeading } from "#app/components/page-heading.tsx";

export const handle = MINIMAL_CHROME;

const credentialsSchema = z.object({
  email: accountFields.email,
  password: secret(z.string().min(1, MESSAGES.passwordRequired)),
});

export async function loader({ params, request, context }: Route.LoaderArgs) {
  const { auth, identity, socialLogin } = context.get(servicesContext);
  const interaction = await identity.getLoginInteraction(params.uid, request.headers.get("cookie"));
  if (!interaction) return data({ interaction: null, socialLogin: false, registerHref: REGISTER_PATH }, { status: 400 });
  // The customer chose social login before this screen (on the registration page).
  const forgetIntent = socialLogin.enabled ? await socialLogin.takeIntent(request) : null;
  if (forgetIntent) throw redirect(socialLoginPath(params.uid), { headers: { "Set-Cookie": forgetIntent } });
  // A visitor who registers instead still goes where the sign-in was leading: registration
  // keeps `redirect` and signs in with it.
  const returnTo = await auth.pendingReturnTo(request);
  return {
    interaction,
    socialLogin: context.get(settingsContext).socialLogin,
    registerHref: returnTo ? withRedirect(REGISTER_PATH, returnTo) : REGISTER_PATH,
  };
}

export async function action({ params, request, context }: Route.ActionArgs) {
  const services = context.get(servicesContext);
  const { ip, log } = context.get(requestContext);
  const cookie = request.headers.get("cookie");
  const parsed = await parseForm(request, credentialsSchema);
  if (!parsed.ok) return refuse(parsed.reply);
  const { email, password } = parsed.data;
  const { values } = parsed;
  const result = await services.signIn.attempt({ email, password, ip });
  // Every refusal gets this one answer, an account migrated from the old shop included (the
  // service has mailed it a password link, at most one per window): the same status, the same
  // message, the same data. A different answer would tell anyone which addresses are migrated
  // (and that they exist). The screen always adds the hint for migrated customers below the
  // message, so the real owner still learns to look in their mailbox.
  if (!result.ok) return refuse({ alert: { title: MESSAGES.invalidCredentials }, values }, 401);
  const returnTo = await services.identity.finishLogin(params.uid, cookie, result.user.id);
  if (!returnTo) {
    log.warn("login interaction vanished before it could finish");
    return refuse({ alert: { title: MESSAGES.signInFailed }, values });
  }
  return redirect(returnTo);
}

export { clientAction, shouldRevalidate } from "#app/lib/form-route.ts";

export default function LoginScreen({ loaderData, actionData }: Route.ComponentProps) {
  const [signingIn, setSigningIn] = useState(false);
  if (!loaderData.interaction) return <AuthError message="Sign-in failed" />;
  const reply = readReply(actionData);
  return (
    <section className="mx-auto max-w-md px-4 py-12">
      <div className="card p-8">
        <PageHeading title="Accedi" />
        <p className="mt-2 text-muted">
          Non hai un account?{" "}
          <a href={loaderData.registerHref} className="link">
            Registrati
          </a>
        </p>
        <AlertBox alert={reply.alert} />
        {reply.alert?.title === MESSAGES.invalidCredentials && (
          <p className="mt-3 rounded-md border border-gold bg-paper p-3 text-sm">{MESSAGES.migratedAccountHint}</p>
        )}
        {/* A plain form post: the provider's interaction cookie is scoped to this very address. */}
        <Form method="post" reloadDocument noValidate onSubmit={() => setSigningIn(true)} className="mt-6 space-y-5">
          <TextField
            label="Email"
            type="email"
            autoComplete="username"
            {...reply.field("email", loaderData.interaction.loginHint ?? "")}
          />
          <TextField label="Password" type="password" autoComplete="current-password" {...reply.field("password")} />
          <button type="submit" className="button-primary w-full py-3 text-base">
            Accedi
          </button>
          {signingIn && (
            <p role="status" className="text-center text-sm text-muted">
              Signing you in...
            </p>
          )}
        </Form>
        <p className="mt-4 text-sm">
          <a href={FORGOT_PASSWORD_PATH} className="link">
            Password dimenticata?
          </a>
        </p>
        {loaderData.socialLogin && (
          <p className="mt-6 border-t border-line pt-6">
            <a href={socialLoginPath(loaderData.interaction.uid)} className="button-outline w-full">
              Accedi con Google
            </a>
          </p>
        )}
      </div>
    </section>
  );
}
