import { describe, expect, it } from "vitest";
import { myProductsHref, parsePage, parseTab, readLocation } from "./my-products";

describe("the addresses of /my-products/", () => {
  it("reads the tab: 'inattivi', or 'attivi' for anything else", () => {
    expect(parseTab("inattivi")).toBe("inattivi");
    for (const value of ["attivi", null, "", "INATTIVI", "altro"]) expect(parseTab(value)).toBe("attivi");
  });

  it("reads the history page: a whole number from 1, or 1", () => {
    expect(parsePage("2")).toBe(2);
    expect(parsePage("150")).toBe(150);
    for (const value of [null, "", "0", "-1", "1.5", "02", "abc", "1e3", "9999999"]) expect(parsePage(value)).toBe(1);
  });

  it("writes the defaults out of the address", () => {
    expect(myProductsHref({ tab: "attivi", page: 1 })).toBe("/my-products/");
    expect(myProductsHref({ tab: "inattivi", page: 1 })).toBe("/my-products/?tab=inattivi");
    expect(myProductsHref({ tab: "attivi", page: 3 })).toBe("/my-products/?pagina=3");
    expect(myProductsHref({ tab: "inattivi", page: 2 })).toBe("/my-products/?tab=inattivi&pagina=2");
    expect(readLocation("?tab=inattivi&pagina=2")).toEqual({ tab: "inattivi", page: 2 });
  });
});
