import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../tests/support/database.ts";
import { HOUR, START } from "../../tests/support/clock.ts";
import { createLogger } from "../logger.ts";
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
});
