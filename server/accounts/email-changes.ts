// Changing the account's e-mail from /profile/ (spec §5 "Account save"). The e-mail is the
// username and where password links go, so a change needs the current password, and takes
// effect only once the link sent to the new address is opened: the address is proven, and a
// stolen session alone cannot move the account to an attacker's mailbox. The current address
// is told at once, so its owner can react.
//
// The page answers the same whether or not the new address belongs to another account: only
// the mail to that address says so. Requests are throttled (rate-limits.ts), so the page is no
// fast way to try addresses or to send mail to strangers.
//
// Links are 256 random bits, stored only as their SHA-256, valid 24 hours, usable once.
import { createHash, randomBytes } from "node:crypto";
import { and, eq, gt, isNull, ne } from "drizzle-orm";
import { createAuditLog, type AuditLog } from "#server/audit/service.ts";
import type { Database } from "#server/db/client.ts";
import { isUniqueViolation } from "#server/db/errors.ts";
import { emailChangeRequests, users } from "#server/db/schema/index.ts";
import type { Logger } from "#server/logger.ts";
import { emailChangeConfirmationMail, emailChangeNoticeMail, emailChangeTakenMail } from "#server/mail/templates.ts";
import type { MailService } from "#server/mail/service.ts";
import type { RateLimits } from "#server/security/rate-limits.ts";
import { isUuid } from "#server/lib/uuid.ts";
import { standardPasswords, type PasswordHasher } from "./passwords.ts";
import { normalizeEmail } from "./service.ts";
import { emailConfirmationPath } from "#shared/links.ts";

const EMAIL_CHANGE_TTL_MS = 24 * 60 * 60 * 1000;

export type EmailChangeStart =
  /**
   * Password right and within the limits: `send` mails the link once the caller has saved the
   * rest of the form. `send` is null when the address is the account's own: no change asked.
   */
  | { ok: true; send: (() => Promise<{ sent: boolean }>) | null }
  /** `password_required`: a change was asked without the current password. */
  | { ok: false; reason: "password_required" | "wrong_password" | "not_found" }
  /** `locked`: the sign-in of the account is locked; `throttled`: too many change requests. */
  | { ok: false; reason: "locked" | "throttled"; retryAfterSeconds: number };

export type EmailChangeConfirmation =
  | { ok: true; userId: string; email: string }
  /** `invalid`: unknown, used or expired link; `taken`: another account got the address meanwhile. */
  | { ok: false; reason: "invalid" | "taken" };

const hashToken = (token: string) => createHash("sha256").update(token).digest("base64url");

type EmailChangeDependencies = {
  db: Database;
  rateLimits: RateLimits;
  audit: AuditLog;
  mail: MailService;
  publicOrigin: string;
  log: Logger;
  now?: () => Date;
  passwords?: PasswordHasher;
};

