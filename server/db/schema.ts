// The database schema. drizzle-kit generates the SQL migrations in ./migrations from this file.
import { sql } from "drizzle-orm";
import { SUBSCRIPTION_STATUSES } from "../../shared/subscription.ts";
import {
  type AnyPgColumn,
  bigserial,
  boolean,
  check,
  date,
  index,
  integer,
  jsonb,
  pgSequence,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";

const id = () => uuid("id").primaryKey().defaultRandom();
const createdAt = () => timestamp("created_at", { withTimezone: true }).notNull().defaultNow();

// ---------------------------------------------------------------- catalogue reference data

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

// ---------------------------------------------------------------- editorial content

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

// ---------------------------------------------------------------- accounts and identity

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

/** Mail waiting for, or sent through, the outbox (the embedded default when no SMTP is set). */
export const mailOutbox = pgTable("mail_outbox", {
  id: id(),
  to: text("to").notNull(),
  /**
   * The account the mail is about, so that deleting the account erases its mails, even those
   * sent to an address it no longer has. The row of a deleted account stays, so no cascade.
   */
  userId: uuid("user_id").references(() => users.id),
  subject: text("subject").notNull(),
  text: text("text").notNull(),
  html: text("html").notNull(),
  /**
   * Whether the account's data download lists it: not a mail to an address the account asked to
   * move to (a confirmation link, or a notice that the address has an account), so the download
   * does not tell which addresses are registered.
   */
  inDownload: boolean("in_download").notNull().default(true),
  createdAt: createdAt(),
  sentAt: timestamp("sent_at", { withTimezone: true }),
  // Orders the outbox: created_at can tie when mails are sent within one clock tick.
  seq: bigserial("seq", { mode: "number" }).notNull(),
});

/** Counters of the rate limiters (rate-limiter-flexible's Drizzle store), shared by every instance. */
export const rateLimits = pgTable("rate_limits", {
  key: text("key").primaryKey(),
  points: integer("points").notNull(),
  expire: timestamp("expire", { withTimezone: true }),
});

export const AUDIT_EVENTS = [
  "account_registered",
  "sign_in_success",
  "sign_in_failure",
  "password_reset_requested",
  "password_reset",
  "password_changed",
  "email_change_requested",
  "email_changed",
  "account_deleted",
  // The account console: sessions ended from 'Dove hai effettuato l'accesso', 'Scarica i tuoi dati'.
  "session_ended",
  "data_exported",
  // Operators' commands (scripts/admin.ts): who ran them is the row's `actor`.
  "codes_created",
  "codes_listed",
  "codes_disabled",
  "customer_viewed",
  "customer_exported",
  "access_granted",
  "access_revoked",
  "customer_signed_out",
  "coupon_created",
  "coupons_listed",
  "coupon_disabled",
  "order_viewed",
  "order_refunded",
  "refunds_listed",
  "invoices_exported",
  "invoices_issued",
  "invoice_viewed",
  "invoices_listed",
  "invoice_resent",
  "catalogue_imported",
] as const;
export type AuditEvent = (typeof AUDIT_EVENTS)[number];

/** Security-relevant events: who, when, from where. Never a password or a token. */
export const auditLog = pgTable(
  "audit_log",
  {
    id: id(),
    /** Insertion order: events of the same instant still list in the order they happened. */
    seq: bigserial("seq", { mode: "number" }).notNull(),
    event: text("event", { enum: AUDIT_EVENTS }).notNull(),
    userId: uuid("user_id").references(() => users.id, { onDelete: "set null" }),
    /** The e-mail typed in, for failures on unknown accounts. */
    subject: text("subject"),
    ip: text("ip"),
    /** Who acted, when not the customer: an operator's command (`operator:<name>`), or the portal itself. */
    actor: text("actor"),
    /** What an operator's command did (a batch, a product, an amount): never a secret or a code in clear. */
    details: jsonb("details"),
    createdAt: createdAt(),
  },
  (t) => [index("audit_log_user_idx").on(t.userId, t.createdAt)],
);

// ---------------------------------------------------------------- orders and entitlements

/**
 * Order statuses with the spec's codes. Only `payed` counts as an active order; `new` is
 * editable and payable, `waitforpayment` awaits the payment result, the others are inactive
 * (`refunded`: an operator gave the money back, and the access it granted ended).
 */
export const ORDER_STATUS_CODES = ["new", "waitforpayment", "payed", "cancelled", "expired", "interrupted", "refunded"] as const;
export type OrderStatusCode = (typeof ORDER_STATUS_CODES)[number];

/**
 * Why the portal closed an order the customer was paying: `edu_already_active`, EDU became active
 * (an eBook+EDU code, an operator's grant) while the customer was paying for EDU, so the payment
 * was stopped, or its charge given back (decision 024).
 */
export const ORDER_CLOSED_REASONS = ["edu_already_active"] as const;
export type OrderClosedReason = (typeof ORDER_CLOSED_REASONS)[number];

export const orderStatuses = pgTable("order_statuses", {
  code: text("code", { enum: ORDER_STATUS_CODES }).primaryKey(),
  name: text("name").notNull(),
});

/** The payment methods of the checkout (spec §2): only `card` completes a purchase. */
export const PAYMENT_HUBS = ["card", "sepa", "instalments", "student_card"] as const;
export type PaymentHub = (typeof PAYMENT_HUBS)[number];

/** An Italian postal address as a courier and an e-invoice need it. */
export type PostalAddress = {
  firstname: string;
  lastname: string;
  /** Street and number. */
  address: string;
  postcode: string;
  city: string;
  /** The province's sigla (MI, RM, …). */
  province: string;
  country: "IT";
  /** 'Presso' (care of). */
  at?: string;
  mobile?: string;
};

/** Who the invoice is made out to (spec §3: billing_*), and where. */
export type BillingDetails = {
  isCompany: boolean;
  /** Ragione Sociale (companies). */
  name?: string;
  /** Partita IVA (companies). */
  vat?: string;
  /** Codice Univoco SDI (companies). */
  sdi?: string;
  pec?: string;
  /** Codice Fiscale (private customers). */
  ssn?: string;
  addressAsShipment: boolean;
  address: PostalAddress;
};

export const COUPON_KINDS = ["percent", "amount"] as const;

/** Discount codes (spec §5): a percentage or an amount, within a window and caps. */
export const coupons = pgTable(
  "coupons",
  {
    id: id(),
    /** Upper case; a customer's input is trimmed and upper-cased before the lookup. */
    code: text("code").notNull().unique(),
    description: text("description").notNull(),
    kind: text("kind", { enum: COUPON_KINDS }).notNull(),
    /** 1–100 for a percentage. */
    percentOff: integer("percent_off"),
    amountOffCents: integer("amount_off_cents"),
    validFrom: timestamp("valid_from", { withTimezone: true }),
    /** First instant the code no longer works; null: never expires. */
    validUntil: timestamp("valid_until", { withTimezone: true }),
    /** Uses in all; null: unlimited. */
    maxRedemptions: integer("max_redemptions"),
    redemptions: integer("redemptions").notNull().default(0),
    maxPerCustomer: integer("max_per_customer").notNull().default(1),
    /** Only for orders holding this product; null: any. */
    productId: uuid("product_id").references(() => products.id),
    /** An operator withdrew the code: it applies to no order from then on. */
    disabledAt: timestamp("disabled_at", { withTimezone: true }),
    createdAt: createdAt(),
  },
  (t) => [
    check(
      "coupons_kind_value",
      sql`(${t.kind} = 'percent' and ${t.percentOff} between 1 and 100 and ${t.amountOffCents} is null)
        or (${t.kind} = 'amount' and ${t.amountOffCents} > 0 and ${t.percentOff} is null)`,
    ),
    check(
      "coupons_redemptions_within_cap",
      sql`${t.redemptions} >= 0 and (${t.maxRedemptions} is null or ${t.redemptions} <= ${t.maxRedemptions})`,
    ),
  ],
);

export const orders = pgTable(
  "orders",
  {
    id: id(),
    /** Readable and unique, shown to the customer as 'Numero d'ordine'. */
    orderCode: text("order_code").notNull().unique(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id),
    status: text("status", { enum: ORDER_STATUS_CODES })
      .notNull()
      .default("new")
      .references(() => orderStatuses.code),
    totalCents: integer("total_cents").notNull().default(0),
    shipmentPriceCents: integer("shipment_price_cents").notNull().default(0),
    createdAt: createdAt(),
    /** When the order was paid (or, for a free activation, completed). */
    committedAt: timestamp("committed_at", { withTimezone: true }),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),

    // The checkout (spec §3's order fields). Totals are recomputed by the server from the items
    // and the coupon every time the order changes, never read from a form.
    subtotalCents: integer("subtotal_cents").notNull().default(0),
    discountCents: integer("discount_cents").notNull().default(0),
    couponId: uuid("coupon_id").references(() => coupons.id),
    /** The applied code as the customer sees it (couponcode_code). */
    couponCode: text("coupon_code"),
    /**
     * The product a /create-checkout/:productcode order was opened for: with the partial unique
     * index below, a customer has at most one open order per product, however often the link is
     * followed.
     */
    checkoutProductId: uuid("checkout_product_id").references(() => products.id),
    paymentHub: text("payment_hub", { enum: PAYMENT_HUBS }),
    hasOptionAdvance: boolean("has_option_advance").notNull().default(false),
    optionAdvance: boolean("option_advance").notNull().default(false),
    customerFirstname: text("customer_firstname"),
    customerLastname: text("customer_lastname"),
    customerEmail: text("customer_email"),
    /** Whether the order holds a paper item, so that a shipping address is needed. */
    hasShipment: boolean("has_shipment").notNull().default(false),
    shipment: jsonb("shipment").$type<PostalAddress>(),
    shipmentSave: boolean("shipment_save").notNull().default(false),
    hasBilling: boolean("has_billing").notNull().default(false),
    billing: jsonb("billing").$type<BillingDetails>(),
    billingSave: boolean("billing_save").notNull().default(false),
    termsSalesAt: timestamp("terms_sales_at", { withTimezone: true }),
    termsCancelAt: timestamp("terms_cancel_at", { withTimezone: true }),
    /** Set when the portal itself closed the order (status `cancelled`): why, for the page and the mail. */
    closedReason: text("closed_reason", { enum: ORDER_CLOSED_REASONS }),
  },
  (t) => [
    index("orders_user_committed_idx").on(t.userId, t.committedAt),
    check("orders_total_not_negative", sql`${t.totalCents} >= 0 and ${t.shipmentPriceCents} >= 0`),
    check("orders_discount_within_subtotal", sql`${t.discountCents} >= 0 and ${t.discountCents} <= ${t.subtotalCents}`),
    uniqueIndex("orders_one_open_per_product")
      .on(t.userId, t.checkoutProductId)
      .where(sql`${t.status} in ('new', 'waitforpayment')`),
    // The abandoned-order sweep (commerce/order-expiry.ts) reads the unsubmitted orders every minute.
    index("orders_new_by_update_idx")
      .on(t.updatedAt)
      .where(sql`${t.status} = 'new'`),
  ],
);

