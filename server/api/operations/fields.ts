// Fields the operations share: ids, dates as §3 gives them (milliseconds since the epoch), money.
import { z } from "zod";
import { API_MESSAGES } from "#server/api/errors.ts";

/** A uuid, as every object's id; anything else finds nothing (never reaches the database). */
export const uuid = z.uuid({ error: API_MESSAGES.notFound }).transform((id) => id.toLowerCase());

/**
 * The body of a load: the ids of the objects wanted (§7: `load [ids]`). An id that is no uuid finds
 * nothing; a body that is no list of 1 to 100 is a malformed request, worded by the router.
 */
export const idList = z.array(uuid).min(1).max(100);

/**
 * The body of a call about one object given as §7's list (`status [product uuid]`): exactly one id,
 * so that no id a client sends goes unanswered.
 */
export const oneId = z.array(uuid).length(1, API_MESSAGES.oneId);

/** A time as milliseconds since the epoch (§3: has_edu_upto and the like); null when unset. */
export const millis = z.number().int().nullable();
export const toMillis = (date: Date | null | undefined) => (date ? date.getTime() : null);

/**
 * A count asked for in the query string, from 1 to 100, `fallback` when absent. Anything else
 * (0, 101, "abc") is refused, not replaced: a client learns its mistake instead of other data.
 */
export const queryCount = (fallback: number) => z.coerce.number().int().min(1).max(100).default(fallback);

/**
 * A page of a list, asked for in the query string: `limit` rows (the dashboard asks for 2) from
 * `offset` (0: the first). The list's full length comes back in X-Total-Count.
 */
export const listPage = z.object({
  limit: queryCount(50).describe("Quanti elementi al massimo (da 1 a 100; 50 se assente)"),
  offset: z.coerce
    .number()
    .int()
    .min(0)
    .max(1_000_000)
    .default(0)
    .describe("Quanti elementi saltare dall'inizio della lista (0 se assente); il totale è in X-Total-Count"),
});

/** Cents as euros with two decimals (§3's totals are amounts, not cents). */
export const euros = (cents: number) => Math.round(cents) / 100;
