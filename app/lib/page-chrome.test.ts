import { describe, expect, it } from "vitest";
import { chromeOf, MINIMAL_CHROME } from "./page-chrome";

const root = { handle: undefined };

describe("chromeOf", () => {
  it("gives a page that says nothing the full header with the catalogue strip", () => {
    expect(chromeOf([root, { handle: undefined }])).toEqual({ header: "full", topStrip: true, dark: false });
  });

  it("takes what the routes' handles say, the innermost last", () => {
    expect(chromeOf([root, { handle: MINIMAL_CHROME }]).header).toBe("minimal");
    expect(chromeOf([root, { handle: { chrome: { dark: true } } }])).toEqual({ header: "full", topStrip: true, dark: true });
    expect(chromeOf([root, { handle: { chrome: { header: "full" } } }, { handle: { chrome: { header: "none" } } }]).header).toBe(
      "none",
    );
    expect(chromeOf([root, { handle: { chrome: { topStrip: false } } }])).toEqual({
      header: "full",
      topStrip: false,
      dark: false,
    });
  });

  it("ignores handles that are not about the chrome", () => {
    expect(chromeOf([root, { handle: { other: 1 } }, { handle: "x" }])).toEqual({ header: "full", topStrip: true, dark: false });
  });
});
