const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Ids arrive from forms and addresses: anything that is not a uuid matches nothing, and never
 * reaches SQL (PostgreSQL would reject the cast with an error).
 */
export const isUuid = (value: unknown): value is string => typeof value === "string" && UUID.test(value);
