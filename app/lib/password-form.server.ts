// Server side of the password forms: validation of a new password, and using a reset link.
import { redirect, type RouterContextProvider } from "react-router";
import { z } from "zod";
import { requestContext, servicesContext } from "#shared/context.ts";
import { isValidPassword } from "#shared/password-rule.ts";
import type { ResetPurpose } from "#server/accounts/password-resets.ts";
import { parseForm, refuse, secret } from "./form-reply.server";
import { MESSAGES } from "#shared/messages.ts";

/**
 * A password form: `fields`, the new password and its confirmation (spec §5: both meet the rule
 * and are equal). Every field's first problem is reported at once, and a confirmation that
 * differs from the new password is one of them, whatever the other fields say. Built on demand:
 * a module-level schema would keep zod in the pages' client bundle.
 */
export function newPasswordSchema<S extends z.ZodRawShape>(fields: S) {
  return z
    .object({
      ...fields,
      password: secret(
        z
          .string()
          .min(1, MESSAGES.passwordRequired)
          .max(200, MESSAGES.passwordRule)
          .refine(isValidPassword, MESSAGES.passwordRule),
      ),
      confirmation: secret(z.string().min(1, MESSAGES.passwordConfirmationRequired).max(200, MESSAGES.passwordMismatch)),
    })
    .refine(
      // Runs on whatever the fields hold, refused or not (`when`).
      ({ password, confirmation }: { password?: unknown; confirmation?: unknown }) =>
        typeof password !== "string" || typeof confirmation !== "string" || confirmation === "" || confirmation === password,
      { path: ["confirmation"], message: MESSAGES.passwordMismatch, when: () => true },
    );
}

/** Password links last an hour and work once: the page says so before showing the form. */
export async function isResetLinkUsable(context: Readonly<RouterContextProvider>, token: string, purpose: ResetPurpose) {
  return context.get(servicesContext).passwordLinks.isUsable(token, purpose);
}

/** The reset pages' action: the new password through a link (see server/accounts/password-links.ts). */
export async function submitResetLink(
  { request, context }: { request: Request; context: Readonly<RouterContextProvider> },
  token: string,
  purpose: ResetPurpose,
  successTo: string,
) {
  const { ip } = context.get(requestContext);
  const checked = await parseForm(request, newPasswordSchema({}));
  if (!checked.ok) return refuse(checked.reply);

  const result = await context.get(servicesContext).passwordLinks.reset({ token, purpose, password: checked.data.password, ip });
  if (result.ok) return redirect(successTo);
  if (result.reason === "rate_limited") {
    const text = MESSAGES.retryAfter(result.retryAfterSeconds);
    return refuse({ alert: { title: MESSAGES.tooManyRequests, text }, values: checked.values }, 429);
  }
  return refuse({ alert: { title: MESSAGES.passwordNotSet, text: MESSAGES.passwordNotSetText }, values: checked.values });
}

/** Links carry a secret: not cached, not indexed (the site-wide referrer policy keeps it from other sites). */
export function resetPageHeaders() {
  return { "Cache-Control": "no-store", "X-Robots-Tag": "noindex" };
}
