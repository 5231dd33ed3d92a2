import { eq, inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createTestDatabase, type TestDatabase } from "#tests/support/database.ts";
import { HOUR, START } from "#tests/support/clock.ts";
import { jobs } from "#server/db/schema/index.ts";
import { createLogger } from "#server/logger.ts";
import { createJobRunner } from "./runner.ts";

describe("the job runner", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase({ seed: false });
  });
  afterAll(() => database.destroy());

  it("runs what is due as soon as it starts, not one interval later", async () => {
    const runner = createJobRunner({ db: database.db, log: createLogger("silent"), now: () => START });
    const sweptAt: Date[] = [];
    runner.sweep("probe", async (now) => {
      sweptAt.push(now);
      return 0;
    });
    runner.start(HOUR);
    try {
      await vi.waitFor(() => expect(sweptAt).toEqual([START]));
    } finally {
      await runner.stop();
    }
  });

  it("stops at the end of the jobs under way, not of the backlog, and hands back what it claimed and did not begin", async () => {
    const runner = createJobRunner({ db: database.db, log: createLogger("silent"), now: () => START });
    const begun: number[] = [];
    let release = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    runner.handle("stop-probe", async ({ n }: { n: number }) => {
      begun.push(n);
      await gate;
    });
    const keys = Array.from({ length: 10 }, (_, n) => `stop-probe:${n}`);
    for (const [n, key] of keys.entries())
      await runner.enqueue(database.db, { queue: "stop-probe", key, payload: { n }, runAt: START });

    runner.start(HOUR);
    // The first jobs have begun (as many as run at once) and wait: the instance is told to stop.
    await vi.waitFor(() => expect(begun.length).toBeGreaterThan(0));
    const stopped = runner.stop();
    release();
    await stopped;

    const rows = await database.db
      .select({ key: jobs.key, status: jobs.status, attempts: jobs.attempts, leaseUntil: jobs.leaseUntil })
      .from(jobs)
      .where(inArray(jobs.key, keys));
    const done = rows.filter((row) => row.status === "done");
    const queued = rows.filter((row) => row.status === "queued");
    expect(done).toHaveLength(begun.length);
    expect(begun.length).toBeLessThan(keys.length);
    // The rest is queued again at once for another instance, its try not spent: no lease to wait out.
    expect(queued).toHaveLength(keys.length - begun.length);
    expect(queued.every((row) => row.attempts === 0 && row.leaseUntil === null)).toBe(true);
  });

  // An upgrade: this instance is the previous release, which has no handler for a queue the new
  // release added; its jobs wait, untried, for an instance that knows the queue.
  it("claims only the jobs of the queues it has a handler for", async () => {
    const runner = createJobRunner({ db: database.db, log: createLogger("silent"), now: () => START });
    const handled: unknown[] = [];
    runner.handle("known-queue", async (payload) => {
      handled.push(payload);
    });
    await runner.enqueue(database.db, { queue: "known-queue", key: "known-1", payload: { n: 1 }, runAt: START });
    await runner.enqueue(database.db, { queue: "newer-release-queue", key: "newer-1", payload: { n: 2 }, runAt: START });

    expect(await runner.runDue()).toEqual({ "known-queue": 1 });
    expect(handled).toEqual([{ n: 1 }]);
    const [waiting] = await database.db.select().from(jobs).where(eq(jobs.key, "newer-1"));
    expect(waiting).toMatchObject({ status: "queued", attempts: 0, lastError: null });
  });
});