export const orderItems = pgTable(
  "order_items",
  {
    id: id(),
    orderId: uuid("order_id")
      .notNull()
      .references(() => orders.id, { onDelete: "cascade" }),
    productId: uuid("product_id")
      .notNull()
      .references(() => products.id),
    description: text("description").notNull(),
    quantity: integer("quantity").notNull().default(1),
    monthlyPriceCents: integer("monthly_price_cents"),
    totalCents: integer("total_cents").notNull(),
    /** Copied from the product when the line is written (spec: producttype), as are the prices. */
    productTypeCode: text("product_type_code"),
    unitPriceCents: integer("unit_price_cents"),
    /** The product's VAT rate when the line was written; null: VAT paid at source. */
    vatRateBps: integer("vat_rate_bps"),
  },
  (t) => [index("order_items_order_idx").on(t.orderId), check("order_items_quantity_positive", sql`${t.quantity} >= 1`)],
);

/**
 * A coupon used by an order: written (and counted in `coupons.redemptions`) in the transaction
 * that starts its payment, under the caps; removed again if that payment fails or is given up.
 */
export const couponRedemptions = pgTable(
  "coupon_redemptions",
  {
    id: id(),
    couponId: uuid("coupon_id")
      .notNull()
      .references(() => coupons.id),
    orderId: uuid("order_id")
      .notNull()
      .unique()
      .references(() => orders.id),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id),
    createdAt: createdAt(),
  },
  (t) => [index("coupon_redemptions_coupon_user_idx").on(t.couponId, t.userId)],
);

