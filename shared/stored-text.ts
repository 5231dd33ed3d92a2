// What PostgreSQL's text cannot hold: U+0000 (refused with an error, which would be a 500) and a
// lone UTF-16 surrogate, which JSON's "\uD800" can carry but UTF-8 cannot encode (the driver
// would write U+FFFD in its place, silently changing what was sent). Both doors refuse such a
// value as the field's validation error before any schema or service sees it: the API's router
// (server/api/router.ts) and the pages' form reader (app/lib/form-reply.server.ts).

/** Whether PostgreSQL can store this string exactly as it is. */
export const isStorableText = (text: string): boolean => text.isWellFormed() && !text.includes("\0");

/**
 * Where the first string that cannot be stored sits in a parsed JSON value (a key counts as the
 * value under it): its path, [] for the value itself, or null when every string can be stored.
 */
export function unstorableTextPath(value: unknown): (string | number)[] | null {
  if (typeof value === "string") return isStorableText(value) ? null : [];
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const inner = unstorableTextPath(item);
      if (inner) return [index, ...inner];
    }
  } else if (typeof value === "object" && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      if (!isStorableText(key)) return [key];
      const inner = unstorableTextPath(item);
      if (inner) return [key, ...inner];
    }
  }
  return null;
}
