// Editorial content: landing pages, FAQs and the dashboard's boxes.
import { sql } from "drizzle-orm";
import { boolean, check, integer, pgTable, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { products } from "./catalogue.ts";
import { id } from "./columns.ts";

/** One marketing landing page variant (landing, edu, universita, studenti, ...). */
export const landingPages = pgTable("landing_pages", {
  id: id(),
  variant: text("variant").notNull().unique(),
  title: text("title").notNull(),
  metaDescription: text("meta_description").notNull(),
  bannerEyebrow: text("banner_eyebrow"),
  bannerTitle: text("banner_title").notNull(),
  bannerText: text("banner_text").notNull(),
  bannerCtaLabel: text("banner_cta_label").notNull(),
  bannerCtaUrl: text("banner_cta_url").notNull(),
  publicationsTitle: text("publications_title").notNull(),
  newsTitle: text("news_title").notNull(),
  activateTitle: text("activate_title").notNull(),
  activateText: text("activate_text").notNull(),
  /** The edu variant shows the subject carousel and the note for teachers. */
  showEduBlocks: boolean("show_edu_blocks").notNull().default(false),
});

export const LANDING_CARD_KINDS = ["publication", "news", "collaborate", "subject"] as const;
export type LandingCardKind = (typeof LANDING_CARD_KINDS)[number];

/** Cards of a landing page: latest publications, news, collaborate links, EDU subjects. */
export const landingCards = pgTable(
  "landing_cards",
  {
    id: id(),
    landingPageId: uuid("landing_page_id")
      .notNull()
      .references(() => landingPages.id, { onDelete: "cascade" }),
    kind: text("kind", { enum: LANDING_CARD_KINDS }).notNull(),
    position: integer("position").notNull(),
    title: text("title").notNull(),
    text: text("text"),
    label: text("label"),
    url: text("url"),
    cta: text("cta"),
    /** Publication cards show this product's cover, authors and price. */
    productId: uuid("product_id").references(() => products.id),
    /** Price quoted on the card when it differs from the catalogue (e.g. a monthly offer). */
    priceNote: text("price_note"),
  },
  (t) => [uniqueIndex("landing_cards_page_kind_position_uq").on(t.landingPageId, t.kind, t.position)],
);

export const FAQ_PAGES = ["help-center", "edu"] as const;
export type FaqPage = (typeof FAQ_PAGES)[number];

export const faqEntries = pgTable(
  "faq_entries",
  {
    id: id(),
    page: text("page", { enum: FAQ_PAGES }).notNull(),
    section: text("section").notNull(),
    position: integer("position").notNull(),
    question: text("question").notNull(),
    /** Paragraphs separated by blank lines; lines starting with "- " form a list. */
    answer: text("answer").notNull(),
  },
  (t) => [uniqueIndex("faq_entries_page_position_uq").on(t.page, t.position)],
);

/** Promo box of an area code (e.g. dashboard_studenti_top_right). */
export const promoBoxes = pgTable("promo_boxes", {
  id: id(),
  areaCode: text("area_code").notNull().unique(),
  title: text("title").notNull(),
  subtitle: text("subtitle"),
  titleIsImage: boolean("title_is_image").notNull().default(false),
  titleImage: text("title_image"),
  isBanner: boolean("is_banner").notNull().default(false),
  bannerImage: text("banner_image"),
  bannerUrl: text("banner_url"),
  bannerCta: text("banner_cta"),
});

/** Up to 20 small boxes inside a promo box. */
export const promoSmallBoxes = pgTable(
  "promo_small_boxes",
  {
    id: id(),
    promoBoxId: uuid("promo_box_id")
      .notNull()
      .references(() => promoBoxes.id, { onDelete: "cascade" }),
    position: integer("position").notNull(),
    title: text("title").notNull(),
    url: text("url").notNull(),
    cta: text("cta").notNull(),
    color: text("color").notNull(),
  },
  (t) => [
    uniqueIndex("promo_small_boxes_box_position_uq").on(t.promoBoxId, t.position),
    check("promo_small_boxes_at_most_20", sql`${t.position} between 1 and 20`),
  ],
);

export const contactBoxes = pgTable(
  "contact_boxes",
  {
    id: id(),
    areaCode: text("area_code").notNull(),
    position: integer("position").notNull(),
    title: text("title").notNull(),
    description: text("description").notNull(),
    url: text("url").notNull(),
    cta: text("cta").notNull(),
  },
  (t) => [uniqueIndex("contact_boxes_area_position_uq").on(t.areaCode, t.position)],
);

/** Products to discover, by area code, referenced by ISBN as in the publisher's feed. */
export const discoverBoxes = pgTable(
  "discover_boxes",
  {
    id: id(),
    areaCode: text("area_code").notNull(),
    position: integer("position").notNull(),
    isbn: text("isbn").notNull(),
  },
  (t) => [uniqueIndex("discover_boxes_area_position_uq").on(t.areaCode, t.position)],
);