/** The shipping address and billing details a customer asked the checkout to keep. */
export const savedCheckoutDetails = pgTable("saved_checkout_details", {
  userId: uuid("user_id")
    .primaryKey()
    .references(() => users.id, { onDelete: "cascade" }),
  shipment: jsonb("shipment").$type<PostalAddress>(),
  billing: jsonb("billing").$type<BillingDetails>(),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
});

// ---------------------------------------------------------------- payments

export const PAYMENT_GATEWAYS = ["sandbox", "stripe"] as const;
export type PaymentGatewayName = (typeof PAYMENT_GATEWAYS)[number];

/**
 * The life of one try at paying an order by card: the card is set up (a SetupIntent), then
 * charged. `created` → `awaiting_customer` (card step, 3-D Secure) → `setup_succeeded` →
 * `charging` (claimed, with a lease) → `succeeded` | `failed` | `canceled`.
 */
export const PAYMENT_ATTEMPT_STATUSES = [
  "created",
  "awaiting_customer",
  "setup_succeeded",
  "charging",
  "succeeded",
  "failed",
  "canceled",
] as const;
export type PaymentAttemptStatus = (typeof PAYMENT_ATTEMPT_STATUSES)[number];

export const paymentAttempts = pgTable(
  "payment_attempts",
  {
    id: id(),
    orderId: uuid("order_id")
      .notNull()
      .references(() => orders.id),
    /** 1, 2, … per order: part of the provider's idempotency keys, so a retry never reuses one. */
    attemptNo: integer("attempt_no").notNull(),
    gateway: text("gateway", { enum: PAYMENT_GATEWAYS }).notNull(),
    status: text("status", { enum: PAYMENT_ATTEMPT_STATUSES }).notNull().default("created"),
    /** What this attempt charges, frozen from the order's total when it starts. */
    amountCents: integer("amount_cents").notNull(),
    setupId: text("setup_id").unique(),
    paymentMethodRef: text("payment_method_ref"),
    cardBrand: text("card_brand"),
    cardLast4: text("card_last4"),
    chargeId: text("charge_id").unique(),
    /** While a charge runs: no other instance takes the attempt before this instant. */
    leaseUntil: timestamp("lease_until", { withTimezone: true }),
    /** The provider's message of the last failure, shown to the customer. */
    errorMessage: text("error_message"),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("payment_attempts_order_no_uq").on(t.orderId, t.attemptNo),
    uniqueIndex("payment_attempts_one_open_per_order")
      .on(t.orderId)
      .where(sql`${t.status} in ('created', 'awaiting_customer', 'setup_succeeded', 'charging')`),
  ],
);

