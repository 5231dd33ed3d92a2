import { describe, expect, it } from "vitest";
import { safeRedirectTarget } from "./safe-redirect.ts";

describe("safeRedirectTarget", () => {
  it.each([
    ["/dashboard/?tab=libri#top", "/dashboard/?tab=libri#top"],
    ["/a/../profile/", "/profile/"],
    ["/./edu", "/edu"],
    ["/%2e/edu", "/edu"],
  ])("keeps the same-origin path %s, normalised to %s", (target, expected) => {
    expect(safeRedirectTarget(target)).toBe(expected);
  });

  it.each([
    "/.//evil.example",
    "/..//evil.example",
    "/%2e//evil.example",
    "/%2E%2E//evil.example",
    "/a/..//evil.example",
    "/a/b/../..//evil.example/x?y#z",
    "/.\\/evil.example",
    "/\\evil.example",
    "/\\/evil.example",
    "/a/..\\\\evil.example",
    "//evil.example/x",
    "https://evil.example/",
    "javascript:alert(1)",
    "dashboard",
    "",
    null,
    undefined,
  ])("turns %s into the fallback", (target) => {
    expect(safeRedirectTarget(target)).toBe("/");
  });
});
