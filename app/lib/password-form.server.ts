// Server side of the password forms: validation of a new password, and using a reset link.
import { data, redirect, type RouterContextProvider } from "react-router";
import { z } from "zod";
import { requestContext, servicesContext } from "../../shared/context.ts";
import { isValidPassword } from "../../shared/password-rule.ts";
import type { ResetPurpose } from "../../server/accounts/password-resets";
import type { ResetActionResult } from "../components/password-fields";
import { MESSAGES } from "./messages";

/**
 * The new password and its confirmation (spec §5: both meet the rule and are equal). Built on
 * demand: a module-level schema would keep zod in the pages' client bundle.
 */
export function newPasswordShape() {
  return {
    password: z
      .string()
      .min(1, MESSAGES.passwordRequired)
      .max(200, MESSAGES.passwordRule)
      .refine(isValidPassword, MESSAGES.passwordRule),
    confirmation: z.string().min(1, MESSAGES.passwordConfirmationRequired).max(200, MESSAGES.passwordMismatch),
  };
}

/**
 * Validates a password form against `shape` (which includes newPasswordShape()). Every field's
 * first problem is reported at once, and a confirmation that differs from the new password is
 * one of them.
 */
export function validatePasswordForm<S extends ReturnType<typeof newPasswordShape> & z.ZodRawShape>(
  shape: S,
  form: Record<string, FormDataEntryValue>,
): { ok: true; data: z.infer<z.ZodObject<S>> } | { ok: false; fieldErrors: Partial<Record<keyof S & string, string>> } {
  const parsed = z.object(shape).safeParse(form);
  const fieldErrors: Partial<Record<string, string>> = {};
  if (!parsed.success) for (const issue of parsed.error.issues) fieldErrors[String(issue.path[0])] ??= issue.message;
  const { password, confirmation } = form;
  if (typeof password === "string" && typeof confirmation === "string" && confirmation !== "" && confirmation !== password) {
    fieldErrors.confirmation ??= MESSAGES.passwordMismatch;
  }
  if (parsed.success && Object.keys(fieldErrors).length === 0) return { ok: true, data: parsed.data };
  return { ok: false, fieldErrors: fieldErrors as Partial<Record<keyof S & string, string>> };
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
  const checked = validatePasswordForm(newPasswordShape(), Object.fromEntries(await request.formData()));
  if (!checked.ok) return data<ResetActionResult>({ fieldErrors: checked.fieldErrors }, { status: 400 });

  const result = await context.get(servicesContext).passwordLinks.reset({ token, purpose, password: checked.data.password, ip });
  if (result.ok) return redirect(successTo);
  if (result.reason === "rate_limited") {
    return data<ResetActionResult>(
      { alert: { title: MESSAGES.tooManyRequests, text: MESSAGES.retryAfter(result.retryAfterSeconds) } },
      { status: 429 },
    );
  }
  return data<ResetActionResult>(
    { alert: { title: MESSAGES.passwordNotSet, text: MESSAGES.passwordNotSetText } },
    { status: 400 },
  );
}

/** Links carry a secret: not cached, not indexed (the site-wide referrer policy keeps it from other sites). */
export function resetPageHeaders() {
  return { "Cache-Control": "no-store", "X-Robots-Tag": "noindex" };
}