/** Spec §3: two card codes (checkout, setup), both 'Carta di Credito', and sepa. */
export const PAYMENT_METHOD_CODES = ["card_checkout", "card_setup", "sepa"] as const;
/**
 * `refunded`: every cent of it went back (its refunds succeeded for its whole amount). A payment
 * partly refunded stays `payed`: what it kept is still paid (and invoiced); its refunds say the rest.
 */
export const PAYMENT_STATUS_CODES = ["payed", "refunded"] as const;

/** Money received (spec §3: payment), one row per charge; 'payed' counts as paid. */
export const payments = pgTable(
  "payments",
  {
    id: id(),
    /** Readable, on the receipt: PX + yymmdd + 6 characters. */
    paymentCode: text("payment_code").notNull().unique(),
    orderId: uuid("order_id")
      .notNull()
      .references(() => orders.id),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id),
    attemptId: uuid("attempt_id").references(() => paymentAttempts.id),
    gateway: text("gateway", { enum: PAYMENT_GATEWAYS }).notNull(),
    methodCode: text("method_code", { enum: PAYMENT_METHOD_CODES }).notNull(),
    status: text("status", { enum: PAYMENT_STATUS_CODES }).notNull().default("payed"),
    amountCents: integer("amount_cents").notNull(),
    /** The provider's charge (a PaymentIntent on Stripe): a charge is recorded once. */
    chargeId: text("charge_id").notNull(),
    cardBrand: text("card_brand"),
    cardLast4: text("card_last4"),
    paidAt: timestamp("paid_at", { withTimezone: true }).notNull(),
    /**
     * When the last of the money went back to the customer (status `refunded`). Each refund,
     * partial or whole, is a row of `payment_refunds`.
     */
    refundedAt: timestamp("refunded_at", { withTimezone: true }),
    /** The subscription's month this payment paid (unique: a month is paid once), or null. */
    subscriptionPeriodId: uuid("subscription_period_id")
      .unique()
      .references((): AnyPgColumn => subscriptionPeriods.id),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("payments_gateway_charge_uq").on(t.gateway, t.chargeId),
    index("payments_user_paid_idx").on(t.userId, t.paidAt),
    check("payments_amount_positive", sql`${t.amountCents} > 0`),
  ],
);

/**
 * What a refund gives back: `payment`, all that the payment still kept (a whole order's refund,
 * an EDU month's, a charge the portal could not keep); `amount`, a sum an operator chose (a
 * goodwill gesture); `line`, one order line's share of the payment.
 */
export const REFUND_SCOPES = ["payment", "amount", "line"] as const;
/** `pending` until the provider says the money went back (`succeeded`) or could not (`failed`). */
export const REFUND_STATES = ["pending", "succeeded", "failed"] as const;
export type RefundState = (typeof REFUND_STATES)[number];
/**
 * Why: `operator`, an operator's refund (`npm run admin -- orders:refund`); `order_closed`, a
 * charge that succeeded for an order no longer waiting for it; `edu_already_active`, an EDU
 * charge refused at settlement because EDU became active meanwhile.
 */
export const REFUND_REASONS = ["operator", "order_closed", "edu_already_active"] as const;
export type RefundReason = (typeof REFUND_REASONS)[number];

/**
 * A part of an order a refund gives back money for: an order line (`orderItemId`) or the shipping
 * (null), with the VAT rate the amount contains. A refund's parts add up to its amount, so a
 * credit note made for the refund knows its lines and their VAT without recomputing them.
 */
export type RefundPart = { orderItemId: string | null; cents: number; vatRateBps: number | null };

