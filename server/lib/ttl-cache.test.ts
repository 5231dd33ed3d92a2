import { describe, expect, it, vi } from "vitest";
import { createTtlCache } from "./ttl-cache.ts";

describe("createTtlCache", () => {
  it("loads once per key until the entry expires", async () => {
    let now = 0;
    const cache = createTtlCache<number>(1000, () => now);
    const load = vi.fn(async () => 42);
    await Promise.all([cache.get("k", load), cache.get("k", load)]);
    now = 999;
    expect(await cache.get("k", load)).toBe(42);
    expect(load).toHaveBeenCalledTimes(1);
    now = 1000;
    await cache.get("k", load);
    expect(load).toHaveBeenCalledTimes(2);
  });

  it("does not keep a failed load", async () => {
    const cache = createTtlCache<number>(1000);
    await expect(cache.get("k", () => Promise.reject(new Error("down")))).rejects.toThrow("down");
    expect(await cache.get("k", async () => 7)).toBe(7);
  });

  it("keeps at most maxEntries keys, forgetting the oldest", async () => {
    const cache = createTtlCache<string>(1000, () => 0, 2);
    const load = vi.fn(async () => "v");
    await cache.get("a", load);
    await cache.get("b", load);
    await cache.get("c", load);
    await cache.get("c", load);
    await cache.get("b", load);
    expect(load).toHaveBeenCalledTimes(3);
    await cache.get("a", load);
    expect(load).toHaveBeenCalledTimes(4);
  });
});
