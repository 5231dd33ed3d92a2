-- Every mail now names the account it went to (the welcome and the password link did not), and
-- the data download lists an account's mails by that alone. The mails sent before are given the
-- account that held their address when they were sent: its current holder, when it has held the
-- address since before the mail (its last used address change, or its creation, came first).
-- Any other stays without an account rather than be given to the wrong one.
UPDATE "mail_outbox" AS m
SET "user_id" = u."id"
FROM "users" AS u
WHERE m."user_id" IS NULL
  AND u."email" IS NOT NULL
  AND lower(m."to") = lower(u."email")
  AND m."created_at" >= coalesce(
    (SELECT max(r."used_at") FROM "email_change_requests" AS r WHERE r."user_id" = u."id"),
    u."created_at"
  );