/**
 * Money given back from a payment (docs/payments.md, "Refunds"): one row per refund, several per
 * payment (never more than it took: the sum of those not failed is checked under the payment's row
 * lock in the transaction that inserts one). The gateway is called after that transaction, with an
 * idempotency key made of the row's id, and its answer recorded here.
 */
export const paymentRefunds = pgTable(
  "payment_refunds",
  {
    id: id(),
    paymentId: uuid("payment_id")
      .notNull()
      .references(() => payments.id),
    scope: text("scope", { enum: REFUND_SCOPES }).notNull(),
    /** The line a `line` refund gives back. */
    orderItemId: uuid("order_item_id").references(() => orderItems.id),
    amountCents: integer("amount_cents").notNull(),
    /** What the amount is made of (see RefundPart); null only on refunds recorded before this table (the whole payment). */
    parts: jsonb("parts").$type<RefundPart[]>(),
    reason: text("reason", { enum: REFUND_REASONS }).notNull(),
    state: text("state", { enum: REFUND_STATES }).notNull().default("pending"),
    /** The provider's refund (Stripe's re_…), once it answered; its status as it gave it (requires_action, canceled…). */
    gatewayRefundId: text("gateway_refund_id").unique(),
    gatewayStatus: text("gateway_status"),
    /** The provider's reason when it failed (for the operator). */
    failureReason: text("failure_reason"),
    /** Who asked: `operator:<name>`, or `portal` (a refund the portal made itself). */
    requestedBy: text("requested_by").notNull(),
    requestedAt: timestamp("requested_at", { withTimezone: true }).notNull(),
    completedAt: timestamp("completed_at", { withTimezone: true }),
    /** While pending: when the sweep asks the provider again (a notification may be lost). */
    nextCheckAt: timestamp("next_check_at", { withTimezone: true }),
    createdAt: createdAt(),
  },
  (t) => [
    index("payment_refunds_payment_idx").on(t.paymentId),
    index("payment_refunds_pending_idx").on(t.state, t.nextCheckAt),
    check("payment_refunds_amount_positive", sql`${t.amountCents} > 0`),
    check("payment_refunds_line_named", sql`(${t.scope} = 'line') = (${t.orderItemId} is not null)`),
  ],
);

/** The customer's record at a payment provider (a Stripe Customer), made at their first card payment. */
export const paymentCustomers = pgTable(
  "payment_customers",
  {
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id),
    gateway: text("gateway", { enum: PAYMENT_GATEWAYS }).notNull(),
    customerRef: text("customer_ref").notNull().unique(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("payment_customers_pk").on(t.userId, t.gateway)],
);

/**
 * The provider's notifications (Stripe webhooks), each recorded once by its id: a delivery
 * repeated, or sent again in another order, finds it and does nothing more.
 */
export const gatewayEvents = pgTable(
  "gateway_events",
  {
    id: id(),
    gateway: text("gateway", { enum: PAYMENT_GATEWAYS }).notNull(),
    eventId: text("event_id").notNull(),
    type: text("type").notNull(),
    receivedAt: timestamp("received_at", { withTimezone: true }).notNull(),
  },
  (t) => [uniqueIndex("gateway_events_event_uq").on(t.gateway, t.eventId)],
);

/**
 * The sandbox gateway's own records (setups and charges), standing in for a provider's: the
 * portal's tables refer to them only by id, as they would to Stripe's.
 */
export const sandboxGatewayObjects = pgTable("sandbox_gateway_objects", {
  id: text("id").primaryKey(),
  kind: text("kind", { enum: ["setup", "charge", "refund"] }).notNull(),
  /** A request repeated with the same key gets the first one's object (as with Stripe). */
  idempotencyKey: text("idempotency_key").unique(),
  data: jsonb("data").notNull(),
  createdAt: createdAt(),
});

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

// ---------------------------------------------------------------- subscriptions

export const SUBSCRIPTION_END_REASONS = ["cancelled", "payment_failed", "account_deleted", "refunded"] as const;

/**
 * A customer's subscription to a plan (EDU): charged every month on the anchor's day with the
 * card saved at the checkout, term after term, until cancelled or a charge finally fails
 * (docs/payments.md, "EDU subscription"). `cancelled`: no further charges, access to the end of the
 * paid month, 'Riattiva' possible until then; `past_due`: a charge failed and is being retried.
 */
