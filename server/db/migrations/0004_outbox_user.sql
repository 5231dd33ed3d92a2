-- squawk-ignore-file adding-foreign-key-constraint, constraint-missing-not-valid, require-lock-timeout
-- Squawk's exceptions: written before the portal's first release, when no instance served while
-- migrations ran and no table held customers' rows, so its locks blocked nobody.
-- The foreign key scanned mail_outbox under a SHARE ROW EXCLUSIVE lock on it and on users; today
-- it would be added NOT VALID and validated in a statement of its own.
ALTER TABLE "mail_outbox" ADD COLUMN "user_id" uuid;--> statement-breakpoint
ALTER TABLE "mail_outbox" ADD CONSTRAINT "mail_outbox_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;