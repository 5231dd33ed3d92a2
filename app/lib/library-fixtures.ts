// Test data for the dashboard's cards (unit and render tests): an owned eBook, never read,
// with no end of access, and a reading session; each test overrides what it looks at.
import type { LibraryItem } from "#server/library/types.ts";

export const FIXTURE_NOW = new Date("2026-03-10T12:00:00Z");

export function libraryItem(overrides: Partial<LibraryItem> = {}): LibraryItem {
  return {
    productId: "0b7f5c2e-1111-4222-8333-444455556666",
    name: "Manuale di diritto privato",
    typeCode: "ebook",
    typeName: "eBook",
    sku: "EB-PRIV-12",
    isbn: "9788800000012",
    issn: null,
    cover: "pf04",
    shortAuthors: "Andrea Colombo, Francesca Rinaldi",
    edition: "XII edizione",
    pubdate: new Date("2025-01-15T09:00:00Z"),
    expiresAt: null,
    expired: false,
    obtained: { source: "activation_code", at: new Date("2026-03-02T09:30:00Z") },
    reading: null,
    externalUrl: null,
    buyLink: "https://shop.example/catalog/product/sku/EB-PRIV-12",
    ...overrides,
  };
}

export const readingSession = {
  startedAt: new Date("2026-03-01T10:00:00Z"),
  lastReadAt: new Date("2026-03-09T10:00:00Z"),
  status: "Capitolo 3. Il contratto",
};
