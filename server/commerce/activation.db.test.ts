import { readFileSync } from "node:fs";
import { asc, count, eq, inArray, sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { createTestDatabase, type TestDatabase } from "#tests/support/database.ts";
import { openDatabase, type DatabaseHandle } from "#server/db/client.ts";
import {
  activationCodeBatches,
  activationCodes,
  activationRedemptions,
  entitlements,
  orderItems,
  orders,
  products,
  productTypes,
  rateLimits,
  users,
  type ActivationCodeKind,
} from "#server/db/schema/index.ts";
import { createRateLimits, RATE_LIMIT_POLICIES, type RateLimits } from "#server/security/rate-limits.ts";
import { createActivation, type Activation } from "./activation.ts";
import { formatCode, generateCode, hashCode, normalizeCode } from "#server/library/codes.ts";
import { addMonths, EDU_PRODUCT_CODE } from "#shared/library-constants.ts";
import { eduActiveUntil } from "#server/library/entitlements.ts";

const KEY = "test-activation-code-key-long-enough-0123456789";
const IP = "203.0.113.7";

let database: TestDatabase;
/** On PostgreSQL, a second pool to the same database: another server instance. */
let otherInstance: DatabaseHandle | undefined;
let limits: RateLimits;
let activation: Activation;
/** One seeded product of each type the code kinds grant. */
let product: Record<"ebook" | "paper_flex" | "corso" | "rivista", { id: string; name: string }>;
let eduProductId: string;

beforeAll(async () => {
  database = await createTestDatabase();
  if (database.connection) otherInstance = await openDatabase({ ...database.connection, poolMax: 5 });
  limits = createRateLimits(database.db, { clearExpiredByTimeout: false });
  activation = createActivation({ db: database.db, codeKey: KEY, rateLimits: limits });
  const firstOfType = async (code: string) => {
    const [row] = await database.db
      .select({ id: products.id, name: products.name })
      .from(products)
      .innerJoin(productTypes, eq(productTypes.id, products.productTypeId))
      .where(eq(productTypes.code, code))
      .orderBy(asc(products.sku))
      .limit(1);
    return row!;
  };
  product = {
    ebook: await firstOfType("ebook"),
    paper_flex: await firstOfType("paper_flex"),
    corso: await firstOfType("corso"),
    rivista: await firstOfType("rivista"),
  };
  const [edu] = await database.db.select({ id: products.id }).from(products).where(eq(products.code, EDU_PRODUCT_CODE));
  eduProductId = edu!.id;
});
afterAll(async () => {
  await otherInstance?.close();
  await database.destroy();
});
beforeEach(async () => {
  await database.db.delete(rateLimits);
});

let userNumber = 0;
/** Customers inserted directly: activation needs only a row to point at. */
async function newUsers(n: number): Promise<string[]> {
  const rows = await database.db
    .insert(users)
    .values(Array.from({ length: n }, () => ({ email: `cliente${++userNumber}@example.it` })))
    .returning({ id: users.id });
  return rows.map((r) => r.id);
}
const newUser = async () => (await newUsers(1))[0]!;

async function batch(options: Partial<Parameters<Activation["createBatch"]>[0]> = {}) {
  const { codes, batchId } = await activation.createBatch({
    productId: product.ebook.id,
    kind: "ebook",
    label: "Test",
    count: 3,
    ...options,
  });
  return { batchId, codes };
}
const oneCode = async (options: Partial<Parameters<Activation["createBatch"]>[0]> = {}) => (await batch(options)).codes[0]!;

async function codeRow(code: string) {
  const [row] = await database.db
    .select()
    .from(activationCodes)
    .where(eq(activationCodes.codeHash, hashCode(KEY, normalizeCode(code)!)));
  return row!;
}
async function rowsOf(table: typeof orders | typeof entitlements | typeof activationRedemptions, userIds: string[]) {
  const [row] = await database.db.select({ n: count() }).from(table).where(inArray(table.userId, userIds));
  return row!.n;
}
/** A well-formed code that was never issued. */
const unknownCode = () => formatCode(generateCode());

const DAY = 86_400_000;

describe("createBatch", () => {
  it("hands out distinct formatted codes once and stores only their keyed hashes", async () => {
    const { batchId, codes } = await batch({ count: 2500, maxUses: 3, label: "  Ristampa 2026  " });
    expect(codes).toHaveLength(2500);
    expect(new Set(codes).size).toBe(2500);
    for (const code of codes) expect(code).toMatch(/^[0-9A-Z]{4}(-[0-9A-Z]{4}){3}$/);

    const [stored] = await database.db.select().from(activationCodeBatches).where(eq(activationCodeBatches.id, batchId));
    expect(stored).toMatchObject({ label: "Ristampa 2026", maxUses: 3, kind: "ebook", productId: product.ebook.id });
    const rows = await database.db.select().from(activationCodes).where(eq(activationCodes.batchId, batchId));
    expect(rows).toHaveLength(2500);
    const hashes = new Set(rows.map((r) => r.codeHash));
    for (const code of codes) expect(hashes.has(hashCode(KEY, normalizeCode(code)!))).toBe(true);
    const everything = JSON.stringify(rows);
    for (const code of codes.slice(0, 50)) {
      expect(everything).not.toContain(code);
      expect(everything).not.toContain(normalizeCode(code));
    }
  });

  it("refuses nonsense", async () => {
    await expect(batch({ count: 0 })).rejects.toThrow();
    await expect(batch({ count: 1.5 })).rejects.toThrow();
    await expect(batch({ maxUses: 0 })).rejects.toThrow();
    await expect(batch({ kind: "gift" as ActivationCodeKind })).rejects.toThrow();
    await expect(batch({ validFrom: new Date(), validUntil: new Date(Date.now() - DAY) })).rejects.toThrow();
  });
});

describe("verify", () => {
  it("says valid for an issued code however it is typed, invalid for anything else", async () => {
    const user = await newUser();
    const code = await oneCode();
    expect(await activation.verify({ userId: user, ip: IP, code })).toBe("valid");
    expect(await activation.verify({ userId: user, ip: IP, code: ` ${code.toLowerCase().replaceAll("-", " ")} ` })).toBe("valid");
    expect(await activation.verify({ userId: user, ip: IP, code: unknownCode() })).toBe("invalid");
    expect(await activation.verify({ userId: user, ip: IP, code: code.slice(0, -1) })).toBe("invalid");
    expect(await activation.verify({ userId: user, ip: IP, code: "" })).toBe("invalid");
    // Checking uses nothing up.
    expect((await codeRow(code)).uses).toBe(0);
  });

  it("says invalid outside the batch's validity window, valid inside it", async () => {
    const user = await newUser();
    const now = new Date();
    const expired = await oneCode({ validUntil: new Date(now.getTime() - 1000) });
    const future = await oneCode({ validFrom: new Date(now.getTime() + DAY) });
    const window = await oneCode({ validFrom: new Date(now.getTime() - DAY), validUntil: new Date(now.getTime() + DAY) });
    expect(await activation.verify({ userId: user, ip: IP, code: expired, now })).toBe("invalid");
    expect(await activation.verify({ userId: user, ip: IP, code: future, now })).toBe("invalid");
    expect(await activation.verify({ userId: user, ip: IP, code: window, now })).toBe("valid");
    expect(await activation.verify({ userId: user, ip: IP, code: future, now: new Date(now.getTime() + 2 * DAY) })).toBe("valid");
    expect(await activation.verify({ userId: user, ip: IP, code: window, now: new Date(now.getTime() + DAY) })).toBe("invalid");
  });

  it("says invalid for a code used up by others, and already redeemed to the customer who activated it", async () => {
    const [first, second] = await newUsers(2);
    const code = await oneCode();
    expect((await activation.activate({ userId: first!, ip: IP, code })).ok).toBe(true);
    expect(await activation.verify({ userId: first!, ip: IP, code })).toBe("already_redeemed");
    expect(await activation.verify({ userId: second!, ip: IP, code })).toBe("invalid");
  });

  it("does not accept codes hashed under another key (a copied table is useless)", async () => {
    const user = await newUser();
    const code = await oneCode();
    const elsewhere = createActivation({ db: database.db, codeKey: "another-key-another-key-another-key", rateLimits: limits });
    expect(await elsewhere.verify({ userId: user, ip: IP, code })).toBe("invalid");
    expect(await activation.verify({ userId: user, ip: IP, code })).toBe("valid");
  });
});

describe("activate", () => {
  it("creates a paid order of 0 with the product as its item and 6 months of access from now", async () => {
    const user = await newUser();
    const code = await oneCode({ kind: "paper_digital", productId: product.paper_flex.id });
    const now = new Date("2026-08-31T10:00:00Z");
    const result = await activation.activate({ userId: user, ip: IP, code, now });
    expect(result).toMatchObject({
      ok: true,
      productId: product.paper_flex.id,
      productName: product.paper_flex.name,
      expiresAt: new Date("2027-02-28T10:00:00Z"),
    });
    if (!result.ok) throw new Error("unreachable");
    expect(result.orderCode).toMatch(/^NX260831-[0-9A-Z]{6}$/);

    const [order] = await database.db.select().from(orders).where(eq(orders.userId, user));
    expect(order).toMatchObject({
      id: result.orderId,
      orderCode: result.orderCode,
      status: "payed",
      totalCents: 0,
      committedAt: now,
    });
    const items = await database.db.select().from(orderItems).where(eq(orderItems.orderId, result.orderId));
    expect(items).toEqual([
      expect.objectContaining({
        productId: product.paper_flex.id,
        description: product.paper_flex.name,
        productTypeCode: "paper_flex",
        totalCents: 0,
        quantity: 1,
      }),
    ]);
    // A line written before lines named their type gets it from the upgrade (migration 0021).
    await database.db.update(orderItems).set({ productTypeCode: null }).where(eq(orderItems.orderId, result.orderId));
    const upgrade = readFileSync(new URL("../db/migrations/0021_activation_lines_typed.sql", import.meta.url), "utf8");
    await database.db.execute(sql.raw(upgrade));
    const [upgraded] = await database.db.select().from(orderItems).where(eq(orderItems.orderId, result.orderId));
    expect(upgraded!.productTypeCode).toBe("paper_flex");
    const granted = await database.db.select().from(entitlements).where(eq(entitlements.userId, user));
    expect(granted).toEqual([
      expect.objectContaining({
        productId: product.paper_flex.id,
        source: "activation_code",
        startsAt: now,
        expiresAt: addMonths(now, 6),
        orderId: result.orderId,
      }),
    ]);
    const redemptions = await database.db.select().from(activationRedemptions).where(eq(activationRedemptions.userId, user));
    expect(redemptions).toEqual([expect.objectContaining({ orderId: result.orderId, codeId: (await codeRow(code)).id })]);
    expect((await codeRow(code)).uses).toBe(1);
  });

  it.each([
    ["ebook", "ebook"],
    ["paper_digital", "paper_flex"],
    ["course", "corso"],
    ["journal", "rivista"],
  ] as const)("a %s code grants its batch's product and nothing else", async (kind, type) => {
    const user = await newUser();
    const code = await oneCode({ kind, productId: product[type].id });
    expect(await activation.activate({ userId: user, ip: IP, code })).toMatchObject({ ok: true, productId: product[type].id });
    const granted = await database.db
      .select({ productId: entitlements.productId })
      .from(entitlements)
      .where(eq(entitlements.userId, user));
    expect(granted).toEqual([{ productId: product[type].id }]);
    expect(await eduActiveUntil(database.db, user)).toBeNull();
  });

  it("answers already_redeemed to the customer who activated the code, invalid to anyone else once used up", async () => {
    const [first, second] = await newUsers(2);
    const single = await oneCode();
    expect((await activation.activate({ userId: first!, ip: IP, code: single })).ok).toBe(true);
    expect(await activation.activate({ userId: first!, ip: IP, code: single })).toEqual({
      ok: false,
      reason: "already_redeemed",
    });
    expect(await activation.activate({ userId: second!, ip: IP, code: single })).toEqual({ ok: false, reason: "invalid" });

    const shared = await oneCode({ maxUses: 5 });
    expect((await activation.activate({ userId: first!, ip: IP, code: shared })).ok).toBe(true);
    expect(await activation.activate({ userId: first!, ip: IP, code: shared.toLowerCase() })).toEqual({
      ok: false,
      reason: "already_redeemed",
    });
    expect((await activation.activate({ userId: second!, ip: IP, code: shared })).ok).toBe(true);
    expect((await codeRow(shared)).uses).toBe(2);
    expect(await rowsOf(orders, [first!])).toBe(2);
  });

  it("refuses unknown, malformed, expired and not-yet-valid codes, changing nothing", async () => {
    const user = await newUser();
    const now = new Date();
    const expired = await oneCode({ validUntil: new Date(now.getTime() - 1000) });
    const future = await oneCode({ validFrom: new Date(now.getTime() + DAY) });
    for (const code of [unknownCode(), "ABC", "", expired, future]) {
      expect(await activation.activate({ userId: user, ip: IP, code, now })).toEqual({ ok: false, reason: "invalid" });
    }
    expect((await codeRow(expired)).uses).toBe(0);
    expect((await codeRow(future)).uses).toBe(0);
    expect(await rowsOf(orders, [user])).toBe(0);
    expect(await rowsOf(entitlements, [user])).toBe(0);
  });

  it("refuses every code of a batch an operator disabled exactly like an unknown code, and counts the guess", async () => {
    const [first, second] = await newUsers(2);
    const { batchId, codes } = await batch({ count: 3, maxUses: 2 });
    expect((await activation.activate({ userId: first!, ip: IP, code: codes[0]! })).ok).toBe(true);
    await database.db.update(activationCodeBatches).set({ disabledAt: new Date() }).where(eq(activationCodeBatches.id, batchId));

    const unknown = { verify: await activation.verify({ userId: second!, ip: IP, code: unknownCode() }) };
    expect(unknown.verify).toBe("invalid");
    for (const code of codes) {
      expect(await activation.verify({ userId: second!, ip: IP, code })).toBe(unknown.verify);
      expect(await activation.activate({ userId: second!, ip: IP, code })).toEqual({ ok: false, reason: "invalid" });
    }
    // The customer who activated a code before is still told so (their access stays).
    expect(await activation.verify({ userId: first!, ip: IP, code: codes[0]! })).toBe("already_redeemed");
    expect((await codeRow(codes[0]!)).uses).toBe(1);
    expect((await codeRow(codes[1]!)).uses).toBe(0);
    expect(await rowsOf(orders, [second!])).toBe(0);
    // Each refusal was a failed guess, as for a code that does not exist: 1 + 3 checks + 3 activations.
    const [counter] = await database.db
      .select()
      .from(rateLimits)
      .where(eq(rateLimits.key, `activationUser:${second!}`));
    expect(counter?.points).toBe(7);
  });

  it("lets exactly one of 100 customers racing for a single-use code have it", async () => {
    const customers = await newUsers(100);
    const code = await oneCode();
    const results = await Promise.all(
      customers.map((userId, i) => instance(i).activate({ userId, ip: `198.51.100.${i}`, code })),
    );
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    expect(results.filter((r) => !r.ok && r.reason === "invalid")).toHaveLength(99);
    expect(await rowsOf(orders, customers)).toBe(1);
    expect(await rowsOf(activationRedemptions, customers)).toBe(1);
    expect(await rowsOf(entitlements, customers)).toBe(1);
    expect((await codeRow(code)).uses).toBe(1);
  });

  it("lets exactly 5 of 100 customers racing for a 5-use code have it", async () => {
    const customers = await newUsers(100);
    const code = await oneCode({ maxUses: 5 });
    const results = await Promise.all(
      customers.map((userId, i) => instance(i).activate({ userId, ip: `198.51.100.${i}`, code })),
    );
    const winners = results.flatMap((r, i) => (r.ok ? [customers[i]!] : []));
    expect(winners).toHaveLength(5);
    expect(await rowsOf(orders, customers)).toBe(5);
    expect(await rowsOf(activationRedemptions, customers)).toBe(5);
    expect(await rowsOf(entitlements, customers)).toBe(5);
    expect(await rowsOf(entitlements, winners)).toBe(5);
    expect((await codeRow(code)).uses).toBe(5);
  });

  it("activates a code once when one customer submits it 10 times at once", async () => {
    const user = await newUser();
    const code = await oneCode({ maxUses: 50 });
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => instance(i).activate({ userId: user, ip: IP, code })));
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    expect(results.filter((r) => !r.ok && r.reason === "already_redeemed")).toHaveLength(9);
    expect(await rowsOf(orders, [user])).toBe(1);
    expect(await rowsOf(entitlements, [user])).toBe(1);
    expect((await codeRow(code)).uses).toBe(1);
  });
});

