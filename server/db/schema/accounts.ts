// Accounts: customers, the portal's sessions and the single-use links sent by e-mail.
import { sql } from "drizzle-orm";
import { boolean, index, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { professions, interests, universities, degreeCourses, subjects } from "./catalogue.ts";
import { id, createdAt } from "./columns.ts";

/**
 * A customer account. Deleting an account erases the personal data but keeps the row (status
 * `deleted`, email null) so that orders and payments stay attached to an anonymous customer.
 */
export const users = pgTable(
  "users",
  {
    id: id(),
    /** Lower-cased and trimmed; null once the account is deleted. */
    email: text("email"),
    passwordHash: text("password_hash"),
    firstname: text("firstname"),
    lastname: text("lastname"),
    mobile: text("mobile"),
    professionId: uuid("profession_id").references(() => professions.id),
    universityId: uuid("university_id").references(() => universities.id),
    degreeCourseId: uuid("degree_course_id").references(() => degreeCourses.id),
    subjectId: uuid("subject_id").references(() => subjects.id),
    acceptMarketing: boolean("accept_marketing").notNull().default(false),
    acceptCustomize: boolean("accept_customize").notNull().default(false),
    /** Imported from the old shop: must set a new password through an e-mailed link first. */
    migratedFromShop: boolean("migrated_from_shop").notNull().default(false),
    status: text("status", { enum: ["active", "deleted"] })
      .notNull()
      .default("active"),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
    deletedAt: timestamp("deleted_at", { withTimezone: true }),
  },
  (t) => [
    uniqueIndex("users_email_uq")
      .on(t.email)
      .where(sql`${t.email} is not null`),
  ],
);

export const userInterests = pgTable(
  "user_interests",
  {
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    interestId: uuid("interest_id")
      .notNull()
      .references(() => interests.id),
  },
  (t) => [uniqueIndex("user_interests_pk").on(t.userId, t.interestId)],
);

/** The portal's server-side sessions. The cookie holds a random id; only its hash is stored. */
export const sessions = pgTable(
  "sessions",
  {
    idHash: text("id_hash").primaryKey(),
    /** Names the session on the account console's forms: not a credential, unlike the cookie's id. */
    publicId: uuid("public_id").notNull().unique().defaultRandom(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    createdAt: createdAt(),
    lastSeenAt: timestamp("last_seen_at", { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    /** The browser that signed in, as it said (shown as device and browser, never trusted). */
    userAgent: text("user_agent"),
    /** The network it signed in from, its address cut to the prefix (IPv4 /24, IPv6 /48): never the address. */
    ipPrefix: text("ip_prefix"),
    /** Tokens from the identity provider, for refresh and RP-initiated logout. */
    accessToken: text("access_token"),
    accessTokenExpiresAt: timestamp("access_token_expires_at", { withTimezone: true }),
    refreshToken: text("refresh_token"),
    idToken: text("id_token"),
    /** Set while one request refreshes the tokens, so that parallel requests wait for it. */
    refreshingUntil: timestamp("refreshing_until", { withTimezone: true }),
  },
  (t) => [index("sessions_user_idx").on(t.userId)],
);

/** Single-use password links (forgotten password, and accounts migrated from the old shop). */
export const passwordResetTokens = pgTable(
  "password_reset_tokens",
  {
    tokenHash: text("token_hash").primaryKey(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    purpose: text("purpose", { enum: ["reset", "migrated"] }).notNull(),
    createdAt: createdAt(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    usedAt: timestamp("used_at", { withTimezone: true }),
  },
  (t) => [index("password_reset_tokens_user_idx").on(t.userId)],
);

/**
 * Single-use links that confirm a new e-mail address asked for on /profile/: the address changes
 * only when the link sent to it is opened. Like password links, only the token's SHA-256 is kept.
 */
export const emailChangeRequests = pgTable(
  "email_change_requests",
  {
    tokenHash: text("token_hash").primaryKey(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** Lower-cased and trimmed. */
    newEmail: text("new_email").notNull(),
    createdAt: createdAt(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    usedAt: timestamp("used_at", { withTimezone: true }),
  },
  (t) => [index("email_change_requests_user_idx").on(t.userId)],
);
