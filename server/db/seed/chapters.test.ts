import { describe, expect, it } from "vitest";
import { buildChapters, subjectOf } from "./chapters.ts";
import { buildProducts } from "./catalog.ts";

const links = {
  mainSite: "https://m.example",
  shop: "https://s.example",
  coursePlatform: "https://c.example",
  eduPlatform: "https://e.example",
};
const readable = buildProducts(links, new Date("2026-03-02T10:00:00Z")).filter(
  (p) => p.typeCode === "ebook" || p.typeCode === "paper_flex",
);

describe("buildChapters", () => {
  it("gives every readable product of the catalogue 5–8 numbered chapters of 2–4 paragraphs", () => {
    expect(readable.length).toBeGreaterThan(40);
    const counts = new Set<number>();
    for (const product of readable) {
      const chapters = buildChapters(product);
      counts.add(chapters.length);
      expect(chapters.map((c) => c.position)).toEqual(chapters.map((_, i) => i + 1));
      for (const { title, body } of chapters) {
        expect(title.trim()).not.toBe("");
        const paragraphs = body.split("\n\n");
        expect(paragraphs.length).toBeGreaterThanOrEqual(2);
        expect(paragraphs.length).toBeLessThanOrEqual(4);
        expect(paragraphs[0]).toContain(`«${title}»`);
      }
    }
    expect([...counts].sort()).toEqual([5, 6, 7, 8]);
  });

  it("is the same for the same product, whatever else is seeded", () => {
    const product = { sku: "EB-9788800003011", name: "Procedura penale" };
    expect(buildChapters({ ...product })).toEqual(buildChapters(product));
    expect(buildChapters({ ...product, sku: "EB-9788800003028" })).not.toEqual(buildChapters(product));
  });

  it.each([
    ["Procedura penale", "I soggetti del procedimento"],
    ["Compendio di diritto penale. Parte speciale", "I delitti contro la libertà personale e morale"],
    ["Manuale di diritto penale. Parte generale", "La struttura del reato"],
    ["Il licenziamento dopo la Corte costituzionale", "Il contratto di lavoro subordinato"],
    ["La mediazione civile e commerciale", "L'azione e le condizioni dell'azione"],
    ["Istituzioni di diritto pubblico", "Le fonti del diritto"],
    ["Codice civile commentato", "Libro primo. Delle persone e della famiglia"],
    ["Schemi di diritto civile", "Le persone fisiche e gli enti"],
    ["Il condominio. Guida pratica", "Il quadro normativo di riferimento"],
  ])("reads the subject of '%s' from its title", (name, secondChapter) => {
    expect(subjectOf(name).chapters[1]).toBe(secondChapter);
  });
});
