// An account, a password link, an e-mail change request: each row and the mail it owes are
// written in one transaction (issue 29: on a full disk, rows were written whose mail, inserted
// after they had committed, failed and was dropped). The database refuses the outbox insert here
// as a full disk would (53100): no row is left without its mail, and once the outbox can be
// written again the same request works, mail included.
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "#tests/support/database.ts";
import { withOutboxRefused } from "#tests/support/refuse-outbox.ts";
import { createTestServices } from "#tests/support/services.ts";
import { testConfig } from "#tests/support/config.ts";
import { afterStart, MINUTE, START } from "#tests/support/clock.ts";
import { startSmtpServer } from "#tests/support/smtp.ts";
import { emailChangeRequests, mailOutbox, passwordResetTokens, users } from "#server/db/schema/index.ts";
import type { Services } from "#server/services.ts";

describe("rows and the mails they owe", () => {
  let database: TestDatabase;
  let services: Services;
  beforeAll(async () => {
    database = await createTestDatabase({ seed: false });
    services = await createTestServices(database);
  });
  afterAll(() => database.destroy());

  const PASSWORD = "Segreta1!";
  const input = (email: string) => ({ firstname: "Maria", lastname: "Rossi", email, password: PASSWORD });
  async function registered(email: string): Promise<string> {
    const result = await services.registration.register(input(email), { ip: "192.0.2.1" });
    if (!result.ok) throw new Error(result.reason);
    return result.user.id;
  }
  const resetLinksOf = (userId: string) =>
    database.db
      .select({ purpose: passwordResetTokens.purpose })
      .from(passwordResetTokens)
      .where(eq(passwordResetTokens.userId, userId));
  const mailsTo = (email: string) =>
    database.db.select({ subject: mailOutbox.subject }).from(mailOutbox).where(eq(mailOutbox.to, email));
  const accountsWith = (email: string) => database.db.select({ id: users.id }).from(users).where(eq(users.email, email));

  it("leaves no account without its welcome mail when the mail cannot be written", async () => {
    await withOutboxRefused(database.db, async () => {
      await expect(services.registration.register(input("senza.spazio@example.it"), { ip: "192.0.2.1" })).rejects.toThrow();
      expect(await accountsWith("senza.spazio@example.it")).toEqual([]);
    });

    // Space back: the same address registers, with its mail.
    const result = await services.registration.register(input("senza.spazio@example.it"), { ip: "192.0.2.1" });
    expect(result.ok).toBe(true);
    expect(await accountsWith("senza.spazio@example.it")).toHaveLength(1);
    expect(await mailsTo("senza.spazio@example.it")).toHaveLength(1);
  });

  it("still answers an address already registered", async () => {
    const again = await services.registration.register(input("senza.spazio@example.it"), { ip: "192.0.2.2" });
    expect(again).toEqual({ ok: false, reason: "email_taken" });
    expect(await mailsTo("senza.spazio@example.it")).toHaveLength(1);
  });

  it("writes no password reset link without its mail", async () => {
    const email = "reset.senza.spazio@example.it";
    const userId = await registered(email);
    const before = (await mailsTo(email)).length;
    await withOutboxRefused(database.db, async () => {
      expect(await services.passwordLinks.requestReset({ email, ip: "192.0.2.2" })).toEqual({ ok: false, reason: "mail_failed" });
    });
    expect(await resetLinksOf(userId)).toEqual([]);
    expect(await mailsTo(email)).toHaveLength(before);

    expect(await services.passwordLinks.requestReset({ email, ip: "192.0.2.2" })).toEqual({ ok: true });
    expect(await resetLinksOf(userId)).toEqual([{ purpose: "reset" }]);
    expect(await mailsTo(email)).toHaveLength(before + 1);
  });

  it("writes no e-mail change request without its two mails", async () => {
    const email = "cambio.senza.spazio@example.it";
    const newEmail = "nuovo.indirizzo@example.it";
    const userId = await registered(email);
    const before = (await mailsTo(email)).length;
    const requestChange = async () => {
      const started = await services.emailChanges.start({ userId, currentPassword: PASSWORD, newEmail, ip: "192.0.2.3" });
      if (!started.ok || !started.send) throw new Error("the change did not start");
      return started.send();
    };
    const requestsOf = () =>
      database.db
        .select({ newEmail: emailChangeRequests.newEmail })
        .from(emailChangeRequests)
        .where(eq(emailChangeRequests.userId, userId));

    await withOutboxRefused(database.db, async () => {
      expect(await requestChange()).toEqual({ sent: false });
    });
    expect(await requestsOf()).toEqual([]);
    expect(await mailsTo(newEmail)).toEqual([]);
    expect(await mailsTo(email)).toHaveLength(before);

    expect(await requestChange()).toEqual({ sent: true });
    expect(await requestsOf()).toEqual([{ newEmail }]);
    expect(await mailsTo(newEmail)).toHaveLength(1);
    expect(await mailsTo(email)).toHaveLength(before + 1);
  });

  it("writes no migrated account's password link without its mail", async () => {
    const email = "storico.senza.spazio@example.it";
    const [account] = await database.db
      .insert(users)
      .values({ email, firstname: "Ada", migratedFromShop: true })
      .returning({ id: users.id });
    const signIn = () => services.signIn.attempt({ email, password: "Qualunque1!", ip: "192.0.2.4" });

    await withOutboxRefused(database.db, async () => {
      expect(await signIn()).toEqual({ ok: false });
    });
    expect(await resetLinksOf(account!.id)).toEqual([]);
    expect(await mailsTo(email)).toEqual([]);

    // The link that was not sent is not counted: the next sign-in, within the same window, mails it.
    expect(await signIn()).toEqual({ ok: false });
    expect(await resetLinksOf(account!.id)).toEqual([{ purpose: "migrated" }]);
    expect(await mailsTo(email)).toHaveLength(1);
  });

  it("with SMTP down, keeps the welcome mail of an account and delivers it once the server is back", async () => {
    const down = await startSmtpServer();
    await down.close();
    let clock = START;
    const smtpServices = await createTestServices(database, testConfig({ SMTP_URL: down.url }), { now: () => clock });
    try {
      const email = "smtp.giu@example.it";
      const result = await smtpServices.registration.register(input(email), { ip: "192.0.2.5" });
      expect(result.ok).toBe(true);
      expect(await mailsTo(email)).toEqual([{ subject: expect.stringContaining("Benvenut") }]);

      const back = await startSmtpServer({ port: Number(new URL(down.url).port) });
      try {
        clock = afterStart(MINUTE);
        await smtpServices.jobs.runDue();
        const welcome = await back.waitForMail((mail) => mail.to.includes(email));
        expect(welcome.text).toContain("Maria");
      } finally {
        await back.close();
      }
    } finally {
      await smtpServices.close();
    }
  });
});
