-- squawk-ignore-file require-lock-timeout
-- Squawk's exceptions: written before the portal's first release, when no instance served while
-- migrations ran and no table held customers' rows, so its locks blocked nobody.
ALTER TABLE "activation_code_batches" ADD COLUMN "disabled_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "audit_log" ADD COLUMN "actor" text;--> statement-breakpoint
ALTER TABLE "audit_log" ADD COLUMN "details" jsonb;--> statement-breakpoint
ALTER TABLE "coupons" ADD COLUMN "disabled_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "refunded_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "refund_ref" text;--> statement-breakpoint
ALTER TABLE "subscription_periods" ADD COLUMN "customer_tries" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "subscription_periods" ADD COLUMN "try_kind" text;--> statement-breakpoint
INSERT INTO "order_statuses" ("code", "name") VALUES ('refunded', 'Rimborsato');--> statement-breakpoint
-- A month being charged when this migration runs is a scheduled try (customers' tries are new).
UPDATE "subscription_periods" SET "try_kind" = 'scheduled' WHERE "status" = 'charging';
