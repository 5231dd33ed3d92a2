-- squawk-ignore-file adding-field-with-default, constraint-missing-not-valid, disallowed-unique-constraint, require-lock-timeout
-- Squawk's exceptions: written before the portal's first release, when no instance served while
-- migrations ran and no table held customers' rows, so its locks blocked nobody.
-- gen_random_uuid() is volatile: the column's default rewrote sessions under an ACCESS EXCLUSIVE
-- lock, and the unique constraint built its index under it; today: a nullable column filled in
-- batches, a unique index built CONCURRENTLY, then the constraint and NOT NULL in a later release.
ALTER TABLE "sessions" ADD COLUMN "public_id" uuid DEFAULT gen_random_uuid() NOT NULL;--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN "user_agent" text;--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN "ip_prefix" text;--> statement-breakpoint
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_public_id_unique" UNIQUE("public_id");