export const subscriptions = pgTable(
  "subscriptions",
  {
    id: id(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id),
    productId: uuid("product_id")
      .notNull()
      .references(() => products.id),
    /** The checkout's order: every month's payment is recorded on it, each with its receipt. */
    orderId: uuid("order_id")
      .notNull()
      .unique()
      .references(() => orders.id),
    status: text("status", { enum: SUBSCRIPTION_STATUSES }).notNull(),
    gateway: text("gateway", { enum: PAYMENT_GATEWAYS }).notNull(),
    /** The card charged each month: the setup that saved it (the checkout's, or the latest card update). */
    setupId: text("setup_id").notNull(),
    cardBrand: text("card_brand"),
    cardLast4: text("card_last4"),
    monthlyPriceCents: integer("monthly_price_cents").notNull(),
    /** Period 1 starts here; period n starts n − 1 (+ `freeMonths`) months later, on Rome's calendar. */
    anchorAt: timestamp("anchor_at", { withTimezone: true }).notNull(),
    /**
     * Months given free during the subscription (eBook+EDU codes, operators' grants): they took
     * the place of the next charges, so every month scheduled since starts that many months later.
     */
    freeMonths: integer("free_months").notNull().default(0),
    /** The end of the latest months given free (the start of the month charged after them). */
    freeUntil: timestamp("free_until", { withTimezone: true }),
    /** Who gave the latest of those months: an eBook+EDU code, or an operator (`customer:grant`). */
    freeBy: text("free_by", { enum: ["activation_code", "operator"] }),
    /** When the customer cancelled ('Disdici'); cleared by 'Riattiva'. */
    cancelledAt: timestamp("cancelled_at", { withTimezone: true }),
    endedAt: timestamp("ended_at", { withTimezone: true }),
    endedReason: text("ended_reason", { enum: SUBSCRIPTION_END_REASONS }),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("subscriptions_one_live_per_plan")
      .on(t.userId, t.productId)
      .where(sql`${t.status} <> 'ended'`),
    check("subscriptions_price_positive", sql`${t.monthlyPriceCents} > 0`),
  ],
);

/**
 * `scheduled`: waits for `next_attempt_at` (its due date, or a retry's); `charging`: a try is
 * under way, claimed until `lease_until`; `paid`; `failed`: every try failed; `void`: never
 * charged, the subscription ended first.
 */
export const SUBSCRIPTION_PERIOD_STATUSES = ["scheduled", "charging", "paid", "failed", "void"] as const;
export type SubscriptionPeriodStatus = (typeof SUBSCRIPTION_PERIOD_STATUSES)[number];

/**
 * One month of a subscription. (subscription, number) is unique, so a month exists once, and
 * it is charged only by whoever claims it: a try at a time, each try one charge with idempotency
 * keys of its own, the next try only once the last one's failure is recorded.
 */
export const subscriptionPeriods = pgTable(
  "subscription_periods",
  {
    id: id(),
    subscriptionId: uuid("subscription_id")
      .notNull()
      .references(() => subscriptions.id),
    /** 1, 2, …: 1–6 the first term, 7–12 the second, … */
    number: integer("number").notNull(),
    startsAt: timestamp("starts_at", { withTimezone: true }).notNull(),
    endsAt: timestamp("ends_at", { withTimezone: true }).notNull(),
    amountCents: integer("amount_cents").notNull(),
    status: text("status", { enum: SUBSCRIPTION_PERIOD_STATUSES }).notNull(),
    /** Scheduled tries made so far (part of each try's idempotency keys, so it only grows). */
    tries: integer("tries").notNull().default(0),
    /**
     * Scheduled tries made before free months moved the month on (a past-due month an eBook+EDU
     * code replaced): its retry schedule counts only the tries after them.
     */
    triesBeforeMove: integer("tries_before_move").notNull().default(0),
    /**
     * Tries the customer made themselves ('Paga ora', a new card): they have keys of their own and
     * leave the scheduled retries as they were.
     */
    customerTries: integer("customer_tries").notNull().default(0),
    /** While `charging`: whose try it is (a scheduled one, or the customer's). */
    tryKind: text("try_kind", { enum: ["scheduled", "customer"] }),
    nextAttemptAt: timestamp("next_attempt_at", { withTimezone: true }),
    leaseUntil: timestamp("lease_until", { withTimezone: true }),
    /** The current try's charge, stored before it is confirmed so that a crash can be reconciled. */
    chargeId: text("charge_id").unique(),
    /** The provider's message of the last failed try. */
    lastError: text("last_error"),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("subscription_periods_subscription_number_uq").on(t.subscriptionId, t.number),
    index("subscription_periods_due_idx").on(t.status, t.nextAttemptAt),
    check("subscription_periods_amount_positive", sql`${t.amountCents} > 0`),
  ],
);

/**
 * 'Aggiorna carta': a card set up for a subscription (a setup at the gateway, 3-D Secure there).
 * When it succeeds the subscription charges that card from then on.
 */
export const subscriptionCardUpdates = pgTable("subscription_card_updates", {
  id: id(),
  subscriptionId: uuid("subscription_id")
    .notNull()
    .references(() => subscriptions.id),
  setupId: text("setup_id").unique(),
  status: text("status", { enum: ["open", "done", "canceled"] })
    .notNull()
    .default("open"),
  createdAt: createdAt(),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
});

