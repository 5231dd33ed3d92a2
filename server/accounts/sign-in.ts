// Sign-in with e-mail and password on the provider's login screen (/accedi/:uid): the locks,
// the password check, the audit entries, and the first sign-in of an account migrated from the
// old shop, which gets an e-mailed link to set its password instead of a session.
//
// Every refusal is the same answer (`{ ok: false }`), whatever the reason: unknown e-mail, wrong
// password, a lock, or a migrated account. The login screen shows one message for all of them,
// so nobody can learn from it which addresses are registered or migrated (see the route). Its
// timing differs only for the one attempt per window that puts a link in the outbox (an INSERT,
// or an SMTP hand-off), and the password is verified on every path, as for any address.
import type { AuditLog } from "#server/audit/service.ts";
import type { Logger } from "#server/logger.ts";
import type { Metrics } from "#server/metrics.ts";
import { migratedAccountMail } from "#server/mail/templates.ts";
import type { MailService } from "#server/mail/service.ts";
import type { RateLimits } from "#server/security/rate-limits.ts";
import type { PasswordResets } from "./password-resets.ts";
import type { AccountsService, User } from "./service.ts";
import { migratedAccountResetPath } from "#shared/links.ts";

export type SignInAttempt = { email: string; password: string; ip: string | undefined };
export type SignInResult = { ok: true; user: User } | { ok: false };

type SignInDependencies = {
  accounts: AccountsService;
  rateLimits: RateLimits;
  audit: AuditLog;
  passwordResets: PasswordResets;
  mail: MailService;
  publicOrigin: string;
  log: Logger;
  /** Where refused sign-ins are counted (server/metrics.ts). */
  metrics?: Metrics;
};

export function createSignIn({
  accounts,
  rateLimits,
  audit,
  passwordResets,
  mail,
  publicOrigin,
  log,
  metrics,
}: SignInDependencies) {
  /**
   * Sends the migrated account its password link, at most once per window per account (and a
   * bounded number per client address): the database decides atomically, so parallel attempts
   * send one mail. Within the window the link already sent is still valid (the window is
   * shorter than a link's life), so the owner loses nothing when no new mail leaves.
   */
  async function sendMigratedLink(user: User, ip: string | undefined): Promise<void> {
    if (!(await rateLimits.claimMigratedLink({ userId: user.id, ip })).ok) return;
    try {
      // The link and its mail are written together (issue 29): no link is left that no mail carries.
      const send = await passwordResets.issueWithMail(user.id, "migrated", (tx, token) =>
        mail.owe(tx, {
          to: user.email!,
          userId: user.id,
          ...migratedAccountMail({ firstname: user.firstname, link: `${publicOrigin}${migratedAccountResetPath(token)}` }),
        }),
      );
      await send();
    } catch (error) {
      // Logged, not thrown: an error page here would single the account out as migrated.
      log.error({ err: error, userId: user.id }, "the password link of a migrated account could not be sent");
      // Nothing was written: the window's one link is still the account's to have.
      await rateLimits
        .giveBackMigratedLink({ userId: user.id, ip })
        .catch((err: unknown) => log.warn({ err, userId: user.id }, "the unsent link stays counted until its window ends"));
      return;
    }
    await audit.record("password_reset_requested", { userId: user.id, ip });
    log.info({ userId: user.id }, "password link sent to an account migrated from the old shop");
  }

  return {
    async attempt({ email, password, ip }: SignInAttempt): Promise<SignInResult> {
      // While the account or the address is locked the password is not even checked, and the
      // answer is the one for wrong credentials: a lock does not reveal that the account exists.
      if (!(await rateLimits.checkSignIn({ email, ip })).ok) {
        metrics?.signIns.lockouts.inc();
        await audit.record("sign_in_failure", { subject: email, ip });
        return { ok: false };
      }
      const result = await accounts.verifyCredentials(email, password);
      if (result.ok) {
        await rateLimits.recordSignInSuccess({ email });
        await audit.record("sign_in_success", { userId: result.user.id, ip });
        return { ok: true, user: result.user };
      }
      // A migrated account counts as a failure too: its locks come exactly when those of any
      // other address would, and a locked account sends no more links.
      metrics?.signIns.failures.inc();
      await rateLimits.recordSignInFailure({ email, ip });
      if (result.reason === "migrated") {
        await audit.record("sign_in_failure", { userId: result.user.id, ip });
        await sendMigratedLink(result.user, ip);
      } else {
        await audit.record("sign_in_failure", { subject: email, ip });
      }
      return { ok: false };
    },
  };
}
