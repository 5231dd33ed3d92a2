/**
 * A small read-through cache with a time to live. Concurrent misses for one key share a single
 * load, and a failed load is not cached. Keys may come from a client (an API's area code), so
 * at most `maxEntries` are kept: beyond that the oldest goes.
 */
export function createTtlCache<T>(ttlMs: number, now: () => number = Date.now, maxEntries = 1000) {
  const entries = new Map<string, { expires: number; value: Promise<T> }>();
  return {
    get(key: string, load: () => Promise<T>): Promise<T> {
      const hit = entries.get(key);
      if (hit && hit.expires > now()) return hit.value;
      const value = load();
      // Re-inserted, so the Map's order stays the order of loading.
      entries.delete(key);
      entries.set(key, { expires: now() + ttlMs, value });
      if (entries.size > maxEntries) entries.delete(entries.keys().next().value!);
      value.catch(() => {
        if (entries.get(key)?.value === value) entries.delete(key);
      });
      return value;
    },
    clear() {
      entries.clear();
    },
  };
}
