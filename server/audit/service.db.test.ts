import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "#tests/support/database.ts";
import { auditLog, users } from "#server/db/schema/index.ts";
import { createAuditLog, type AuditLog } from "./service.ts";

let database: TestDatabase;
let audit: AuditLog;

beforeAll(async () => {
  database = await createTestDatabase({ seed: false });
  audit = createAuditLog(database.db);
});
afterAll(() => database.destroy());

async function createUser(email: string) {
  const [user] = await database.db.insert(users).values({ email }).returning({ id: users.id });
  return user!.id;
}

describe("audit log", () => {
  it("records an account's events and lists them newest first, only theirs", async () => {
    const mario = await createUser("mario@example.it");
    const giulia = await createUser("giulia@example.it");
    await audit.record("sign_in_success", { userId: mario, ip: "203.0.113.7" });
    await audit.record("password_reset_requested", { userId: giulia, ip: "198.51.100.20" });
    await audit.record("password_reset", { userId: mario, ip: "2001:db8::1" });
    await audit.record("password_changed", { userId: mario });

    const entries = await audit.listForUser(mario);
    expect(entries.map((e) => [e.event, e.ip])).toEqual([
      ["password_changed", null],
      ["password_reset", "2001:db8::1"],
      ["sign_in_success", "203.0.113.7"],
    ]);
    expect(entries[0]).toEqual({
      id: expect.any(String),
      event: "password_changed",
      userId: mario,
      subject: null,
      ip: null,
      actor: null,
      details: null,
      createdAt: expect.any(Date),
    });
    expect((await audit.listForUser(mario, 2)).map((e) => e.event)).toEqual(["password_changed", "password_reset"]);
    expect((await audit.listForUser(giulia)).map((e) => e.event)).toEqual(["password_reset_requested"]);
  });

  it("stores the e-mail typed at a failed sign-in trimmed, lower-cased and bounded, and a bounded address", async () => {
    const typed = `  ${"A".repeat(300)}@Example.it `;
    await audit.record("sign_in_failure", { subject: "  Nessuno@Example.IT ", ip: "203.0.113.9" });
    await audit.record("sign_in_failure", { subject: typed, ip: "x".repeat(60) });

    const rows = await database.db.select().from(auditLog).where(eq(auditLog.event, "sign_in_failure"));
    const byIp = new Map(rows.map((r) => [r.ip?.slice(0, 3), r]));
    expect(byIp.get("203")).toMatchObject({ userId: null, subject: "nessuno@example.it", ip: "203.0.113.9" });
    expect(byIp.get("xxx")!.subject).toBe("a".repeat(254));
    expect(byIp.get("xxx")!.ip).toBe("x".repeat(45));
  });

  it("records who ran an operator's command and what it did", async () => {
    const anna = await createUser("anna@example.it");
    await audit.record("access_granted", {
      userId: anna,
      actor: "  operator:rossi  ",
      details: { product: "EB-1", months: 3, expiresAt: "2027-01-01T00:00:00.000Z" },
    });
    const [entry] = await audit.listForUser(anna);
    expect(entry).toMatchObject({
      event: "access_granted",
      actor: "operator:rossi",
      details: { product: "EB-1", months: 3, expiresAt: "2027-01-01T00:00:00.000Z" },
    });
    await audit.record("coupon_created", { actor: `operator:${"x".repeat(200)}` });
    const [coupon] = await database.db.select().from(auditLog).where(eq(auditLog.event, "coupon_created"));
    expect(coupon!.actor).toHaveLength(100);
    expect(coupon!.details).toBeNull();
  });

  it("refuses an event it does not know", async () => {
    await expect(audit.record("password_leaked" as never, {})).rejects.toThrow(/Unknown audit event/);
  });

  it("records inside the caller's transaction, and keeps the entries of a deleted account without its id", async () => {
    const userId = await createUser("cancellato@example.it");
    await expect(
      database.db.transaction(async (tx) => {
        await createAuditLog(tx).record("account_deleted", { userId });
        throw new Error("rolled back");
      }),
    ).rejects.toThrow("rolled back");
    expect(await audit.listForUser(userId)).toEqual([]);

    await database.db.transaction(async (tx) => {
      await createAuditLog(tx).record("account_deleted", { userId, ip: "203.0.113.7" });
      await tx.delete(users).where(eq(users.id, userId));
    });
    const [entry] = await database.db.select().from(auditLog).where(eq(auditLog.event, "account_deleted"));
    expect(entry).toMatchObject({ userId: null, ip: "203.0.113.7" });
  });
});
