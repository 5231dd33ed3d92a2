import type { Config } from "../config.ts";
import type { Logger } from "../logger.ts";
import { ensureSigningKey } from "../identity/keys.ts";
import type { DatabaseHandle } from "./client.ts";
import { DEMO_CUSTOMER, seedDemoAccounts } from "./seed/accounts.ts";
import { seedAndLogDemoCodes } from "./seed/activation-codes.ts";
import { seedDemoCoupons } from "./seed/coupons.ts";
import { seedDatabase } from "./seed/index.ts";
import { warnOfNewerSchema } from "./schema-version.ts";

/**
 * Brings the database up to date: applies the committed migrations, creates the identity
 * provider's first signing key and, on an empty catalogue, the demo seed (plus, outside
 * production, demo accounts, demo activation codes, a few of which it logs, and the demo discount
 * code). Warns when the schema is newer than this code (an instance of the previous release). Runs under an advisory lock so instances starting together take turns.
 */
export async function prepareDatabase(
  database: DatabaseHandle,
  config: Pick<Config, "links" | "isProduction" | "secrets">,
  log: Logger,
) {
  await database.withStartupLock(async (db) => {
    await database.migrate(db);
    await warnOfNewerSchema(db, log);
    await ensureSigningKey(db);
    const { inserted } = await seedDatabase(db, config.links);
    if (!config.isProduction) {
      if ((await seedDemoAccounts(db)) > 0) {
        log.info({ email: DEMO_CUSTOMER.email }, "demo customer created (development only; its password is in the README)");
      }
      await seedAndLogDemoCodes(db, config.secrets.activationCodeKey, log);
      await seedDemoCoupons(db);
    }
    log.info({ database: database.kind, seeded: inserted }, inserted ? "database migrated and seeded" : "database migrated");
  });
}
