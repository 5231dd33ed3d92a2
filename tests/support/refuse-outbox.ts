// The outbox refusing every insert as a full disk would (SQLSTATE 53100, "disk full"): a real
// trigger in the database, so the write fails where it fails in production, inside the caller's
// transaction (issue 29: a row and the mail it owes are written together, or neither).
import { sql } from "drizzle-orm";
import type { Queryable } from "#server/db/client.ts";

/** Runs `during` while the database refuses mail_outbox inserts, then lets them through again. */
export async function withOutboxRefused<T>(db: Queryable, during: () => Promise<T>): Promise<T> {
  await db.execute(sql`
    create function refuse_outbox_insert() returns trigger language plpgsql as $$
    begin raise exception 'could not extend file: No space left on device' using errcode = '53100'; end $$`);
  await db.execute(sql`
    create trigger refuse_outbox_insert before insert on mail_outbox for each row execute function refuse_outbox_insert()`);
  try {
    return await during();
  } finally {
    await db.execute(sql`drop trigger refuse_outbox_insert on mail_outbox`);
    await db.execute(sql`drop function refuse_outbox_insert()`);
  }
}
