import { createLogger, type Logger } from "#server/logger.ts";
import { createServices } from "#server/services.ts";
import type { Config } from "#server/config.ts";
import type { Clock, ShiftableClock } from "#server/lib/clock.ts";
import { ensureSigningKey } from "#server/identity/keys.ts";
import { testConfig } from "./config.ts";
import type { TestDatabase } from "./database.ts";

/** The application's services over a test database, as the server creates them (with the clock and logger given, if any). */
export async function createTestServices(
  database: TestDatabase,
  config: Config = testConfig(),
  { log = createLogger("silent"), ...clocks }: { now?: Clock; devClock?: ShiftableClock; log?: Logger } = {},
) {
  await ensureSigningKey(database.db);
  return createServices({ config, database, log, ...clocks });
}
