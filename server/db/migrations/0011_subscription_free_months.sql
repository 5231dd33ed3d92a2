ALTER TABLE "subscriptions" ADD COLUMN "free_months" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD COLUMN "free_until" timestamp with time zone;