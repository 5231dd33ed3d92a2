import { count, eq, inArray } from "drizzle-orm";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testConfig } from "#tests/support/config.ts";
import { createTestDatabase, type TestDatabase } from "#tests/support/database.ts";
import { createActivation } from "#server/commerce/activation.ts";
import { hashCode, normalizeCode } from "#server/library/codes.ts";
import { createRateLimits } from "#server/security/rate-limits.ts";
import { prepareDatabase } from "#server/db/prepare.ts";
import { activationCodeBatches, activationCodes, products, users } from "#server/db/schema/index.ts";
import {
  DEMO_ACTIVATION_BATCHES,
  DEMO_ACTIVATION_CODES,
  demoCodesForLog,
  seedDemoActivationCodes,
  unusedDemoCodes,
} from "./activation-codes.ts";

const KEY = "test-activation-code-key-long-enough-0123456789";
const labels = DEMO_ACTIVATION_BATCHES.map((b) => b.label);
const codes = Object.keys(DEMO_ACTIVATION_CODES);

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.destroy());

async function stored() {
  const [b] = await database.db
    .select({ n: count() })
    .from(activationCodeBatches)
    .where(inArray(activationCodeBatches.label, labels));
  const [c] = await database.db.select({ n: count() }).from(activationCodes);
  return { batches: b!.n, codes: c!.n };
}

describe("demo activation codes", () => {
  it("cover every kind of code, a multi-use code among them, in the printed format", () => {
    expect(new Set(DEMO_ACTIVATION_BATCHES.map((b) => b.kind))).toEqual(
      new Set(["ebook", "paper_digital", "course", "journal", "ebook_edu"]),
    );
    expect(Object.values(DEMO_ACTIVATION_CODES).filter((c) => c.maxUses === 50)).toHaveLength(1);
    for (const code of codes) expect(code).toMatch(/^DEM0-[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}$/);
    // Typed with a letter O, as a customer reading "DEMO" would, they still work.
    expect(normalizeCode("demo-ebko-oooo-ooo1")).toBe(normalizeCode("DEM0-EBK0-0000-0001"));
  });

  it("are seeded once, on the catalogue's products, as hashes only", async () => {
    expect(await seedDemoActivationCodes(database.db, KEY)).toBe(codes.length);
    expect(await stored()).toEqual({ batches: DEMO_ACTIVATION_BATCHES.length, codes: codes.length });
    expect(await seedDemoActivationCodes(database.db, KEY)).toBe(0);
    expect(await stored()).toEqual({ batches: DEMO_ACTIVATION_BATCHES.length, codes: codes.length });

    const batches = await database.db
      .select({
        label: activationCodeBatches.label,
        kind: activationCodeBatches.kind,
        maxUses: activationCodeBatches.maxUses,
        sku: products.sku,
        name: products.name,
      })
      .from(activationCodeBatches)
      .innerJoin(products, eq(products.id, activationCodeBatches.productId));
    for (const demo of DEMO_ACTIVATION_BATCHES) {
      expect(batches).toContainEqual({
        label: demo.label,
        kind: demo.kind,
        maxUses: demo.maxUses,
        sku: demo.sku,
        name: demo.productName,
      });
    }
    const hashes = (await database.db.select({ h: activationCodes.codeHash }).from(activationCodes)).map((r) => r.h);
    expect(new Set(hashes)).toEqual(new Set(codes.map((code) => hashCode(KEY, normalizeCode(code)!))));
  });

  it("activate what docs/features.md says, and drop out of the unused list once used up", async () => {
    const rateLimits = createRateLimits(database.db, { clearExpiredByTimeout: false });
    const activation = createActivation({ db: database.db, codeKey: KEY, rateLimits });
    const [userA, userB] = await database.db
      .insert(users)
      .values([{ email: "demo-a@example.it" }, { email: "demo-b@example.it" }])
      .returning({ id: users.id });

    for (const code of codes) {
      expect(await activation.verify({ userId: userA!.id, ip: "192.0.2.1", code })).toBe("valid");
    }
    expect(await unusedDemoCodes(database.db, KEY)).toHaveLength(codes.length);

    const single = "DEM0-RVST-0000-0002";
    const shared = "DEM0-MANY-0000-0050";
    expect(await activation.activate({ userId: userA!.id, ip: "192.0.2.1", code: single })).toMatchObject({
      ok: true,
      productName: DEMO_ACTIVATION_CODES[single]!.productName,
    });
    expect((await activation.activate({ userId: userA!.id, ip: "192.0.2.1", code: shared })).ok).toBe(true);
    expect((await activation.activate({ userId: userB!.id, ip: "192.0.2.1", code: shared })).ok).toBe(true);

    const unused = await unusedDemoCodes(database.db, KEY);
    expect(unused.map((c) => c.code)).toEqual(codes.filter((c) => c !== single));
    expect(unused.find((c) => c.code === shared)?.usesLeft).toBe(48);
    // The log shows one code per batch: the first unused one.
    const log = demoCodesForLog(unused);
    expect(log).toHaveLength(DEMO_ACTIVATION_BATCHES.length);
    expect(log).toContain("DEM0-RVST-0000-0001 (journal: Rivista di diritto civile e commerciale)");
    expect(log).toContain("DEM0-MANY-0000-0050 (ebook: Schemi di diritto civile, 48 uses left)");
    rateLimits.close();
  });

  it("are stored again under a new key, in the same batches, so they keep working", async () => {
    const before = await stored();
    expect(await seedDemoActivationCodes(database.db, "a-new-development-key-0123456789")).toBe(codes.length);
    expect(await stored()).toEqual({ batches: before.batches, codes: before.codes + codes.length });
    expect(await unusedDemoCodes(database.db, "a-new-development-key-0123456789")).toHaveLength(codes.length);
  });
});

describe("at start-up", () => {
  async function prepareFresh(env: Record<string, string>) {
    const fresh = await createTestDatabase({ migrate: false });
    const lines: { msg: string; codes?: string[] }[] = [];
    const log = pino({ level: "info" }, { write: (line: string) => void lines.push(JSON.parse(line) as (typeof lines)[number]) });
    try {
      const config = testConfig(env);
      await prepareDatabase(fresh, config, log);
      const unused = await unusedDemoCodes(fresh.db, config.secrets.activationCodeKey);
      return { unused, logged: lines.find((l) => l.msg === "demo activation codes (development only)")?.codes };
    } finally {
      await fresh.destroy();
    }
  }

  it("seeds the demo codes under the configured key and logs one per batch", async () => {
    const { unused, logged } = await prepareFresh({});
    expect(unused).toHaveLength(codes.length);
    expect(logged).toHaveLength(DEMO_ACTIVATION_BATCHES.length);
    expect(logged?.[0]).toMatch(/^DEM0-EBK0-0000-0001 \(ebook: /);
  });

  it("seeds and logs none in production", async () => {
    const { unused, logged } = await prepareFresh({ NODE_ENV: "production", PAYMENTS: "sandbox" });
    expect(unused).toEqual([]);
    expect(logged).toBeUndefined();
  });
});
