// Registration (spec §2 /register/, §5, §8): a new account, its welcome mail and its audit entry,
// after the per-address limit on sign-ups.
import type { AuditLog } from "#server/audit/service.ts";
import type { MailService } from "#server/mail/service.ts";
import { welcomeMail } from "#server/mail/templates.ts";
import type { RateLimits } from "#server/security/rate-limits.ts";
import type { AccountsService, RegistrationInput, User } from "./service.ts";

export type RegistrationResult =
  | { ok: true; user: User }
  | { ok: false; reason: "email_taken" }
  | { ok: false; reason: "rate_limited"; retryAfterSeconds: number };

export type RegistrationOptions = {
  accounts: Pick<AccountsService, "register">;
  rateLimits: Pick<RateLimits, "checkRegistration">;
  mail: Pick<MailService, "owe">;
  audit: Pick<AuditLog, "record">;
  publicOrigin: string;
};

export function createRegistration({ accounts, rateLimits, mail, audit, publicOrigin }: RegistrationOptions) {
  return {
    async register(input: RegistrationInput, { ip }: { ip: string | undefined }): Promise<RegistrationResult> {
      const limit = await rateLimits.checkRegistration(ip);
      if (!limit.ok) return { ok: false, reason: "rate_limited", retryAfterSeconds: limit.retryAfterSeconds };
      // The account and its welcome mail are written together: an account without its mail
      // (the outbox insert failing on a full disk after the account committed) cannot happen.
      let sendWelcome = async () => {};
      const result = await accounts.register(input, async (tx, user) => {
        sendWelcome = await mail.owe(tx, {
          to: user.email!,
          userId: user.id,
          ...welcomeMail({ firstname: user.firstname, loginUrl: `${publicOrigin}/login/` }),
        });
      });
      if (!result.ok) return result;
      const { user } = result;
      await audit.record("account_registered", { userId: user.id, ip });
      // Over SMTP now; if the server does not take it, at the job runner's next tries.
      await sendWelcome();
      return result;
    },
  };
}
