// 'Scarica i tuoi dati' lists the account's own mails, never another person's: an address a
// customer gave up and another account then took keeps each account's mails apart, and the mails
// the portal sends an account (the welcome, a password link) are the account's wherever they went.
import { readFileSync } from "node:fs";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { customerData } from "#server/accounts/customer-data.ts";
import { mailOutbox } from "#server/db/schema/index.ts";
import type { Services } from "#server/services.ts";
import { MINUTE, START } from "#tests/support/clock.ts";
import { testConfig } from "#tests/support/config.ts";
import { createTestDatabase, type TestDatabase } from "#tests/support/database.ts";
import { createTestServices } from "#tests/support/services.ts";

let database: TestDatabase;
let services: Services;
let now = START;

beforeAll(async () => {
  database = await createTestDatabase();
  services = await createTestServices(database, testConfig(), { now: () => now });
});
afterAll(async () => {
  await services?.close();
  await database?.destroy();
});

const PASSWORD = "Segreta1!";

async function register(email: string, firstname: string) {
  const result = await services.registration.register(
    { firstname, lastname: "Rossi", email, password: PASSWORD },
    { ip: undefined },
  );
  if (!result.ok) throw new Error(`setup: ${result.reason}`);
  return result.user;
}

/** The confirmation link's token in the newest mail to `to`. */
async function confirmationToken(to: string) {
  const mail = (await services.mail.listOutbox()).find((m) => m.to === to);
  return /\/profile\/confirm-email\/([A-Za-z0-9_-]{43})/.exec(mail?.text ?? "")![1]!;
}

/** Asks, with the password, to move the account to `newEmail`: the mails go out. */
async function askToMove(userId: string, newEmail: string) {
  const started = await services.emailChanges.start({ userId, currentPassword: PASSWORD, newEmail, ip: undefined });
  if (!started.ok || !started.send) throw new Error("setup: the change did not start");
  await started.send();
}

const mailsOf = async (user: { id: string; email: string | null }) =>
  (await customerData(database.db, user, now)).mails.map((m) => [m.to, m.subject, m.createdAt.getTime()] as const);

describe("the mails in the data download", () => {
  it("are the account's own: an address given up and taken by another account shows neither the other's mails", async () => {
    const first = await register("indirizzo.condiviso@example.it", "Anna");
    now = new Date(START.getTime() + MINUTE);
    await askToMove(first.id, "anna.nuovo@example.it");
    expect((await services.emailChanges.confirm(await confirmationToken("anna.nuovo@example.it"))).ok).toBe(true);

    // The freed address is taken by a second account, which then asks for a password link.
    now = new Date(START.getTime() + 2 * MINUTE);
    const second = await register("indirizzo.condiviso@example.it", "Bruno");
    await services.passwordLinks.requestReset({ email: "indirizzo.condiviso@example.it", ip: undefined });

    const firstsMails = await mailsOf({ id: first.id, email: "anna.nuovo@example.it" });
    const secondsMails = await mailsOf(second);
    expect(secondsMails).toHaveLength(2);
    // Both sent after the second account took the address.
    for (const [to, , at] of secondsMails) expect([to, at]).toEqual(["indirizzo.condiviso@example.it", now.getTime()]);
    // The first account's welcome went to the address the second now has: it stays the first's.
    expect(firstsMails).toContainEqual(["indirizzo.condiviso@example.it", expect.stringContaining("Benvenut"), START.getTime()]);
    for (const mail of secondsMails) expect(firstsMails).not.toContainEqual(mail);
    expect(firstsMails.filter(([to]) => to === "indirizzo.condiviso@example.it")).toHaveLength(2);
  });

  it("sent before every mail named its account, are given by the upgrade to the account that held the address then, and no other", async () => {
    now = new Date(START.getTime() + 10 * MINUTE);
    const first = await register("vecchio.indirizzo@example.it", "Carla");
    now = new Date(START.getTime() + 11 * MINUTE);
    await askToMove(first.id, "carla.nuovo@example.it");
    expect((await services.emailChanges.confirm(await confirmationToken("carla.nuovo@example.it"))).ok).toBe(true);
    now = new Date(START.getTime() + 12 * MINUTE);
    const second = await register("vecchio.indirizzo@example.it", "Dario");
    // As mails were written before: without their account.
    const old = (to: string, minutes: number, subject: string) => ({
      to,
      subject,
      text: subject,
      html: subject,
      userId: null,
      createdAt: new Date(START.getTime() + minutes * MINUTE),
    });
    await database.db
      .insert(mailOutbox)
      .values([
        old("vecchio.indirizzo@example.it", 10.5, "prima: di Carla"),
        old("vecchio.indirizzo@example.it", 12.5, "dopo: di Dario"),
        old("carla.nuovo@example.it", 10.8, "nuovo indirizzo, prima che fosse di Carla"),
        old("carla.nuovo@example.it", 13, "nuovo indirizzo: di Carla"),
      ]);
    const upgrade = readFileSync(new URL("../../server/db/migrations/0020_mails_of_their_account.sql", import.meta.url), "utf8");
    await database.db.execute(sql.raw(upgrade));

    const owners = await database.db
      .select({ subject: mailOutbox.subject, userId: mailOutbox.userId })
      .from(mailOutbox)
      .where(eq(mailOutbox.text, mailOutbox.subject));
    expect(Object.fromEntries(owners.map((o) => [o.subject, o.userId]))).toEqual({
      "prima: di Carla": null, // Carla has not held it since: it stays without an account
      "dopo: di Dario": second.id,
      "nuovo indirizzo, prima che fosse di Carla": null,
      "nuovo indirizzo: di Carla": first.id,
    });
  });

  it("tell nothing of whether an address asked for has an account: a taken one and a free one download alike", async () => {
    now = new Date(START.getTime() + 20 * MINUTE);
    await register("occupato@example.it", "Elena");
    const asking = [await register("chiede.occupato@example.it", "Fabio"), await register("chiede.libero@example.it", "Gino")];
    const wanted = ["occupato@example.it", "libero@example.it"];
    for (const [i, user] of asking.entries()) {
      await askToMove(user.id, wanted[i]!);
    }
    // The mails did go: the notice to the taken address, the link to the free one.
    const outbox = await services.mail.listOutbox();
    expect(
      outbox.find((m) => m.to === "occupato@example.it" && m.subject === "Richiesta di cambio indirizzo email"),
    ).toBeDefined();
    expect(
      outbox.find((m) => m.to === "libero@example.it" && m.subject === "Conferma il tuo nuovo indirizzo email"),
    ).toBeDefined();

    // What each download says, without the addresses and the names that differ anyway.
    const seen = await Promise.all(
      asking.map(async (user) => {
        const data = await customerData(database.db, user, now);
        return {
          mails: data.mails.map((m) => m.subject),
          emailChangeRequests: data.emailChangeRequests.map(({ newEmail: _, ...request }) => request),
        };
      }),
    );
    expect(seen[0]).toEqual(seen[1]);
    expect(seen[0]!.emailChangeRequests).toHaveLength(1);
    expect(seen[0]!.mails).not.toContain("Conferma il tuo nuovo indirizzo email");
  });
});