describe("eBook+EDU codes", () => {
  it("grant the eBook and 6 months of EDU; a second one extends EDU to 12 months", async () => {
    const user = await newUser();
    const { codes } = await batch({ kind: "ebook_edu", count: 2 });
    const now = new Date("2026-09-15T08:00:00Z");

    const first = await activation.activate({ userId: user, ip: IP, code: codes[0]!, now });
    expect(first).toMatchObject({ ok: true, productId: product.ebook.id, expiresAt: addMonths(now, 6) });
    const granted = await database.db
      .select({ productId: entitlements.productId, expiresAt: entitlements.expiresAt, orderId: entitlements.orderId })
      .from(entitlements)
      .where(eq(entitlements.userId, user));
    expect(granted).toHaveLength(2);
    expect(granted).toEqual(
      expect.arrayContaining([
        { productId: product.ebook.id, expiresAt: new Date("2027-03-15T08:00:00Z"), orderId: first.ok ? first.orderId : "" },
        { productId: eduProductId, expiresAt: new Date("2027-03-15T08:00:00Z"), orderId: first.ok ? first.orderId : "" },
      ]),
    );
    expect(await eduActiveUntil(database.db, user)).toEqual(new Date("2027-03-15T08:00:00Z"));

    const later = new Date(now.getTime() + 10 * DAY);
    expect((await activation.activate({ userId: user, ip: IP, code: codes[1]!, now: later })).ok).toBe(true);
    expect(await eduActiveUntil(database.db, user)).toEqual(new Date("2027-09-15T08:00:00Z"));
    expect(await rowsOf(orders, [user])).toBe(2);
  });

  it("extends EDU once per code when one customer activates 8 codes at once", async () => {
    const user = await newUser();
    const { codes } = await batch({ kind: "ebook_edu", count: 8 });
    const now = new Date("2026-09-15T08:00:00Z");
    const results = await Promise.all(codes.map((code, i) => instance(i).activate({ userId: user, ip: IP, code, now })));
    expect(results.every((r) => r.ok)).toBe(true);
    // Each extension starts where the previous one ended: 8 × 6 months, none lost to a race.
    expect(await eduActiveUntil(database.db, user)).toEqual(addMonths(now, 48));
  });
});

