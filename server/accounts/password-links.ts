// Forgotten passwords end to end (spec §2 /forgot-password/, §5, §8): a request sends the
// account's owner a link, and the link sets a new password. Each step checks its rate limit,
// sends its mail and writes its audit entry here, so a route only calls one method.
import { createCookie } from "react-router";
import type { AuditLog } from "#server/audit/service.ts";
import type { Logger } from "#server/logger.ts";
import type { MailService } from "#server/mail/service.ts";
import { passwordResetMail } from "#server/mail/templates.ts";
import type { RateLimits } from "#server/security/rate-limits.ts";
import { RESET_TOKEN_TTL_MS, type PasswordResets, type ResetPurpose } from "./password-resets.ts";
import type { AccountsService } from "./service.ts";
import { passwordResetPath } from "#shared/links.ts";

export type ResetRequestResult =
  | { ok: true }
  | { ok: false; reason: "rate_limited"; retryAfterSeconds: number }
  | { ok: false; reason: "unknown_email" }
  /** The mail could not go out: the link was never seen and expires unused. */
  | { ok: false; reason: "mail_failed" };

export type ResetResult =
  | { ok: true }
  | { ok: false; reason: "rate_limited"; retryAfterSeconds: number }
  /** Unknown, used or expired link. */
  | { ok: false; reason: "dead_link" };

export type PasswordLinkOptions = {
  accounts: Pick<AccountsService, "findActiveByEmail">;
  passwordResets: PasswordResets;
  rateLimits: Pick<RateLimits, "checkPasswordResetRequest" | "checkPasswordResetAttempt" | "clearSignInLock">;
  mail: Pick<MailService, "owe">;
  audit: Pick<AuditLog, "record">;
  /** Ends every portal session and every identity provider session and grant of the account. */
  endAllSessions: (userId: string) => Promise<void>;
  publicOrigin: string;
  secret: string;
  secure: boolean;
  log: Logger;
};

export function createPasswordLinks(options: PasswordLinkOptions) {
  const { accounts, passwordResets, rateLimits, mail, audit, log } = options;
  // The page that comes back after a request offers 'Rinvia' to the same address: the address
  // waits in a signed, HttpOnly cookie of that page, never in its URL (URLs reach logs and history).
  const sentToCookie = createCookie(options.secure ? "__Host-portal_reset_sent" : "portal_reset_sent", {
    path: "/",
    httpOnly: true,
    sameSite: "lax",
    secure: options.secure,
    maxAge: RESET_TOKEN_TTL_MS / 1000,
    secrets: [options.secret],
  });

  return {
    /** Sends the account's owner a reset link (once past the limits, which also slow probing). */
    async requestReset({ email, ip }: { email: string; ip: string | undefined }): Promise<ResetRequestResult> {
      const limit = await rateLimits.checkPasswordResetRequest({ ip, email });
      if (!limit.ok) {
        log.warn({ limit: limit.limit }, "password reset request refused by the rate limit");
        return { ok: false, reason: "rate_limited", retryAfterSeconds: limit.retryAfterSeconds };
      }
      const user = await accounts.findActiveByEmail(email);
      if (!user?.email) return { ok: false, reason: "unknown_email" };
      const to = user.email;
      try {
        // The link and its mail are written together: a mail that cannot be kept (a full disk)
        // leaves no link behind either; one that SMTP refuses now is delivered at a later try.
        const send = await passwordResets.issueWithMail(user.id, "reset", (tx, token) => {
          const link = `${options.publicOrigin}${passwordResetPath(token)}`;
          return mail.owe(tx, { to, userId: user.id, ...passwordResetMail({ firstname: user.firstname, link }) });
        });
        await send();
      } catch (err) {
        log.error({ err }, "password reset mail could not be sent");
        return { ok: false, reason: "mail_failed" };
      }
      await audit.record("password_reset_requested", { userId: user.id, ip });
      return { ok: true };
    },

    /** The Set-Cookie header that remembers where the last link went (for 'Rinvia'). */
    rememberSentTo: (email: string) => sentToCookie.serialize(email),

    /** The address the last link of this browser went to, or null. */
    async sentTo(request: Request): Promise<string | null> {
      const value: unknown = await sentToCookie.parse(request.headers.get("cookie"));
      return typeof value === "string" ? value : null;
    },

    /** Whether a link can still be used (the page says so before showing the form). */
    isUsable: (token: string, purpose: ResetPurpose) => passwordResets.isUsable(token, purpose),

    /**
     * Sets the new password through a link. The token is used up atomically (one of parallel
     * submissions wins); then every session of the account ends, the portal's and the identity
     * provider's, since whoever knew the old password may be signed in somewhere.
     */
    async reset({
      token,
      purpose,
      password,
      ip,
    }: {
      token: string;
      purpose: ResetPurpose;
      password: string;
      ip: string | undefined;
    }): Promise<ResetResult> {
      // Each submission costs a password hash: they are limited per address.
      const limit = await rateLimits.checkPasswordResetAttempt(ip);
      if (!limit.ok) return { ok: false, reason: "rate_limited", retryAfterSeconds: limit.retryAfterSeconds };
      const done = await passwordResets.resetPassword(token, purpose, password);
      if (!done) return { ok: false, reason: "dead_link" };
      await options.endAllSessions(done.userId);
      // The migrated account's sign-ins failed until now whatever was typed: they lock it no more.
      if (purpose === "migrated" && done.email) await rateLimits.clearSignInLock({ email: done.email });
      await audit.record("password_reset", { userId: done.userId, ip });
      return { ok: true };
    },
  };
}
