-- squawk-ignore-file adding-foreign-key-constraint, adding-serial-primary-key-field, constraint-missing-not-valid, disallowed-unique-constraint, require-concurrent-index-creation, require-concurrent-index-deletion, require-lock-timeout
-- Squawk's exceptions: written before the portal's first release, when no instance served while
-- migrations ran and no table held customers' rows, so its locks blocked nobody.
-- It rebuilt invoices' and invoice_counters' keys and indexes under their locks; today each step
-- would be its own: indexes built and dropped CONCURRENTLY outside the migration, foreign keys NOT
-- VALID then VALIDATE.
ALTER TABLE "invoices" DROP CONSTRAINT "invoices_payment_id_unique";--> statement-breakpoint
DROP INDEX "invoices_year_number_uq";--> statement-breakpoint
ALTER TABLE "invoice_counters" ADD COLUMN "numbering" text DEFAULT 'invoices' NOT NULL;--> statement-breakpoint
ALTER TABLE "invoice_counters" DROP CONSTRAINT "invoice_counters_pkey";--> statement-breakpoint
ALTER TABLE "invoice_counters" ADD CONSTRAINT "invoice_counters_numbering_year_pk" PRIMARY KEY("numbering","year");--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "type" text DEFAULT 'TD01' NOT NULL;--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "numbering" text DEFAULT 'invoices' NOT NULL;--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "refund_id" uuid;--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "corrects_invoice_id" uuid;--> statement-breakpoint
ALTER TABLE "invoices" ADD CONSTRAINT "invoices_refund_id_payment_refunds_id_fk" FOREIGN KEY ("refund_id") REFERENCES "public"."payment_refunds"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "invoices" ADD CONSTRAINT "invoices_corrects_invoice_id_invoices_id_fk" FOREIGN KEY ("corrects_invoice_id") REFERENCES "public"."invoices"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "invoices_numbering_year_number_uq" ON "invoices" USING btree ("numbering","year","number");--> statement-breakpoint
CREATE UNIQUE INDEX "invoices_payment_uq" ON "invoices" USING btree ("payment_id") WHERE "invoices"."type" = 'TD01';--> statement-breakpoint
CREATE INDEX "invoices_payment_idx" ON "invoices" USING btree ("payment_id");--> statement-breakpoint
ALTER TABLE "invoices" ADD CONSTRAINT "invoices_refund_id_unique" UNIQUE("refund_id");--> statement-breakpoint
ALTER TABLE "invoices" ADD CONSTRAINT "invoices_credit_note_linked" CHECK (("invoices"."type" = 'TD04') = ("invoices"."refund_id" is not null and "invoices"."corrects_invoice_id" is not null));