describe("guessing", () => {
  const { points: perUser, blockDuration: userLock } = RATE_LIMIT_POLICIES.activationUser;
  const { points: perIp, blockDuration: ipLock } = RATE_LIMIT_POLICIES.activationIp;

  beforeEach(() => {
    // The rate limits read the clock through Date; timers stay real because the drivers need them.
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date("2026-03-12T09:00:00Z"));
  });
  afterEach(() => vi.useRealTimers());
  const advance = (seconds: number) => vi.setSystemTime(new Date(Date.now() + seconds * 1000));

  it("after the customer's failures, refuses even a valid code from any address until the lock is over", async () => {
    const [guesser, other] = await newUsers(2);
    const code = await oneCode();
    // Wrong codes count, through either operation.
    for (let i = 0; i < perUser; i++) {
      const guess = unknownCode();
      if (i % 2) expect(await activation.verify({ userId: guesser!, ip: IP, code: guess })).toBe("invalid");
      else expect(await activation.activate({ userId: guesser!, ip: IP, code: guess })).toEqual({ ok: false, reason: "invalid" });
    }

    expect(await activation.verify({ userId: guesser!, ip: "192.0.2.50", code })).toBe("invalid");
    expect(await activation.activate({ userId: guesser!, ip: "192.0.2.50", code })).toEqual({ ok: false, reason: "invalid" });
    expect((await codeRow(code)).uses).toBe(0);
    expect(await rowsOf(orders, [guesser!])).toBe(0);
    // Someone else, elsewhere, is not affected.
    expect(await activation.verify({ userId: other!, ip: "192.0.2.60", code })).toBe("valid");

    advance(userLock - 5);
    expect(await activation.verify({ userId: guesser!, ip: "192.0.2.50", code })).toBe("invalid");
    advance(6);
    expect(await activation.verify({ userId: guesser!, ip: "192.0.2.50", code })).toBe("valid");
    expect((await activation.activate({ userId: guesser!, ip: "192.0.2.50", code })).ok).toBe(true);
  });

  it("after an address's failures across customers, refuses a valid code to anyone there until the lock is over", async () => {
    const guessers = await newUsers(Math.ceil(perIp / (perUser - 1)));
    const [newcomer] = await newUsers(1);
    const code = await oneCode();
    // Spread so that no customer reaches their own limit.
    for (let i = 0; i < perIp; i++) {
      const userId = guessers[i % guessers.length]!;
      expect(await activation.verify({ userId, ip: IP, code: unknownCode() })).toBe("invalid");
    }

    expect(await activation.verify({ userId: newcomer!, ip: IP, code })).toBe("invalid");
    expect(await activation.activate({ userId: newcomer!, ip: IP, code })).toEqual({ ok: false, reason: "invalid" });
    expect((await codeRow(code)).uses).toBe(0);
    expect(await activation.verify({ userId: newcomer!, ip: "192.0.2.70", code })).toBe("valid");
    // IPv6 clients count per /64, like sign-in.
    expect(await activation.verify({ userId: newcomer!, ip: `::ffff:${IP}`, code })).toBe("invalid");

    advance(ipLock + 1);
    expect((await activation.activate({ userId: newcomer!, ip: IP, code })).ok).toBe(true);
  });

  it("does not count a customer's own code, a valid code, half-typed input, or attempts refused while locked", async () => {
    const user = await newUser();
    const [mine, fresh] = (await batch({ count: 2 })).codes;
    expect((await activation.activate({ userId: user, ip: IP, code: mine! })).ok).toBe(true);
    for (let i = 0; i < perUser; i++) {
      expect(await activation.activate({ userId: user, ip: IP, code: mine! })).toEqual({ ok: false, reason: "already_redeemed" });
      expect(await activation.verify({ userId: user, ip: IP, code: mine! })).toBe("already_redeemed");
      expect(await activation.verify({ userId: user, ip: IP, code: fresh! })).toBe("valid");
      // Half-typed input (the modal checks as the user types) cannot be a code: no guess either.
      expect(await activation.verify({ userId: user, ip: IP, code: fresh!.slice(0, 7) })).toBe("invalid");
    }
    const [row] = await database.db
      .select()
      .from(rateLimits)
      .where(eq(rateLimits.key, `activationUser:${user}`));
    expect(row).toBeUndefined();

    for (let i = 0; i < perUser; i++) await activation.verify({ userId: user, ip: IP, code: unknownCode() });
    for (let i = 0; i < 20; i++) await activation.verify({ userId: user, ip: IP, code: unknownCode() });
    const [locked] = await database.db
      .select()
      .from(rateLimits)
      .where(eq(rateLimits.key, `activationUser:${user}`));
    expect(locked?.points).toBe(perUser);
  });
});

/** Alternates the two pools on PostgreSQL, so races cross server instances as well as connections. */
function instance(i: number): Activation {
  if (!otherInstance || i % 2 === 0) return activation;
  return (otherActivation ??= createActivation({
    db: otherInstance.db,
    codeKey: KEY,
    rateLimits: createRateLimits(otherInstance.db, { clearExpiredByTimeout: false }),
  }));
}
let otherActivation: Activation | undefined;
