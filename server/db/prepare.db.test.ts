import { count, isNotNull, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "#tests/support/database.ts";
import { testConfig } from "#tests/support/config.ts";
import { createAccountsService } from "#server/accounts/service.ts";
import { ConfigError } from "#server/config.ts";
import { createLogger } from "#server/logger.ts";
import { fingerprintOf } from "#server/security/key-fingerprints.ts";
import { openDatabase } from "./client.ts";
import { unknownMigrations } from "./schema-version.ts";
import { prepareDatabase } from "./prepare.ts";
import {
  activationCodes,
  coupons,
  degreeCourses,
  discoverBoxes,
  ebookChapters,
  faqEntries,
  interests,
  keyFingerprints,
  landingCards,
  landingPages,
  productTypes,
  products,
  professions,
  subjects,
  universities,
  users,
} from "./schema/index.ts";
import { DEMO_CUSTOMER } from "./seed/accounts.ts";

const log = createLogger("silent");
let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase({ migrate: false });
});
afterAll(() => database.destroy());

async function counts() {
  const [p] = await database.db.select({ n: count() }).from(products);
  const [t] = await database.db.select({ n: count() }).from(productTypes);
  const [l] = await database.db.select({ n: count() }).from(landingPages);
  const [u] = await database.db.select({ n: count() }).from(users);
  return { products: p!.n, types: t!.n, landings: l!.n, users: u!.n };
}

describe("prepareDatabase", () => {
  it("migrates and seeds an empty database, and running it again changes nothing", async () => {
    await prepareDatabase(database, testConfig(), log);
    const first = await counts();
    expect(first.products).toBeGreaterThan(50);
    expect(first.landings).toBe(8);
    expect(first.users).toBe(3); // the demo customer and two accounts migrated from the old shop
    await prepareDatabase(database, testConfig(), log);
    expect(await counts()).toEqual(first);
  });

  it("creates the demo discount code outside production", async () => {
    expect(await database.db.select({ code: coupons.code }).from(coupons)).toEqual([{ code: "BENVENUTO10" }]);
  });

  it("creates no demo data in production: no product, no account, no discount code; the reference data only", async () => {
    const fresh = await createTestDatabase({ migrate: false });
    try {
      await prepareDatabase(fresh, testConfig({ NODE_ENV: "production", PAYMENTS: "sandbox" }), log);
      const [u] = await fresh.db.select({ n: count() }).from(users);
      expect(u!.n).toBe(0);
      // A live welcome code is the publisher's decision (coupons:create), not the seed's.
      expect(await fresh.db.select().from(coupons)).toEqual([]);
      // The catalogue is the publisher's (catalogue:import): no demo product, chapter or box showing one.
      for (const table of [products, ebookChapters, discoverBoxes, activationCodes]) {
        expect((await fresh.db.select({ n: count() }).from(table))[0]!.n).toBe(0);
      }
      expect(await fresh.db.select().from(landingCards).where(isNotNull(landingCards.productId))).toEqual([]);
      // What the pages need to work is there.
      for (const table of [
        productTypes,
        professions,
        interests,
        universities,
        degreeCourses,
        subjects,
        faqEntries,
        landingPages,
      ]) {
        expect((await fresh.db.select({ n: count() }).from(table))[0]!.n).toBeGreaterThan(0);
      }
    } finally {
      await fresh.destroy();
    }
  });

  it("refuses a start with another ACTIVATION_CODE_KEY than the data was written with, naming it, keeping no key", async () => {
    await prepareDatabase(database, testConfig(), log);
    const other = "another-activation-code-key-long-enough-0123456789";
    await expect(prepareDatabase(database, testConfig({ ACTIVATION_CODE_KEY: other }), log)).rejects.toThrow(ConfigError);
    await expect(prepareDatabase(database, testConfig({ ACTIVATION_CODE_KEY: other }), log)).rejects.toThrow(
      /^ACTIVATION_CODE_KEY is not the key this database was written with/,
    );
    const stored = await database.db.select().from(keyFingerprints);
    expect(stored.map((row) => row.setting)).toEqual(["ACTIVATION_CODE_KEY"]);
    expect(stored[0]!.fingerprint).toBe(fingerprintOf(testConfig().secrets.activationCodeKey));
    expect(stored[0]!.fingerprint).not.toContain(testConfig().secrets.activationCodeKey);
    // The right key starts again.
    await expect(prepareDatabase(database, testConfig(), log)).resolves.toBeUndefined();
  });

  it("lets the demo customer sign in with the README's password", async () => {
    const result = await createAccountsService(database.db).verifyCredentials(DEMO_CUSTOMER.email, DEMO_CUSTOMER.password);
    expect(result.ok).toBe(true);
  });

  it("lets two instances start at once on an empty database without racing (PostgreSQL)", async () => {
    const reference = await counts();
    const fresh = await createTestDatabase({ migrate: false });
    try {
      if (!fresh.connection) return expect(fresh.kind).toBe("pglite"); // a PGlite directory has a single owner process
      const [a, b] = await Promise.all([
        openDatabase({ ...fresh.connection, poolMax: 2 }),
        openDatabase({ ...fresh.connection, poolMax: 2 }),
      ]);
      try {
        await Promise.all([prepareDatabase(a, testConfig(), log), prepareDatabase(b, testConfig(), log)]);
        const [p] = await a.db.select({ n: count() }).from(products);
        expect(p!.n).toBe(reference.products);
      } finally {
        await Promise.all([a.close(), b.close()]);
      }
    } finally {
      await fresh.destroy();
    }
  });

  // An upgrade: the new release migrated; an instance of the previous one starts against it.
  it("warns at start when the database has a migration this code does not know", async () => {
    const lines: { level: number; msg: string; newestUnknownMigration?: { createdAt: string; hash: string } }[] = [];
    const capture = createLogger("warn", { write: (line: string) => void lines.push(JSON.parse(line)) });
    await prepareDatabase(database, testConfig(), capture);
    expect(lines).toEqual([]);

    const newer = Date.UTC(2031, 0, 2, 3, 4, 5);
    await database.db.execute(
      sql`insert into drizzle.__drizzle_migrations (hash, created_at) values ('from-a-newer-release', ${newer})`,
    );
    try {
      await prepareDatabase(database, testConfig(), capture);
      expect(lines).toHaveLength(1);
      expect(lines[0]!.msg).toMatch(/older than the database's schema.*2031-01-02T03:04:05.000Z/);
      expect(lines[0]!.newestUnknownMigration).toEqual({ createdAt: "2031-01-02T03:04:05.000Z", hash: "from-a-newer-release" });
    } finally {
      await database.db.execute(sql`delete from drizzle.__drizzle_migrations where hash = 'from-a-newer-release'`);
    }
    expect(await unknownMigrations(database.db)).toEqual([]);
  });
});
