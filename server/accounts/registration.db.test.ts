// An account and its welcome mail are written in one transaction (issue 29: on a full disk,
// accounts were registered whose welcome mail, inserted after the account had committed, failed
// and was dropped). The database refuses the outbox insert here as a full disk would (53100).
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../tests/support/database.ts";
import { withOutboxRefused } from "../../tests/support/refuse-outbox.ts";
import { createTestServices } from "../../tests/support/services.ts";
import { mailOutbox, users } from "../db/schema.ts";
import type { Services } from "../services.ts";

describe("registration", () => {
  let database: TestDatabase;
  let services: Services;
  beforeAll(async () => {
    database = await createTestDatabase({ seed: false });
    services = await createTestServices(database);
  });
  afterAll(() => database.destroy());

  const input = (email: string) => ({ firstname: "Maria", lastname: "Rossi", email, password: "Segreta1!" });
  const accountsOf = (email: string) => database.db.select({ id: users.id }).from(users).where(eq(users.email, email));
  const mailsTo = (email: string) =>
    database.db.select({ subject: mailOutbox.subject }).from(mailOutbox).where(eq(mailOutbox.to, email));

  it("leaves no account without its welcome mail when the mail cannot be written", async () => {
    await withOutboxRefused(database.db, async () => {
      await expect(services.registration.register(input("senza.spazio@example.it"), { ip: "192.0.2.1" })).rejects.toThrow();
      expect(await accountsOf("senza.spazio@example.it")).toEqual([]);
    });

    // Space back: the same address registers, with its mail.
    const result = await services.registration.register(input("senza.spazio@example.it"), { ip: "192.0.2.1" });
    expect(result.ok).toBe(true);
    expect(await accountsOf("senza.spazio@example.it")).toHaveLength(1);
    expect(await mailsTo("senza.spazio@example.it")).toHaveLength(1);
  });

  it("still answers an address already registered", async () => {
    const again = await services.registration.register(input("senza.spazio@example.it"), { ip: "192.0.2.2" });
    expect(again).toEqual({ ok: false, reason: "email_taken" });
    expect(await mailsTo("senza.spazio@example.it")).toHaveLength(1);
  });
});
