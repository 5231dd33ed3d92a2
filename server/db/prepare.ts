import type { Config } from "#server/config.ts";
import type { Logger } from "#server/logger.ts";
import { ensureSigningKey } from "#server/identity/keys.ts";
import { checkKeyFingerprints, dataKeys } from "#server/security/key-fingerprints.ts";
import type { DatabaseHandle } from "./client.ts";
import { DEMO_CUSTOMER, seedDemoAccounts } from "./seed/accounts.ts";
import { seedAndLogDemoCodes } from "./seed/activation-codes.ts";
import { seedDemoCoupons } from "./seed/coupons.ts";
import { products } from "./schema/index.ts";
import { seedDatabase, seedReferenceData } from "./seed/index.ts";
import { warnOfNewerSchema } from "./schema-version.ts";

/**
 * Brings the database up to date: applies the committed migrations, checks the keys the data was
 * written with, creates the identity provider's first signing key and the reference data and
 * editorial content the pages need (what is missing of it). Outside production only, the demo
 * data: the demo catalogue, demo accounts, demo activation codes (a few of which it logs) and the
 * demo discount code; production starts with no product, for `catalogue:import`. Warns when the
 * schema is newer than this code (an instance of the previous release). Runs under an advisory
 * lock so instances starting together take turns.
 */
export async function prepareDatabase(
  database: DatabaseHandle,
  config: Pick<Config, "links" | "isProduction" | "secrets">,
  log: Logger,
) {
  await database.withStartupLock(async (db) => {
    await database.migrate(db);
    await warnOfNewerSchema(db, log);
    // Before anything is written with them: the keys must be those the data was written with.
    await checkKeyFingerprints(db, dataKeys(config), new Date());
    await ensureSigningKey(db);
    const { inserted } = await (config.isProduction ? seedReferenceData : seedDatabase)(db, config.links);
    if (!config.isProduction) {
      if ((await seedDemoAccounts(db)) > 0) {
        log.info({ email: DEMO_CUSTOMER.email }, "demo customer created (development only; its password is in the README)");
      }
      await seedAndLogDemoCodes(db, config.secrets.activationCodeKey, log);
      await seedDemoCoupons(db);
    } else if ((await db.select({ id: products.id }).from(products).limit(1)).length === 0) {
      log.warn(
        "the catalogue has no product: load the publisher's with `npm run admin -- catalogue:import <file>` (docs/operating.md, The catalogue)",
      );
    }
    const differing = await database.timeoutsDifferingOutsideTransactions();
    if (differing.length > 0) {
      log.warn(
        { differing },
        "behind the pooler, statements outside a transaction run with the role's timeouts, not the configured ones: " +
          "set them with ALTER ROLE … SET (docs/operating.md, PgBouncer)",
      );
    }
    log.info({ database: database.kind, seeded: inserted }, inserted ? "database migrated and seeded" : "database migrated");
  });
}
