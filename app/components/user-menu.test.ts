import { describe, expect, it } from "vitest";
import { openFor } from "./user-menu";

/** An element as the browser reports its running animations. */
const withAnimations = (animations: { animationName: string; currentTime: number | null }[]) =>
  ({ getAnimations: () => animations }) as unknown as Element;

describe("openFor", () => {
  it("reads how long the menu has been open from its stopwatch animation", () => {
    const details = withAnimations([
      { animationName: "other", currentTime: 50 },
      { animationName: "user-menu-stopwatch", currentTime: 1500 },
    ]);
    expect(openFor(details)).toBe(1500);
  });

  it("says 0 when the browser cannot tell", () => {
    expect(openFor(withAnimations([]))).toBe(0);
    expect(openFor(withAnimations([{ animationName: "user-menu-stopwatch", currentTime: null }]))).toBe(0);
    expect(openFor({} as Element)).toBe(0);
  });
});
