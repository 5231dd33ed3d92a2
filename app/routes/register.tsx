// /register/ — 'Crea il tuo account' (spec §2 registration, §5 rules, §8 'Email già registrata').
import { useState } from "react";
import { MINIMAL_CHROME } from "#app/lib/page-chrome.ts";
import { Form, redirect, useLocation } from "react-router";
import { z } from "zod";
import { requestContext, servicesContext, settingsContext } from "#shared/context.ts";
import { accountFields } from "#shared/account-rules.server.ts";
import { safeRedirectTarget, withRedirect } from "#app/lib/redirects.ts";
import type { Route } from "./+types/register";
import { AlertBox, FieldError, TextField } from "#app/components/form-fields.tsx";
import { PasswordHints } from "#app/components/password-fields.tsx";
import { requireSignedOut } from "#app/lib/auth.server.ts";
import { readReply } from "#app/lib/form-reply.ts";
import { parseForm, refuse, secret } from "#app/lib/form-reply.server.ts";
import { MESSAGES } from "#shared/messages.ts";
import { useHydrated } from "#app/lib/use-hydrated.ts";
import { HOME_PATH, LOGIN_PATH } from "#shared/links.ts";
import { PageHeading } from "#app/components/page-heading.tsx";

export const handle = MINIMAL_CHROME;

const registrationSchema = z.object({
  firstname: accountFields.firstname,
  lastname: accountFields.lastname,
  email: accountFields.email,
  password: secret(accountFields.password),
  terms: z.literal("on", { error: MESSAGES.termsRequired }),
});

/** 'Accedi' instead of registering leads where the visitor was going too. */
function loginHref(search: string) {
  const returnTo = new URLSearchParams(search).get("redirect");
  return returnTo ? withRedirect(LOGIN_PATH, returnTo) : LOGIN_PATH;
}

/** The social button starts the sign-in through social login, keeping `redirect`. */
function socialSignInQuery(search: string) {
  return new URLSearchParams({ via: "social", redirect: new URLSearchParams(search).get("redirect") ?? HOME_PATH }).toString();
}

/** Bots fill every field; people never see this one. */
const HONEYPOT = "website";

export async function loader({ request, context }: Route.LoaderArgs) {
  await requireSignedOut(request, context);
  return { socialLogin: context.get(settingsContext).socialLogin };
}

export async function action({ request, context }: Route.ActionArgs) {
  const services = context.get(servicesContext);
  const { ip, log } = context.get(requestContext);
  const form = await request.formData();
  const returnTo = safeRedirectTarget(new URL(request.url).searchParams.get("redirect"));

  if (form.get(HONEYPOT)) {
    log.warn("registration honeypot filled in");
    return redirect(`${LOGIN_PATH}?${new URLSearchParams({ redirect: returnTo })}`);
  }
  const parsed = await parseForm(form, registrationSchema);
  if (!parsed.ok) return refuse(parsed.reply);
  const { terms: _terms, ...input } = parsed.data;
  const { values } = parsed;
  const result = await services.registration.register(input, { ip });
  if (!result.ok && result.reason === "rate_limited") {
    return refuse({ fieldErrors: { email: MESSAGES.tooManyAttempts }, values }, 429);
  }
  if (!result.ok) {
    const link = { href: loginHref(new URL(request.url).search), label: MESSAGES.loginPage };
    return refuse({ alert: { title: MESSAGES.emailTaken, text: MESSAGES.emailTakenText, link }, values }, 409);
  }
  // Registered: the sign-in starts, and comes back where the visitor was going.
  return redirect(`${LOGIN_PATH}?${new URLSearchParams({ redirect: returnTo })}`);
}

export { clientAction, shouldRevalidate } from "#app/lib/form-route.ts";

export default function Register({ loaderData, actionData }: Route.ComponentProps) {
  const { search } = useLocation();
  const reply = readReply(actionData);
  const hydrated = useHydrated();
  const [showPassword, setShowPassword] = useState(false);
  // Tracks what is typed only for the live hints; the field itself stays uncontrolled.
  const [password, setPassword] = useState("");

  return (
    <section className="mx-auto max-w-lg px-4 py-12">
      <div className="card p-8">
        <PageHeading title="Crea il tuo account" />
        <p className="mt-2 text-muted">
          Hai già un account?{" "}
          <a href={loginHref(search)} className="link">
            Accedi
          </a>
        </p>
        {loaderData.socialLogin && (
          <p className="mt-6">
            <a href={`${LOGIN_PATH}?${socialSignInQuery(search)}`} className="button-outline w-full">
              Registrati con Google
            </a>
          </p>
        )}

        <AlertBox alert={reply.alert} />

        <Form method="post" noValidate className="mt-6 space-y-5">
          <TextField label="Nome" autoComplete="given-name" {...reply.field("firstname", "")} />
          <TextField label="Cognome" autoComplete="family-name" {...reply.field("lastname", "")} />
          <TextField label="Email" type="email" autoComplete="email" {...reply.field("email", "")} />
          <div>
            <label htmlFor="password" className="block text-sm font-semibold">
              Password
            </label>
            <div className="flex gap-2">
              <input
                id="password"
                name="password"
                type={showPassword ? "text" : "password"}
                autoComplete="new-password"
                required
                onChange={(e) => setPassword(e.target.value)}
                aria-invalid={reply.error("password") ? true : undefined}
                aria-describedby={`password-hints${reply.error("password") ? " password-error" : ""}`}
                className="field"
              />
              {hydrated && (
                <button
                  type="button"
                  className="button-outline mt-1 shrink-0"
                  onClick={() => setShowPassword((v) => !v)}
                  aria-pressed={showPassword}
                >
                  {showPassword ? "Nascondi" : "Mostra"}
                </button>
              )}
            </div>
            <FieldError id="password-error" message={reply.error("password")} />
            <PasswordHints id="password-hints" password={password} />
          </div>
          <div className="hidden" aria-hidden="true">
            <label htmlFor={HONEYPOT}>Non compilare questo campo</label>
            <input id={HONEYPOT} name={HONEYPOT} type="text" tabIndex={-1} autoComplete="off" />
          </div>
          <div>
            <label className="flex items-start gap-2 text-sm">
              <input
                id="terms"
                name="terms"
                type="checkbox"
                required
                className="mt-1"
                aria-invalid={reply.error("terms") ? true : undefined}
                aria-describedby={reply.error("terms") ? "terms-error" : undefined}
              />
              <span>Ho letto e accetto i termini e le condizioni d'uso e l'informativa sulla privacy</span>
            </label>
            <FieldError id="terms-error" message={reply.error("terms")} />
          </div>
          <button type="submit" className="button-primary w-full py-3 text-base">
            Crea account
          </button>
        </Form>
      </div>
    </section>
  );
}
