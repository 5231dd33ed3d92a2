import { describe, expect, it } from "vitest";
import type { Suggestion } from "#server/library/types.ts";
import { SuggestionCard } from "./suggestion-card";
import { renderMarkup } from "./test-markup";

const NOW = new Date("2026-03-10T12:00:00Z");

function suggestion(overrides: Partial<Suggestion> = {}): Suggestion {
  return {
    productId: "p1",
    name: "Diritto del lavoro",
    typeCode: "paper_flex",
    typeName: "Libro + eBook",
    sku: "PF-LAV-6",
    cover: "pf06",
    shortAuthors: "Chiara Fontana, Luca Moretti",
    pubdate: new Date("2025-01-15T09:00:00Z"),
    priceCents: 4800,
    buyLink: "https://shop.example/catalog/product/sku/PF-LAV-6",
    ...overrides,
  };
}

describe("SuggestionCard", () => {
  it("shows type, name, authors, price and a link to the shop", () => {
    const { html, text } = renderMarkup(<SuggestionCard suggestion={suggestion()} now={NOW} />);
    expect(text).toContain("Libro + eBook");
    expect(html).toMatch(/<h3[^>]*>Diritto del lavoro<\/h3>/);
    expect(text).toContain("Chiara Fontana, Luca Moretti");
    expect(text).toContain("48,00 €");
    expect(html).toMatch(
      /<a href="https:\/\/shop.example\/catalog\/product\/sku\/PF-LAV-6"[^>]*>Scopri<span class="sr-only">: Diritto del lavoro/,
    );
    expect(text).not.toContain("Aula + Streaming");
  });

  it("shows the 'Novità' chip on recent and upcoming titles only", () => {
    expect(
      renderMarkup(<SuggestionCard suggestion={suggestion({ pubdate: new Date("2026-03-15T09:00:00Z") })} now={NOW} />).text,
    ).toContain("Novità");
    expect(renderMarkup(<SuggestionCard suggestion={suggestion()} now={NOW} />).text).not.toContain("Novità");
  });

  it("adds the fixed placeholder details to courses", () => {
    const { text } = renderMarkup(<SuggestionCard suggestion={suggestion({ typeCode: "corso", typeName: "Corso" })} now={NOW} />);
    expect(text).toContain("Aula + Streaming");
    expect(text).toContain("29 Lezioni, 24 Esercitazioni");
  });
});
