// Security: the fingerprints of the keys stored data depends on, and the rate limiters' counters.
import { integer, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { createdAt } from "./columns.ts";

/**
 * A fingerprint (an HMAC of a fixed label under the key, never the key) of each secret that makes
 * stored data unreadable when changed, written at first start: a restore started with another
 * key is refused instead of answering every stored code as invalid (server/security/key-fingerprints.ts).
 */
export const keyFingerprints = pgTable("key_fingerprints", {
  /** The setting's name, e.g. ACTIVATION_CODE_KEY. */
  setting: text("setting").primaryKey(),
  fingerprint: text("fingerprint").notNull(),
  createdAt: createdAt(),
});

/** Counters of the rate limiters (rate-limiter-flexible's Drizzle store), shared by every instance. */
export const rateLimits = pgTable("rate_limits", {
  key: text("key").primaryKey(),
  points: integer("points").notNull(),
  expire: timestamp("expire", { withTimezone: true }),
});
