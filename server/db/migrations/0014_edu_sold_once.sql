ALTER TABLE "orders" ADD COLUMN "closed_reason" text;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD COLUMN "free_by" text;