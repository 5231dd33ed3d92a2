import { describe, expect, it } from "vitest";
import { forEachConcurrently } from "./concurrently.ts";

describe("forEachConcurrently", () => {
  it("does every item, never more than the limit at once", async () => {
    let running = 0;
    let most = 0;
    const done: number[] = [];
    await forEachConcurrently([1, 2, 3, 4, 5, 6, 7], 3, async (n) => {
      running++;
      most = Math.max(most, running);
      await new Promise((resolve) => setImmediate(resolve));
      done.push(n);
      running--;
    });
    expect(done.sort()).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(most).toBe(3);
  });

  it("finishes the others when one fails, then rethrows the first failure", async () => {
    const done: number[] = [];
    await expect(
      forEachConcurrently([1, 2, 3], 2, async (n) => {
        if (n === 1) throw new Error("one");
        done.push(n);
      }),
    ).rejects.toThrow("one");
    expect(done).toEqual([2, 3]);
  });

  it("does nothing with no items", async () => {
    await forEachConcurrently([], 4, () => Promise.reject(new Error("never")));
  });
});
