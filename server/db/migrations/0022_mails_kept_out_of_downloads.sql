-- squawk-ignore-file require-lock-timeout
-- Squawk's exceptions: written before the portal's first release, when no instance served while
-- migrations ran and no table held customers' rows, so its locks blocked nobody.
ALTER TABLE "mail_outbox" ADD COLUMN "in_download" boolean DEFAULT true NOT NULL;--> statement-breakpoint
-- The mails already sent to an address an account asked to move to (the confirmation link, or
-- the notice that the address has an account) leave the requester's download as the new ones do.
UPDATE "mail_outbox" SET "in_download" = false
WHERE "subject" IN ('Conferma il tuo nuovo indirizzo email', 'Richiesta di cambio indirizzo email');