export function createEmailChanges({
  db,
  rateLimits,
  audit,
  mail,
  publicOrigin,
  log,
  now = () => new Date(),
  passwords = standardPasswords,
}: EmailChangeDependencies) {
  const usable = (token: string) =>
    and(
      eq(emailChangeRequests.tokenHash, hashToken(token)),
      isNull(emailChangeRequests.usedAt),
      gt(emailChangeRequests.expiresAt, now()),
    );

  /** The mails of a request: the link (or why there is none) to the new address, the notice to the current one. */
  async function sendMails(
    user: { id: string; email: string; firstname: string | null },
    newEmail: string,
    ip: string | undefined,
  ) {
    const [holder] = await db.select({ id: users.id }).from(users).where(eq(users.email, newEmail));
    // The request is recorded alike whether or not the address is taken (its link is mailed only
    // when it is free), and the mail to the new address stays out of the requester's data
    // download either way: neither tells the requester which addresses have an account.
    const token = randomBytes(32).toString("base64url");
    const toNewAddress = holder
      ? emailChangeTakenMail({ forgotPasswordUrl: `${publicOrigin}/forgot-password/` })
      : emailChangeConfirmationMail({ firstname: user.firstname, link: `${publicOrigin}${emailConfirmationPath(token)}` });
    const changePasswordUrl = `${publicOrigin}/profile/change-password/`;
    const messages = [
      { to: newEmail, inDownload: false, ...toNewAddress },
      { to: user.email, inDownload: true, ...emailChangeNoticeMail({ firstname: user.firstname, changePasswordUrl }) },
    ];
    try {
      // The request and its mails are written together (issue 29): an outbox that cannot be
      // written (a full disk) leaves no request behind that no mail announced.
      const sends = await db.transaction(async (tx) => {
        await tx.insert(emailChangeRequests).values({
          tokenHash: hashToken(token),
          userId: user.id,
          newEmail,
          createdAt: now(),
          expiresAt: new Date(now().getTime() + EMAIL_CHANGE_TTL_MS),
        });
        const owed = [];
        for (const message of messages) owed.push(await mail.owe(tx, { ...message, userId: user.id }));
        return owed;
      });
      await audit.record("email_change_requested", { userId: user.id, ip });
      for (const send of sends) await send();
      return { sent: true };
    } catch (error) {
      // Whichever mail failed, the answer is the same for a free and a taken address.
      log.error({ err: error, userId: user.id }, "an e-mail change mail could not be sent");
      return { sent: false };
    }
  }

  return {
    /**
     * For a new address (`newEmail` is assumed well-formed; the caller checks it): checks the
     * current password (a sign-in credential: the sign-in's locks apply and a wrong one counts as
     * a failed sign-in) and spends one of the change requests the limits allow. Nothing is
     * written or sent until the caller calls `send`.
     */
    async start({
      userId,
      currentPassword,
      newEmail,
      ip,
    }: {
      userId: string;
      currentPassword: string;
      newEmail: string;
      ip: string | undefined;
    }): Promise<EmailChangeStart> {
      const [user] = isUuid(userId)
        ? await db
            .select({ id: users.id, email: users.email, firstname: users.firstname, passwordHash: users.passwordHash })
            .from(users)
            .where(and(eq(users.id, userId), eq(users.status, "active")))
        : [];
      if (!user?.email) return { ok: false, reason: "not_found" };
      const address = normalizeEmail(newEmail);
      if (address === user.email) return { ok: true, send: null };
      if (currentPassword === "") return { ok: false, reason: "password_required" };
      const account = { email: user.email, ip };
      const lock = await rateLimits.checkSignIn(account);
      if (!lock.ok) return { ok: false, reason: "locked", retryAfterSeconds: lock.retryAfterSeconds };
      if (!(await passwords.verify(user.passwordHash, currentPassword)) || !user.passwordHash) {
        await rateLimits.recordSignInFailure(account);
        return { ok: false, reason: "wrong_password" };
      }
      await rateLimits.recordSignInSuccess(account);
      const limit = await rateLimits.checkEmailChange({ userId, ip });
      if (!limit.ok) return { ok: false, reason: "throttled", retryAfterSeconds: limit.retryAfterSeconds };
      const current = { id: user.id, email: user.email, firstname: user.firstname };
      return { ok: true, send: () => sendMails(current, address, ip) };
    },

    /** Whether the link can still be used (the page checks before offering 'Conferma'). */
    async isUsable(token: string): Promise<boolean> {
      const [row] = await db.select({ userId: emailChangeRequests.userId }).from(emailChangeRequests).where(usable(token));
      return Boolean(row);
    },

    /**
     * Makes the new address the account's e-mail and uses the link up, in one transaction. The
     * UPDATE that marks the link used matches only an unused one, so of parallel confirmations
     * exactly one succeeds; the account's other pending links die with it. When another account
     * took the address since the request, the link is used up and nothing else changes.
     */
    async confirm(token: string): Promise<EmailChangeConfirmation> {
      try {
        return await confirmIn(token);
      } catch (error) {
        if (isUniqueViolation(error)) return { ok: false, reason: "taken" };
        throw error;
      }
    },
  };

  function confirmIn(token: string): Promise<EmailChangeConfirmation> {
    return db.transaction(async (tx): Promise<EmailChangeConfirmation> => {
      const at = now();
      const [request] = await tx
        .update(emailChangeRequests)
        .set({ usedAt: at })
        .where(usable(token))
        .returning({ userId: emailChangeRequests.userId, newEmail: emailChangeRequests.newEmail });
      if (!request) return { ok: false, reason: "invalid" };
      // Checked rather than left to the unique index: a violation would abort the transaction
      // and with it the use of the link. The index still decides a race with a registration.
      const [holder] = await tx
        .select({ id: users.id })
        .from(users)
        .where(and(eq(users.email, request.newEmail), ne(users.id, request.userId)));
      if (holder) return { ok: false, reason: "taken" };
      const [changed] = await tx
        .update(users)
        .set({ email: request.newEmail, updatedAt: at })
        .where(and(eq(users.id, request.userId), eq(users.status, "active")))
        .returning({ id: users.id });
      if (!changed) return { ok: false, reason: "invalid" };
      await tx
        .update(emailChangeRequests)
        .set({ usedAt: at })
        .where(and(eq(emailChangeRequests.userId, request.userId), isNull(emailChangeRequests.usedAt)));
      await createAuditLog(tx).record("email_changed", { userId: request.userId });
      return { ok: true, userId: request.userId, email: request.newEmail };
    });
  }
}
