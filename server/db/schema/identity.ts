// The identity provider: oidc-provider's models, where apps signed in from, the signing keys.
import { index, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { users } from "./accounts.ts";
import { createdAt } from "./columns.ts";

/** oidc-provider's models (sessions, grants, codes, tokens, interactions...), one table for all. */
export const oidcPayloads = pgTable(
  "oidc_payloads",
  {
    id: text("id").notNull(),
    type: text("type").notNull(),
    payload: jsonb("payload").notNull(),
    grantId: text("grant_id"),
    userCode: text("user_code"),
    uid: text("uid"),
    expiresAt: timestamp("expires_at", { withTimezone: true }),
    consumedAt: timestamp("consumed_at", { withTimezone: true }),
  },
  (t) => [
    uniqueIndex("oidc_payloads_pk").on(t.type, t.id),
    index("oidc_payloads_grant_idx").on(t.grantId),
    index("oidc_payloads_uid_idx").on(t.uid),
    index("oidc_payloads_user_code_idx").on(t.userCode),
  ],
);

/**
 * Where each app grant (a provider client other than the portal, e.g. the publisher's app) last
 * got tokens from, for the account console's 'Luogo approssimativo': the provider keeps no address.
 * Written at every code exchange and refresh; the row goes when the grant is ended.
 */
export const appSignIns = pgTable(
  "app_sign_ins",
  {
    grantId: text("grant_id").primaryKey(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** The app's client as it said (kept for the data download; never trusted). */
    userAgent: text("user_agent"),
    /** The network, cut to its prefix as the sessions keep it (IPv4 /24, IPv6 /48): never the address. */
    ipPrefix: text("ip_prefix"),
    lastSeenAt: timestamp("last_seen_at", { withTimezone: true }).notNull(),
  },
  (t) => [index("app_sign_ins_user_idx").on(t.userId)],
);

/**
 * The provider's signing keys, generated at first start so every instance shares them. The
 * newest active key signs; retired keys stay published until tokens they signed have expired.
 */
export const oidcSigningKeys = pgTable("oidc_signing_keys", {
  kid: text("kid").primaryKey(),
  privateJwk: jsonb("private_jwk").notNull(),
  createdAt: createdAt(),
  retiredAt: timestamp("retired_at", { withTimezone: true }),
});
