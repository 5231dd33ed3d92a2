// Database maintenance against the configured database (DATABASE_URL, or the embedded PGlite
// in DATA_DIR):  node scripts/db.ts migrate | seed | reset | rotate-signing-key
import { sql } from "drizzle-orm";
import { loadConfig } from "#server/config.ts";
import { configuredDatabase, openDatabase } from "#server/db/client.ts";
import { prepareDatabase } from "#server/db/prepare.ts";
import { seedDemoAccounts } from "#server/db/seed/accounts.ts";
import { seedAndLogDemoCodes } from "#server/db/seed/activation-codes.ts";
import { seedDemoCoupons } from "#server/db/seed/coupons.ts";
import { seedDatabase, seedReferenceData } from "#server/db/seed/index.ts";
import { rotateSigningKey } from "#server/identity/keys.ts";
import { createLogger } from "#server/logger.ts";

const command = process.argv[2];
if (!["migrate", "seed", "reset", "rotate-signing-key"].includes(command ?? "")) {
  console.error("usage: node scripts/db.ts migrate | seed | reset | rotate-signing-key");
  process.exit(2);
}

const config = loadConfig();
const log = createLogger(config.logLevel);
const database = await openDatabase(configuredDatabase(config.database, { poolMax: 2 }));
try {
  if (command === "migrate") {
    await database.withStartupLock((db) => database.migrate(db));
    log.info("migrations applied");
  } else if (command === "seed") {
    // Production gets the reference data only: its catalogue comes from catalogue:import.
    const { inserted } = await (config.isProduction ? seedReferenceData : seedDatabase)(database.db, config.links);
    const demo = config.isProduction
      ? 0
      : (await seedDemoAccounts(database.db)) +
        (await seedAndLogDemoCodes(database.db, config.secrets.activationCodeKey, log)) +
        (await seedDemoCoupons(database.db));
    const what = config.isProduction ? "reference data" : "demo data";
    log.info(inserted || demo ? `${what} inserted` : `${what} already present: nothing to do`);
  } else if (command === "rotate-signing-key") {
    // The provider signs with the newest key from its next start; older keys stay published so
    // tokens they signed still verify.
    const kid = await rotateSigningKey(database.db);
    log.info({ kid }, "new identity provider signing key added: restart every instance to sign with it");
  } else {
    if (config.isProduction) throw new Error("db:reset refuses to run with NODE_ENV=production");
    // Drops everything of ours, migration bookkeeping included, then rebuilds from scratch.
    await database.withStartupLock(async (db) => {
      for (const statement of [
        "drop schema if exists public cascade",
        "drop schema if exists drizzle cascade",
        "create schema public",
      ]) {
        await db.execute(sql.raw(statement));
      }
    });
    await prepareDatabase(database, config, log);
  }
} finally {
  await database.close();
}
