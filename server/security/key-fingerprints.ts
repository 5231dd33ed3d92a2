// Secrets that make stored data unreadable when changed are part of the backup. Today there is
// one: ACTIVATION_CODE_KEY (codes are stored as HMACs under it; with another key every printed
// code answers "invalid"). The others only sign what a restart may drop: SESSION_SECRET and
// OIDC_COOKIE_KEYS sign cookies (a change signs everyone out), OIDC_CLIENT_SECRET is checked
// against itself, and the provider's own signing keys live in the database. A database keeps a
// fingerprint of each such key from its first start, and a start with another key is refused.
import { createHmac } from "node:crypto";
import { inArray } from "drizzle-orm";
import { ConfigError, type Config } from "#server/config.ts";
import type { Queryable } from "#server/db/client.ts";
import { keyFingerprints } from "#server/db/schema/index.ts";

/** Fixed, so that the fingerprint depends on the key alone; never the key itself. */
const LABEL = "portal key fingerprint v1";

export function fingerprintOf(key: string): string {
  return createHmac("sha256", key).update(LABEL).digest("hex");
}

/** Each setting the stored data depends on: its value, and what another value would break. */
const DATA_KEYS: Record<string, { value: (config: Pick<Config, "secrets">) => string; unreadable: string }> = {
  ACTIVATION_CODE_KEY: {
    value: (config) => config.secrets.activationCodeKey,
    unreadable: "every activation code it holds would be refused as invalid",
  },
};

export function dataKeys(config: Pick<Config, "secrets">): Record<string, string> {
  return Object.fromEntries(Object.entries(DATA_KEYS).map(([setting, key]) => [setting, key.value(config)]));
}

/**
 * Records the fingerprint of each key the database has none of yet (its first start, or the first
 * after an upgrade), then compares: a key that differs from the one the data was written with is
 * a ConfigError naming the setting, before anything else is written. Run under the start-up lock,
 * so that two instances starting together record one fingerprint.
 */
export async function checkKeyFingerprints(db: Queryable, keys: Record<string, string>, now: Date): Promise<void> {
  const settings = Object.keys(keys);
  if (settings.length === 0) return;
  await db
    .insert(keyFingerprints)
    .values(settings.map((setting) => ({ setting, fingerprint: fingerprintOf(keys[setting]!), createdAt: now })))
    .onConflictDoNothing();
  const stored = await db.select().from(keyFingerprints).where(inArray(keyFingerprints.setting, settings));
  const changed = stored.find((row) => row.fingerprint !== fingerprintOf(keys[row.setting]!));
  if (changed) {
    const what = DATA_KEYS[changed.setting]?.unreadable ?? "the data it protects would be unreadable";
    throw new ConfigError(
      `${changed.setting} is not the key this database was written with: start with the value kept with its backup ` +
        `(docs/operating.md, "Back up and restore"); with this one ${what}.`,
    );
  }
}
