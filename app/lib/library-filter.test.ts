import { describe, expect, it } from "vitest";
import type { LibraryTypeCode } from "#server/library/types.ts";
import { LIBRARY_FILTERS, applyFilter, countByFilter, filterHref, parseFilter } from "./library-filter";

const items = (["ebook", "paper_flex", "paper_hard", "corso", "rivista", "ebook", "corso"] as LibraryTypeCode[]).map(
  (typeCode, i) => ({ id: i, typeCode }),
);

describe("LIBRARY_FILTERS", () => {
  it("are the spec's tabs in order", () => {
    expect(LIBRARY_FILTERS.map((f) => [f.id, f.label])).toEqual([
      ["tutti", "Tutti"],
      ["libri", "Libri"],
      ["corsi", "Corsi"],
      ["riviste", "Riviste"],
    ]);
  });
});

describe("parseFilter", () => {
  it.each(["tutti", "libri", "corsi", "riviste"] as const)("reads %s", (value) => {
    expect(parseFilter(value)).toBe(value);
  });

  it.each([null, undefined, "", "Libri", "ebook", "toString", "constructor", "libri "])("falls back to tutti for %j", (value) => {
    expect(parseFilter(value)).toBe("tutti");
  });
});

describe("applyFilter", () => {
  it("keeps every item for tutti, in order", () => {
    expect(applyFilter(items, "tutti")).toEqual(items);
  });

  it("keeps ebooks and both paper kinds for libri", () => {
    expect(applyFilter(items, "libri").map((i) => i.id)).toEqual([0, 1, 2, 5]);
  });

  it("keeps courses for corsi and journals for riviste", () => {
    expect(applyFilter(items, "corsi").map((i) => i.id)).toEqual([3, 6]);
    expect(applyFilter(items, "riviste").map((i) => i.id)).toEqual([4]);
  });

  it("returns nothing when no item matches", () => {
    expect(applyFilter([{ typeCode: "ebook" as const }], "riviste")).toEqual([]);
  });
});

describe("countByFilter", () => {
  it("counts every tab", () => {
    expect(countByFilter(items)).toEqual({ tutti: 7, libri: 4, corsi: 2, riviste: 1 });
  });

  it("counts zero on an empty library", () => {
    expect(countByFilter([])).toEqual({ tutti: 0, libri: 0, corsi: 0, riviste: 0 });
  });
});

describe("filterHref", () => {
  it("puts the filter in the query string", () => {
    expect(filterHref("/dashboard/", "corsi")).toBe("/dashboard/?filtro=corsi");
  });
});