// ---------------------------------------------------------------- e-invoices (FatturaPA)

/**
 * The numberings e-invoices take their numbers in: `invoices`, and `credit_notes` when credit
 * notes have a series of their own (CREDIT_NOTE_SERIES differs from INVOICE_SERIES, decision 025).
 */
export const INVOICE_NUMBERINGS = ["invoices", "credit_notes"] as const;
export type InvoiceNumbering = (typeof INVOICE_NUMBERINGS)[number];

/** TipoDocumento: TD01 an invoice, TD04 a credit note (nota di credito) correcting one. */
export const INVOICE_TYPES = ["TD01", "TD04"] as const;
export type InvoiceType = (typeof INVOICE_TYPES)[number];

/**
 * The last number given in a year of a numbering. Bumped by one UPDATE in the transaction that
 * writes the document, so a number is taken only when its document commits: no gaps, no duplicates.
 */
export const invoiceCounters = pgTable(
  "invoice_counters",
  {
    numbering: text("numbering", { enum: INVOICE_NUMBERINGS }).notNull().default("invoices"),
    year: integer("year").notNull(),
    lastNumber: integer("last_number").notNull(),
  },
  (t) => [primaryKey({ columns: [t.numbering, t.year] })],
);

/** What numbers the SDI files (IT<Partita IVA>_<5 characters>.xml): unique per sender, gaps allowed. */
export const invoiceTransmissionSeq = pgSequence("invoice_transmission_seq");

/**
 * An e-invoice (docs/e-invoices.md): one per payment of an order whose customer
 * asked for one (a checkout's payment, each month of the EDU subscription), dated the payment's
 * day in Rome and numbered 1, 2, … in that day's year (decision 021); and a credit note (TD04) per
 * refund of an invoiced payment that succeeded, dated the day the money went back and naming the
 * invoice it corrects (decision 025). The XML is kept as issued: it is the document.
 */
export const invoices = pgTable(
  "invoices",
  {
    id: id(),
    type: text("type", { enum: INVOICE_TYPES }).notNull().default("TD01"),
    /** The numbering its number was taken in (see INVOICE_NUMBERINGS). */
    numbering: text("numbering", { enum: INVOICE_NUMBERINGS }).notNull().default("invoices"),
    year: integer("year").notNull(),
    number: integer("number").notNull(),
    /** As printed in the XML's Numero: the series and the number (`WEB/17`, `NC/3`). */
    documentNumber: text("document_number").notNull(),
    /** The payment invoiced; for a credit note, the payment its refund gave back from. */
    paymentId: uuid("payment_id")
      .notNull()
      .references(() => payments.id),
    /** A credit note's refund, and the invoice it corrects (its DatiFattureCollegate). */
    refundId: uuid("refund_id")
      .unique()
      .references(() => paymentRefunds.id),
    correctsInvoiceId: uuid("corrects_invoice_id").references((): AnyPgColumn => invoices.id),
    orderId: uuid("order_id")
      .notNull()
      .references(() => orders.id),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id),
    /** The document's date (Data): the day of the payment in Rome, in the year of `year`. */
    date: date("date", { mode: "string" }).notNull(),
    /** When the file was made (within 12 days of `date`, or later only as a late invoice). */
    issuedAt: timestamp("issued_at", { withTimezone: true }).notNull(),
    totalCents: integer("total_cents").notNull(),
    /** Whether it carries the virtual stamp duty (DatiBollo, 2 €, borne by the publisher). */
    stampDuty: boolean("stamp_duty").notNull().default(false),
    /**
     * The SDI file name, IT<seller's Partita IVA>_<progressive>.xml, and the XML: the invoice's latest
     * file (one SDI rejected is written again under a new name; invoice_transmissions keeps them all).
     */
    fileName: text("file_name").notNull().unique(),
    xml: text("xml").notNull(),
    /** When the transmitter took the latest file (null: still to send; the `invoices.transmit` job retries). */
    transmittedAt: timestamp("transmitted_at", { withTimezone: true }),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("invoices_numbering_year_number_uq").on(t.numbering, t.year, t.number),
    // One invoice per payment; its credit notes are one per refund (refund_id).
    uniqueIndex("invoices_payment_uq")
      .on(t.paymentId)
      .where(sql`${t.type} = 'TD01'`),
    index("invoices_payment_idx").on(t.paymentId),
    check(
      "invoices_credit_note_linked",
      sql`(${t.type} = 'TD04') = (${t.refundId} is not null and ${t.correctsInvoiceId} is not null)`,
    ),
    index("invoices_issued_idx").on(t.issuedAt),
    index("invoices_date_idx").on(t.date),
    index("invoices_order_idx").on(t.orderId),
    check("invoices_number_positive", sql`${t.number} >= 1`),
  ],
);

