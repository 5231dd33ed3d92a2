-- squawk-ignore-file require-lock-timeout
-- Squawk's exceptions: written before the portal's first release, when no instance served while
-- migrations ran and no table held customers' rows, so its locks blocked nobody.
ALTER TABLE "subscription_periods" ADD COLUMN "tries_before_move" integer DEFAULT 0 NOT NULL;