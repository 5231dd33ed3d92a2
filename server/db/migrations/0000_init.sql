-- squawk-ignore-file require-lock-timeout
-- Squawk's exceptions: written before the portal's first release, when no instance served while
-- migrations ran and no table held customers' rows, so its locks blocked nobody.
-- The first schema: every table it alters is created in it, empty.
CREATE TABLE "contact_boxes" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"area_code" text NOT NULL,
	"position" integer NOT NULL,
	"title" text NOT NULL,
	"description" text NOT NULL,
	"url" text NOT NULL,
	"cta" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "degree_courses" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"university_id" uuid NOT NULL
);
--> statement-breakpoint
CREATE TABLE "discover_boxes" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"area_code" text NOT NULL,
	"position" integer NOT NULL,
	"isbn" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "faq_entries" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"page" text NOT NULL,
	"section" text NOT NULL,
	"position" integer NOT NULL,
	"question" text NOT NULL,
	"answer" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "interests" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"code" text NOT NULL,
	"name" text NOT NULL,
	CONSTRAINT "interests_code_unique" UNIQUE("code")
);
--> statement-breakpoint
CREATE TABLE "landing_cards" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"landing_page_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"position" integer NOT NULL,
	"title" text NOT NULL,
	"text" text,
	"label" text,
	"url" text,
	"cta" text,
	"product_id" uuid,
	"price_note" text
);
--> statement-breakpoint
CREATE TABLE "landing_pages" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"variant" text NOT NULL,
	"title" text NOT NULL,
	"meta_description" text NOT NULL,
	"banner_eyebrow" text,
	"banner_title" text NOT NULL,
	"banner_text" text NOT NULL,
	"banner_cta_label" text NOT NULL,
	"banner_cta_url" text NOT NULL,
	"publications_title" text NOT NULL,
	"news_title" text NOT NULL,
	"activate_title" text NOT NULL,
	"activate_text" text NOT NULL,
	"show_edu_blocks" boolean DEFAULT false NOT NULL,
	CONSTRAINT "landing_pages_variant_unique" UNIQUE("variant")
);
--> statement-breakpoint
CREATE TABLE "product_types" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"code" text NOT NULL,
	"name" text NOT NULL,
	CONSTRAINT "product_types_code_unique" UNIQUE("code")
);
--> statement-breakpoint
CREATE TABLE "products" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"code" text,
	"name" text NOT NULL,
	"product_type_id" uuid NOT NULL,
	"sku" text NOT NULL,
	"isbn" text,
	"issn" text,
	"ean" text,
	"cover" text NOT NULL,
	"short_authors" text,
	"edition" text,
	"periodicity" text,
	"description" text,
	"pubdate" timestamp with time zone,
	"price_cents" integer NOT NULL,
	"monthly_price_cents" integer,
	"moodle_id" integer,
	"url" text,
	"master_product_id" uuid,
	"for_students" boolean DEFAULT false NOT NULL,
	"for_legal_professions" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "products_code_unique" UNIQUE("code"),
	CONSTRAINT "products_sku_unique" UNIQUE("sku"),
	CONSTRAINT "products_price_not_negative" CHECK ("products"."price_cents" >= 0)
);
--> statement-breakpoint
CREATE TABLE "professions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"code" text NOT NULL,
	"name" text NOT NULL,
	"position" integer NOT NULL,
	CONSTRAINT "professions_code_unique" UNIQUE("code")
);
--> statement-breakpoint
CREATE TABLE "promo_boxes" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"area_code" text NOT NULL,
	"title" text NOT NULL,
	"subtitle" text,
	"title_is_image" boolean DEFAULT false NOT NULL,
	"title_image" text,
	"is_banner" boolean DEFAULT false NOT NULL,
	"banner_image" text,
	"banner_url" text,
	"banner_cta" text,
	CONSTRAINT "promo_boxes_area_code_unique" UNIQUE("area_code")
);
--> statement-breakpoint
CREATE TABLE "promo_small_boxes" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"promo_box_id" uuid NOT NULL,
	"position" integer NOT NULL,
	"title" text NOT NULL,
	"url" text NOT NULL,
	"cta" text NOT NULL,
	"color" text NOT NULL,
	CONSTRAINT "promo_small_boxes_at_most_20" CHECK ("promo_small_boxes"."position" between 1 and 20)
);
--> statement-breakpoint
CREATE TABLE "subjects" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"code" text NOT NULL,
	"name" text NOT NULL,
	CONSTRAINT "subjects_code_unique" UNIQUE("code")
);
--> statement-breakpoint
CREATE TABLE "universities" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"city" text NOT NULL,
	CONSTRAINT "universities_name_unique" UNIQUE("name")
);
--> statement-breakpoint
ALTER TABLE "degree_courses" ADD CONSTRAINT "degree_courses_university_id_universities_id_fk" FOREIGN KEY ("university_id") REFERENCES "public"."universities"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "landing_cards" ADD CONSTRAINT "landing_cards_landing_page_id_landing_pages_id_fk" FOREIGN KEY ("landing_page_id") REFERENCES "public"."landing_pages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "landing_cards" ADD CONSTRAINT "landing_cards_product_id_products_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."products"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "products" ADD CONSTRAINT "products_product_type_id_product_types_id_fk" FOREIGN KEY ("product_type_id") REFERENCES "public"."product_types"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "promo_small_boxes" ADD CONSTRAINT "promo_small_boxes_promo_box_id_promo_boxes_id_fk" FOREIGN KEY ("promo_box_id") REFERENCES "public"."promo_boxes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "contact_boxes_area_position_uq" ON "contact_boxes" USING btree ("area_code","position");--> statement-breakpoint
CREATE UNIQUE INDEX "degree_courses_university_name_uq" ON "degree_courses" USING btree ("university_id","name");--> statement-breakpoint
CREATE UNIQUE INDEX "discover_boxes_area_position_uq" ON "discover_boxes" USING btree ("area_code","position");--> statement-breakpoint
CREATE UNIQUE INDEX "faq_entries_page_position_uq" ON "faq_entries" USING btree ("page","position");--> statement-breakpoint
CREATE UNIQUE INDEX "landing_cards_page_kind_position_uq" ON "landing_cards" USING btree ("landing_page_id","kind","position");--> statement-breakpoint
CREATE INDEX "products_type_pubdate_idx" ON "products" USING btree ("product_type_id","pubdate");--> statement-breakpoint
CREATE INDEX "products_isbn_idx" ON "products" USING btree ("isbn");--> statement-breakpoint
CREATE UNIQUE INDEX "promo_small_boxes_box_position_uq" ON "promo_small_boxes" USING btree ("promo_box_id","position");