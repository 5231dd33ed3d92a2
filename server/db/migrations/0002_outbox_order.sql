-- squawk-ignore-file adding-required-field, require-lock-timeout
-- Squawk's exceptions: written before the portal's first release, when no instance served while
-- migrations ran and no table held customers' rows, so its locks blocked nobody.
-- The bigserial NOT NULL column rewrote mail_outbox under an ACCESS EXCLUSIVE lock; today it would
-- be added nullable and filled in a later release.
ALTER TABLE "mail_outbox" ADD COLUMN "seq" bigserial NOT NULL;