-- squawk-ignore-file require-lock-timeout
-- Squawk's exceptions: written before the portal's first release, when no instance served while
-- migrations ran and no table held customers' rows, so its locks blocked nobody.
CREATE TABLE "invoice_transmissions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"invoice_id" uuid NOT NULL,
	"file_name" text NOT NULL,
	"xml" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"sent_at" timestamp with time zone,
	"sdi_id" text,
	"outcome" text,
	"outcome_at" timestamp with time zone,
	"errors" jsonb,
	CONSTRAINT "invoice_transmissions_file_name_unique" UNIQUE("file_name")
);
--> statement-breakpoint
CREATE TABLE "sdi_notifications" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"type" text NOT NULL,
	"sdi_id" text NOT NULL,
	"message_id" text NOT NULL,
	"file_name" text NOT NULL,
	"invoice_file_name" text NOT NULL,
	"transmission_id" uuid,
	"status" text NOT NULL,
	"received_at" timestamp with time zone NOT NULL,
	"xml" text NOT NULL,
	"read_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "invoice_transmissions" ADD CONSTRAINT "invoice_transmissions_invoice_id_invoices_id_fk" FOREIGN KEY ("invoice_id") REFERENCES "public"."invoices"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sdi_notifications" ADD CONSTRAINT "sdi_notifications_transmission_id_invoice_transmissions_id_fk" FOREIGN KEY ("transmission_id") REFERENCES "public"."invoice_transmissions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "invoice_transmissions_invoice_idx" ON "invoice_transmissions" USING btree ("invoice_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "sdi_notifications_key_uq" ON "sdi_notifications" USING btree ("sdi_id","type","message_id");--> statement-breakpoint
CREATE INDEX "sdi_notifications_transmission_idx" ON "sdi_notifications" USING btree ("transmission_id");