/** What SDI said of a file it was sent (docs/e-invoices.md): RC, MC, NS. */
export const SDI_OUTCOMES = ["delivered", "not_delivered", "rejected"] as const;
export type SdiOutcome = (typeof SDI_OUTCOMES)[number];

/** An error SDI gave for a rejected file (NotificaScarto's ListaErrori). */
export type SdiError = { code: string; description: string; hint?: string };

/**
 * Each file an invoice was sent to SDI as (server/invoices/sdi-outcomes.ts): the one it was issued
 * with, and each corrected one sent again after SDI rejected it (a new file name, the same number
 * and date). The invoice's row holds its latest file; this keeps every file and what SDI said of it.
 */
export const invoiceTransmissions = pgTable(
  "invoice_transmissions",
  {
    id: id(),
    invoiceId: uuid("invoice_id")
      .notNull()
      .references(() => invoices.id),
    /** IT<seller's Partita IVA>_<progressive>.xml, as SDI's notifications name it. */
    fileName: text("file_name").notNull().unique(),
    xml: text("xml").notNull(),
    /** When the file was made; and when the transmitter took it (null: not yet). */
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
    sentAt: timestamp("sent_at", { withTimezone: true }),
    /** SDI's number of the file (IdentificativoSdI), from its first notification. */
    sdiId: text("sdi_id"),
    outcome: text("outcome", { enum: SDI_OUTCOMES }),
    /** When SDI delivered, failed to deliver or rejected the file (its notification's own time). */
    outcomeAt: timestamp("outcome_at", { withTimezone: true }),
    /** A rejected file's errors, as SDI listed them. */
    errors: jsonb("errors").$type<SdiError[]>(),
  },
  (t) => [index("invoice_transmissions_invoice_idx").on(t.invoiceId, t.createdAt)],
);

/** SDI's notifications read (docs/e-invoices.md): RC delivered, MC not delivered, NS rejected. */
export const SDI_NOTIFICATION_TYPES = ["RC", "MC", "NS"] as const;
export type SdiNotificationType = (typeof SDI_NOTIFICATION_TYPES)[number];

/**
 * Every notification read from SDI, kept whole: the row is written in the transaction that applies
 * it, and its key (SDI's file number, the notification's type and message id) is unique, so a
 * notification read twice, or by two instances at once, is applied once. `status` says what it did:
 * `applied` (the file's outcome set), `stale` (the file had an outcome it cannot move from, e.g. an
 * NS after an RC: kept, logged, nothing changed) or `unknown_file` (no file of the portal's has that name).
 */
export const sdiNotifications = pgTable(
  "sdi_notifications",
  {
    id: id(),
    type: text("type", { enum: SDI_NOTIFICATION_TYPES }).notNull(),
    sdiId: text("sdi_id").notNull(),
    messageId: text("message_id").notNull(),
    /** The notification's own file name (IT…_<progressive>_RC_001.xml). */
    fileName: text("file_name").notNull(),
    /** The name of the file it is about (NomeFile). */
    invoiceFileName: text("invoice_file_name").notNull(),
    transmissionId: uuid("transmission_id").references(() => invoiceTransmissions.id),
    status: text("status", { enum: ["applied", "stale", "unknown_file"] }).notNull(),
    /** DataOraRicezione: when SDI received the file. */
    receivedAt: timestamp("received_at", { withTimezone: true }).notNull(),
    xml: text("xml").notNull(),
    /** When the portal read it (the services' clock). */
    readAt: timestamp("read_at", { withTimezone: true }).notNull(),
  },
  (t) => [
    uniqueIndex("sdi_notifications_key_uq").on(t.sdiId, t.type, t.messageId),
    index("sdi_notifications_transmission_idx").on(t.transmissionId),
  ],
);

// ---------------------------------------------------------------- background jobs

export const JOB_STATUSES = ["queued", "running", "done", "failed"] as const;

/**
 * Work for the job runner (server/jobs/runner.ts), shared by every instance: a job is claimed
 * with FOR UPDATE SKIP LOCKED and a lease, so one instance runs it, and another takes it over if
 * that one dies. `key` is unique: enqueuing the same work twice makes one job.
 */
export const jobs = pgTable(
  "jobs",
  {
    id: id(),
    queue: text("queue").notNull(),
    key: text("key").notNull().unique(),
    payload: jsonb("payload").notNull(),
    runAt: timestamp("run_at", { withTimezone: true }).notNull(),
    status: text("status", { enum: JOB_STATUSES }).notNull().default("queued"),
    attempts: integer("attempts").notNull().default(0),
    leaseUntil: timestamp("lease_until", { withTimezone: true }),
    lastError: text("last_error"),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("jobs_due_idx").on(t.status, t.runAt)],
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
