// The PostgreSQL pool survives the server ending its connections (a restart, an administrator's
// pg_terminate_backend): found by `npm run load`, where `pg_ctl restart -m fast` killed an instance
// through an unhandled 'error' event of a connection checked out for a transaction.
import { sql } from "drizzle-orm";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../tests/support/database.ts";
import { openDatabase, type DatabaseHandle } from "./client.ts";

// Only against PostgreSQL (the suite's PostgreSQL run): PGlite has no server to end a connection.
describe.runIf(process.env.TEST_DATABASE === "postgres")("the PostgreSQL pool", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase({ migrate: false });
  });
  afterAll(() => database.destroy());

  it("fails the transaction whose connection the server ends, and goes on with a new connection", async () => {
    const errors: Error[] = [];
    const handle: DatabaseHandle = await openDatabase({ url: database.url!, poolMax: 2, onIdleError: (e) => errors.push(e) });
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    try {
      const outcome = await handle.db
        .transaction(async (tx) => {
          const { rows } = (await tx.execute(sql`select pg_backend_pid() as pid`)) as unknown as { rows: { pid: number }[] };
          await admin.query("select pg_terminate_backend($1)", [rows[0]!.pid]);
          // The server's FATAL message arrives while no statement of this connection runs.
          await new Promise((r) => setTimeout(r, 300));
          await tx.execute(sql`select 1`);
        })
        .then(
          () => "committed",
          () => "failed",
        );
      expect(outcome).toBe("failed");
      expect(errors.some((e) => (e as { code?: string }).code === "57P01")).toBe(true);
      const { rows } = (await handle.db.execute(sql`select 1 as one`)) as unknown as { rows: { one: number }[] };
      expect(rows[0]!.one).toBe(1);
    } finally {
      await admin.end();
      await handle.close();
    }
  });
});
