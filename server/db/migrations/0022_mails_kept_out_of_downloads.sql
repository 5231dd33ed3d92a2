ALTER TABLE "mail_outbox" ADD COLUMN "in_download" boolean DEFAULT true NOT NULL;--> statement-breakpoint
-- The mails already sent to an address an account asked to move to (the confirmation link, or
-- the notice that the address has an account) leave the requester's download as the new ones do.
UPDATE "mail_outbox" SET "in_download" = false
WHERE "subject" IN ('Conferma il tuo nuovo indirizzo email', 'Richiesta di cambio indirizzo email');
