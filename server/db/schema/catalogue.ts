// Catalogue reference data: the products and their types, and the professions, interests,
// universities and subjects a customer's profile picks from.
import { sql } from "drizzle-orm";
import { boolean, check, index, integer, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { id, createdAt } from "./columns.ts";

/** Product types with the spec's codes: ebook, paper_flex, paper_hard, corso, rivista. */
export const productTypes = pgTable("product_types", {
  id: id(),
  code: text("code").notNull().unique(),
  name: text("name").notNull(),
});

export const products = pgTable(
  "products",
  {
    id: id(),
    /** Business code used in URLs, e.g. `abbonamentoedu` for the EDU subscription. */
    code: text("code").unique(),
    name: text("name").notNull(),
    productTypeId: uuid("product_type_id")
      .notNull()
      .references(() => productTypes.id),
    sku: text("sku").notNull().unique(),
    isbn: text("isbn"),
    issn: text("issn"),
    ean: text("ean"),
    /** Key of the generated cover served under /media/copertine/. */
    cover: text("cover").notNull(),
    shortAuthors: text("short_authors"),
    edition: text("edition"),
    periodicity: text("periodicity"),
    description: text("description"),
    pubdate: timestamp("pubdate", { withTimezone: true }),
    priceCents: integer("price_cents").notNull(),
    /** Monthly price of a subscription (the EDU offer), in cents. */
    monthlyPriceCents: integer("monthly_price_cents"),
    /** Course id on the course platform. */
    moodleId: integer("moodle_id"),
    /** Link of a journal on the journals platform. */
    url: text("url"),
    /** The paper edition this digital product belongs to. */
    masterProductId: uuid("master_product_id"),
    /**
     * VAT contained in the price, in basis points (400 = 4 %, books and journals with an ISBN or
     * ISSN); null: VAT paid by the publisher at source (art. 74 DPR 633/72, paper books).
     */
    vatRateBps: integer("vat_rate_bps"),
    /** Whether a customer can buy it through the checkout (/create-checkout/:productcode). */
    sellable: boolean("sellable").notNull().default(true),
    /** Whether buying it gives access in the library (paper-only books do not). */
    grantsAccess: boolean("grants_access").notNull().default(true),
    /** How long access bought with it lasts; null: no end. */
    accessMonths: integer("access_months"),
    /** Suggested to students and professors. */
    forStudents: boolean("for_students").notNull().default(false),
    /** Suggested to legal professionals. */
    forLegalProfessions: boolean("for_legal_professions").notNull().default(false),
    createdAt: createdAt(),
  },
  (t) => [
    check("products_price_not_negative", sql`${t.priceCents} >= 0`),
    index("products_type_pubdate_idx").on(t.productTypeId, t.pubdate),
    index("products_isbn_idx").on(t.isbn),
  ],
);

/** Professions with codes student, professor, other. */
export const professions = pgTable("professions", {
  id: id(),
  code: text("code").notNull().unique(),
  name: text("name").notNull(),
  position: integer("position").notNull(),
});

export const interests = pgTable("interests", {
  id: id(),
  code: text("code").notNull().unique(),
  name: text("name").notNull(),
});

export const universities = pgTable("universities", {
  id: id(),
  name: text("name").notNull().unique(),
  city: text("city").notNull(),
});

export const degreeCourses = pgTable(
  "degree_courses",
  {
    id: id(),
    name: text("name").notNull(),
    universityId: uuid("university_id")
      .notNull()
      .references(() => universities.id, { onDelete: "cascade" }),
  },
  (t) => [uniqueIndex("degree_courses_university_name_uq").on(t.universityId, t.name)],
);

export const subjects = pgTable("subjects", {
  id: id(),
  code: text("code").notNull().unique(),
  name: text("name").notNull(),
});
