// The bulk seed of npm run load and npm run bench:subscriptions: batches whose tags and numbers
// would run together (batch 1's 11th, batch 11's 1st) keep their sandbox ids apart (issue 32:
// `npm run load -- --months 1200` crashed the seeding on `sbx_seti_lfseed111`).
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedSubscriptions } from "#scripts/bench/subscription-seed.ts";
import { periodStart } from "#shared/subscription.ts";
import { START } from "#tests/support/clock.ts";
import { createTestDatabase, type TestDatabase } from "#tests/support/database.ts";

let database: TestDatabase;
beforeAll(async () => (database = await createTestDatabase()));
afterAll(() => database.close());

describe("seedSubscriptions", () => {
  it("seeds batch 1's 11th and batch 11's 1st side by side, each with sandbox ids of its own", async () => {
    // The months as npm run load sets them, from the tests' clock (the seed reads no clock of its own).
    const anchor = periodStart(START, 0);
    const months = { anchor, due: periodStart(anchor, 2), monthThree: periodStart(anchor, 3) };
    await seedSubscriptions(database.db, 11, months, "seed1");
    await seedSubscriptions(database.db, 1, months, "seed11");
    const { rows } = (await database.db.execute(
      sql`select count(*)::int as n, count(distinct setup_id)::int as setups from subscriptions where user_id in (select id from users where email like '%@seed1%.example')`,
    )) as unknown as { rows: { n: number; setups: number }[] };
    expect(rows[0]).toEqual({ n: 12, setups: 12 });
  });
});
