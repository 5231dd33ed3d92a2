import { createLogger } from "../../server/logger.ts";
import { createServices } from "../../server/services.ts";
import type { Config } from "../../server/config.ts";
import { ensureSigningKey } from "../../server/identity/keys.ts";
import { testConfig } from "./config.ts";
import type { TestDatabase } from "./database.ts";

/** The application's services over a test database, as the server creates them. */
export async function createTestServices(database: TestDatabase, config: Config = testConfig()) {
  await ensureSigningKey(database.db);
  return createServices({ config, database, log: createLogger("silent") });
}
