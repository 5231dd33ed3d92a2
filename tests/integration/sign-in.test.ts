// The login screen's action: generic answers, brute-force locks with growing waits, audit.
import { eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { action as loginAction } from "../../app/routes/accedi";
import { MESSAGES } from "../../app/lib/messages";
import { auditLog, users } from "../../server/db/schema.ts";
import type { Services } from "../../server/services.ts";
import { createTestDatabase, type TestDatabase } from "../support/database.ts";
import { formPost } from "../support/requests.ts";
import { createRouterContext } from "../support/router-context.ts";
import { createTestServices } from "../support/services.ts";

let database: TestDatabase;
let services: Services;
const email = "brute@example.it";
const password = "Giusta123!";

beforeAll(async () => {
  database = await createTestDatabase();
  services = await createTestServices(database);
  const r = await services.accounts.register({ firstname: "B", lastname: "F", email, password });
  if (!r.ok) throw new Error("setup");
});
afterAll(async () => {
  services.close();
  await database.destroy();
});
afterEach(() => vi.useRealTimers());

type Result = { data: { formError?: string; fieldErrors?: Record<string, string>; notice?: string }; init: ResponseInit | null };

async function signIn(fields: Record<string, string>) {
  const result = (await loginAction({
    request: formPost("/accedi/some-uid", fields),
    params: { uid: "some-uid" },
    context: createRouterContext(services),
    url: new URL("http://localhost:3000/accedi/some-uid"),
    pattern: "",
  })) as unknown as Result;
  return result.data;
}

describe("login screen", () => {
  it("gives the spec's messages for missing fields", async () => {
    expect((await signIn({ email: "", password: "" })).fieldErrors).toEqual({
      email: MESSAGES.emailRequired,
      password: MESSAGES.passwordRequired,
    });
  });

  it("answers an unknown e-mail exactly like a wrong password", async () => {
    expect(await signIn({ email: "nobody@example.it", password })).toEqual({
      formError: MESSAGES.invalidCredentials,
      email: "nobody@example.it",
    });
    expect(await signIn({ email: "other@example.it", password: "Sbagliata1!" })).toEqual({
      formError: MESSAGES.invalidCredentials,
      email: "other@example.it",
    });
  });

  it("locks the account after 5 wrong passwords, refuses even the right one with the same message, then waits longer each time", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const start = new Date("2026-11-22T09:00:00Z");
    vi.setSystemTime(start);
    for (let i = 0; i < 5; i++)
      expect((await signIn({ email, password: "Sbagliata1!" })).formError).toBe(MESSAGES.invalidCredentials);
    // Locked: the right password gets the same answer.
    expect((await signIn({ email, password })).formError).toBe(MESSAGES.invalidCredentials);

    vi.setSystemTime(new Date(start.getTime() + 61_000));
    // Unlocked: the password is checked again (the interaction of this test does not exist, so
    // a correct password ends in "Sign-in failed", not in the wrong-credentials message).
    expect((await signIn({ email, password })).formError).toBe(MESSAGES.signInFailed);

    // Five more failures: the second lock lasts two minutes.
    for (let i = 0; i < 5; i++) await signIn({ email, password: "Sbagliata1!" });
    vi.setSystemTime(new Date(start.getTime() + 61_000 + 61_000));
    expect((await signIn({ email, password })).formError).toBe(MESSAGES.invalidCredentials);
    vi.setSystemTime(new Date(start.getTime() + 61_000 + 121_000));
    expect((await signIn({ email, password })).formError).toBe(MESSAGES.signInFailed);
  });

  it("records sign-in failures and successes in the audit log, without passwords", async () => {
    const [user] = await database.db.select().from(users).where(eq(users.email, email));
    const rows = await database.db.select().from(auditLog);
    expect(rows.some((r) => r.event === "sign_in_failure" && r.subject === email && r.ip === "203.0.113.7")).toBe(true);
    expect(rows.some((r) => r.event === "sign_in_success" && r.userId === user!.id)).toBe(true);
    expect(JSON.stringify(rows)).not.toContain("Sbagliata1!");
  });

  it("sends an account migrated from the old shop a link to set its password", async () => {
    await database.db.insert(users).values({ email: "storico@example.it", firstname: "Ada", migratedFromShop: true });
    expect((await signIn({ email: "storico@example.it", password: "Qualunque1!" })).notice).toBe(MESSAGES.migratedAccount);
    const [mail] = await services.mail.listOutbox(1);
    expect(mail?.to).toBe("storico@example.it");
    expect(mail?.text).toMatch(/http:\/\/localhost:3000\/mandatory-password\/reset\/[A-Za-z0-9_-]{43}/);
  });
});
