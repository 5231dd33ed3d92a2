import { describe, expect, it } from "vitest";
import { FIXTURE_NOW, libraryItem, readingSession } from "./library-fixtures";
import type { LibraryTypeCode } from "#server/library/types.ts";
import {
  ACCESS_EXPIRED,
  BUY_AGAIN,
  CONTINUE_READING,
  OPEN_COURSE,
  OPEN_JOURNAL,
  START_READING,
  SUPPLEMENTARY_CONTENT,
  accessUntilLabel,
  isExpired,
  isNew,
  productActions,
} from "./product-state";

const NOW = FIXTURE_NOW;
const item = libraryItem;
const reading = readingSession;
const DAY = 86_400_000;
const WEEK = 604_800_000;

describe("isExpired", () => {
  it("is false without an end and without the server flag", () => {
    expect(isExpired({ expired: false, expiresAt: null }, NOW)).toBe(false);
  });

  it("follows the server flag even when the end is in the future", () => {
    expect(isExpired({ expired: true, expiresAt: new Date(NOW.getTime() + DAY) }, NOW)).toBe(true);
    expect(isExpired({ expired: true, expiresAt: null }, NOW)).toBe(true);
  });

  it("is true once the end has passed, false up to the end itself", () => {
    expect(isExpired({ expired: false, expiresAt: new Date(NOW.getTime() - 1) }, NOW)).toBe(true);
    expect(isExpired({ expired: false, expiresAt: new Date(NOW.getTime()) }, NOW)).toBe(false);
    expect(isExpired({ expired: false, expiresAt: new Date(NOW.getTime() + 1) }, NOW)).toBe(false);
  });
});

describe("isNew (published less than 7 days ago, or still to come)", () => {
  it("gives no badge without a date", () => {
    expect(isNew(null, NOW)).toBe(false);
  });

  it("counts every future publication", () => {
    expect(isNew(new Date(NOW.getTime() + DAY), NOW)).toBe(true);
    expect(isNew(new Date(NOW.getTime() + 30 * DAY), NOW)).toBe(true);
  });

  it("counts today and the last 7 days, not the 7th day back", () => {
    expect(isNew(NOW, NOW)).toBe(true);
    expect(isNew(new Date(NOW.getTime() - 2 * DAY), NOW)).toBe(true);
    expect(isNew(new Date(NOW.getTime() - WEEK + 1), NOW)).toBe(true);
    expect(isNew(new Date(NOW.getTime() - WEEK), NOW)).toBe(false);
  });

  it("excludes older titles", () => {
    expect(isNew(new Date(NOW.getTime() - 30 * DAY), NOW)).toBe(false);
    expect(isNew(new Date("2024-09-16T09:00:00Z"), NOW)).toBe(false);
  });
});

describe("accessUntilLabel", () => {
  it("shows the day in Italy, as dd/mm/yyyy", () => {
    expect(accessUntilLabel(new Date("2026-09-10T12:00:00Z"))).toBe("Accedi fino al 10/09/2026");
    // 23:30 UTC on 31 August is already 1 September in Rome.
    expect(accessUntilLabel(new Date("2026-08-31T23:30:00Z"))).toBe("Accedi fino al 01/09/2026");
  });
});

describe("productActions", () => {
  const books: LibraryTypeCode[] = ["ebook", "paper_flex", "paper_hard"];

  it.each(books)("offers %s not yet opened 'Inizia a leggere' as a POST to the reader", (typeCode) => {
    expect(productActions(item({ typeCode }), NOW)).toEqual({
      state: "not-started",
      badge: null,
      accessUntil: null,
      buttons: [{ kind: "post", label: START_READING, action: "/leggi/0b7f5c2e-1111-4222-8333-444455556666/apri" }],
    });
  });

  it.each(books)("offers %s already opened 'Continua a leggere'", (typeCode) => {
    const actions = productActions(item({ typeCode, reading }), NOW);
    expect(actions.state).toBe("started");
    expect(actions.buttons).toEqual([
      { kind: "post", label: CONTINUE_READING, action: "/leggi/0b7f5c2e-1111-4222-8333-444455556666/apri" },
    ]);
  });

  it.each(books)("gives expired %s supplementary content, buy again and the badge, whether opened or not", (typeCode) => {
    for (const r of [null, reading]) {
      expect(productActions(item({ typeCode, reading: r, expired: true }), NOW)).toEqual({
        state: "expired",
        badge: ACCESS_EXPIRED,
        accessUntil: null,
        buttons: [
          { kind: "reader", label: SUPPLEMENTARY_CONTENT, href: "/leggi/0b7f5c2e-1111-4222-8333-444455556666/" },
          { kind: "link", label: BUY_AGAIN, href: "https://shop.example/catalog/product/sku/EB-PRIV-12" },
        ],
      });
    }
  });

  it("treats an end passed since the server looked as expired, and drops the date line", () => {
    const actions = productActions(item({ expiresAt: new Date(NOW.getTime() - 1000), expired: false, reading }), NOW);
    expect(actions.state).toBe("expired");
    expect(actions.accessUntil).toBeNull();
  });

  it("shows the date line while access lasts, and none when access has no end", () => {
    const until = new Date("2026-09-10T08:00:00Z");
    expect(productActions(item({ expiresAt: until }), NOW).accessUntil).toBe("Accedi fino al 10/09/2026");
    expect(
      productActions(item({ typeCode: "corso", expiresAt: until, externalUrl: "https://corsi.example/c/1" }), NOW).accessUntil,
    ).toBe("Accedi fino al 10/09/2026");
    expect(productActions(item({ expiresAt: null }), NOW).accessUntil).toBeNull();
  });

  it("leads a course to its platform", () => {
    expect(productActions(item({ typeCode: "corso", externalUrl: "https://corsi.example/course/view.php?id=7" }), NOW)).toEqual({
      state: "course",
      badge: null,
      accessUntil: null,
      buttons: [{ kind: "link", label: OPEN_COURSE, href: "https://corsi.example/course/view.php?id=7" }],
    });
  });

  it("leads a journal with a link to it", () => {
    expect(productActions(item({ typeCode: "rivista", externalUrl: "https://riviste.example/lavoro" }), NOW)).toEqual({
      state: "journal",
      badge: null,
      accessUntil: null,
      buttons: [{ kind: "link", label: OPEN_JOURNAL, href: "https://riviste.example/lavoro" }],
    });
  });

  it("shows no button for a journal without a link or a course without a platform address", () => {
    expect(productActions(item({ typeCode: "rivista", externalUrl: null }), NOW)).toMatchObject({ state: "none", buttons: [] });
    expect(productActions(item({ typeCode: "corso", externalUrl: null }), NOW)).toMatchObject({ state: "none", buttons: [] });
  });

  it("keeps the course and journal buttons when their access is over (the platforms decide)", () => {
    const over = { expired: true, expiresAt: new Date(NOW.getTime() - DAY) };
    const course = productActions(item({ typeCode: "corso", externalUrl: "https://corsi.example/c/1", ...over }), NOW);
    expect(course).toMatchObject({ state: "course", badge: null, accessUntil: null });
    const journal = productActions(item({ typeCode: "rivista", externalUrl: "https://riviste.example/r", ...over }), NOW);
    expect(journal).toMatchObject({ state: "journal", badge: null, accessUntil: null });
  });

  it("escapes the product id in the reader's addresses", () => {
    const actions = productActions(item({ productId: "a/b c" }), NOW);
    expect(actions.buttons[0]).toMatchObject({ action: "/leggi/a%2Fb%20c/apri" });
  });
});
