// The library: what a customer has access to, the activation codes that give it, and reading.
import { sql } from "drizzle-orm";
import { check, index, integer, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { products } from "./catalogue.ts";
import { users } from "./accounts.ts";
import { orders } from "./orders.ts";
import { id, createdAt } from "./columns.ts";

/** `operator`: given by an operator's command (`npm run admin -- customer:grant`), with no order behind it. */
export const ENTITLEMENT_SOURCES = ["activation_code", "purchase", "subscription", "operator"] as const;
export type EntitlementSource = (typeof ENTITLEMENT_SOURCES)[number];

/**
 * Access of a customer to a product, from `startsAt` until `expiresAt` (null: no end). A product
 * can be granted more than once (a new code, a purchase after expiry); the latest expiry wins.
 */
export const entitlements = pgTable(
  "entitlements",
  {
    id: id(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    productId: uuid("product_id")
      .notNull()
      .references(() => products.id),
    source: text("source", { enum: ENTITLEMENT_SOURCES }).notNull(),
    startsAt: timestamp("starts_at", { withTimezone: true }).notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true }),
    orderId: uuid("order_id").references(() => orders.id),
    createdAt: createdAt(),
  },
  (t) => [index("entitlements_user_product_idx").on(t.userId, t.productId, t.expiresAt)],
);

// ---------------------------------------------------------------- activation codes

/** What a code printed in a book gives: the kind decides the entitlements an activation creates. */
export const ACTIVATION_CODE_KINDS = ["ebook", "paper_digital", "course", "journal", "ebook_edu"] as const;
export type ActivationCodeKind = (typeof ACTIVATION_CODE_KINDS)[number];

export const activationCodeBatches = pgTable(
  "activation_code_batches",
  {
    id: id(),
    productId: uuid("product_id")
      .notNull()
      .references(() => products.id),
    kind: text("kind", { enum: ACTIVATION_CODE_KINDS }).notNull(),
    label: text("label").notNull(),
    /** How many customers each code of the batch may activate (1: single-use). */
    maxUses: integer("max_uses").notNull().default(1),
    validFrom: timestamp("valid_from", { withTimezone: true }),
    validUntil: timestamp("valid_until", { withTimezone: true }),
    /** An operator withdrew the batch: none of its codes activates anything from then on. */
    disabledAt: timestamp("disabled_at", { withTimezone: true }),
    createdAt: createdAt(),
  },
  (t) => [check("activation_code_batches_max_uses_positive", sql`${t.maxUses} >= 1`)],
);

/** One printed code. Only a keyed hash (HMAC-SHA-256) is stored, so a database leak gives no codes away. */
export const activationCodes = pgTable(
  "activation_codes",
  {
    id: id(),
    batchId: uuid("batch_id")
      .notNull()
      .references(() => activationCodeBatches.id, { onDelete: "cascade" }),
    codeHash: text("code_hash").notNull().unique(),
    uses: integer("uses").notNull().default(0),
    createdAt: createdAt(),
  },
  (t) => [check("activation_codes_uses_not_negative", sql`${t.uses} >= 0`)],
);

/** Who activated a code; a customer activates a given code at most once. */
export const activationRedemptions = pgTable(
  "activation_redemptions",
  {
    id: id(),
    codeId: uuid("code_id")
      .notNull()
      .references(() => activationCodes.id, { onDelete: "cascade" }),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    orderId: uuid("order_id")
      .notNull()
      .references(() => orders.id),
    redeemedAt: timestamp("redeemed_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex("activation_redemptions_code_user_uq").on(t.codeId, t.userId)],
);

// ---------------------------------------------------------------- reading

/** Chapters of the built-in reader (the embedded default when no external reader is configured). */
export const ebookChapters = pgTable(
  "ebook_chapters",
  {
    id: id(),
    productId: uuid("product_id")
      .notNull()
      .references(() => products.id, { onDelete: "cascade" }),
    position: integer("position").notNull(),
    title: text("title").notNull(),
    /** Paragraphs separated by blank lines. */
    body: text("body").notNull(),
  },
  (t) => [uniqueIndex("ebook_chapters_product_position_uq").on(t.productId, t.position)],
);

/** A customer's reading of a product: started when first opened; the chapter they are at. */
export const readingSessions = pgTable(
  "reading_sessions",
  {
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    productId: uuid("product_id")
      .notNull()
      .references(() => products.id),
    currentChapterId: uuid("current_chapter_id").references(() => ebookChapters.id, { onDelete: "set null" }),
    startedAt: timestamp("started_at", { withTimezone: true }).notNull().defaultNow(),
    lastReadAt: timestamp("last_read_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("reading_sessions_pk").on(t.userId, t.productId),
    index("reading_sessions_user_last_idx").on(t.userId, t.lastReadAt),
  ],
);
