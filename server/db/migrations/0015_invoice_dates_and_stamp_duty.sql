-- Invoices issued before this migration were dated the day their job ran: that day is their date.
ALTER TABLE "invoices" ADD COLUMN "date" date;--> statement-breakpoint
UPDATE "invoices" SET "date" = ("issued_at" AT TIME ZONE 'Europe/Rome')::date;--> statement-breakpoint
ALTER TABLE "invoices" ALTER COLUMN "date" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "stamp_duty" boolean DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX "invoices_date_idx" ON "invoices" USING btree ("date");
