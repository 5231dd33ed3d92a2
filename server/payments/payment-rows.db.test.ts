// A payment's readable code drawn twice in a day: the row takes another code, and a charge
// recorded already is answered null (not a second row).
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "#tests/support/database.ts";
import { orders, payments, users } from "#server/db/schema/index.ts";
import { insertPayment } from "./payment-rows.ts";

let database: TestDatabase;
let base: Parameters<typeof insertPayment>[1];

beforeAll(async () => {
  database = await createTestDatabase();
  const at = new Date();
  const [user] = await database.db.insert(users).values({ email: "codici@example.it" }).returning({ id: users.id });
  const [order] = await database.db
    .insert(orders)
    .values({ orderCode: "NX-CODICI", userId: user!.id, status: "payed" })
    .returning({ id: orders.id });
  base = {
    orderId: order!.id,
    userId: user!.id,
    gateway: "sandbox",
    methodCode: "card_setup",
    amountCents: 450,
    chargeId: "sbx_ch_1",
    paidAt: at,
    createdAt: at,
  };
});
afterAll(() => database.destroy());

describe("insertPayment", () => {
  it("takes another code when the one drawn is taken, and records a charge once", async () => {
    const draws = ["PX000000-AAAAAA", "PX000000-AAAAAA", "PX000000-BBBBBB"];
    const next = () => draws.shift()!;
    const first = await database.db.transaction((tx) => insertPayment(tx, base, next));
    expect(first?.paymentCode).toBe("PX000000-AAAAAA");
    const second = await database.db.transaction((tx) => insertPayment(tx, { ...base, chargeId: "sbx_ch_2" }, next));
    expect(second?.paymentCode).toBe("PX000000-BBBBBB");
    expect(await database.db.transaction((tx) => insertPayment(tx, base))).toBeNull();
    const rows = await database.db.select().from(payments).where(eq(payments.orderId, base.orderId));
    expect(rows.map((r) => [r.chargeId, r.paymentCode]).sort()).toEqual([
      ["sbx_ch_1", "PX000000-AAAAAA"],
      ["sbx_ch_2", "PX000000-BBBBBB"],
    ]);
  });

  it("gives up after a few draws, writing nothing", async () => {
    const taken = () => "PX000000-AAAAAA";
    await expect(database.db.transaction((tx) => insertPayment(tx, { ...base, chargeId: "sbx_ch_3" }, taken))).rejects.toThrow(
      /No free payment code/,
    );
    expect(await database.db.select().from(payments).where(eq(payments.chargeId, "sbx_ch_3"))).toEqual([]);
  });
});
