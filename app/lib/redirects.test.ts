import { describe, expect, it } from "vitest";
import { safeRedirectTarget, withRedirect } from "./redirects";

describe("safeRedirectTarget", () => {
  it("keeps same-origin relative paths with query and hash", () => {
    expect(safeRedirectTarget("/dashboard/?tab=libri#top")).toBe("/dashboard/?tab=libri#top");
  });

  it.each([
    "https://evil.example/",
    "//evil.example/x",
    "/\\evil.example",
    "javascript:alert(1)",
    "dashboard",
    "",
    null,
    undefined,
  ])("turns %s into /", (target) => expect(safeRedirectTarget(target)).toBe("/"));
});

describe("withRedirect", () => {
  it("encodes the current address", () => {
    expect(withRedirect("/login/", "/attivaebook?x=1&y=2")).toBe("/login/?redirect=%2Fattivaebook%3Fx%3D1%26y%3D2");
  });
});
