import { describe, expect, it } from "vitest";
import { LibraryTabs } from "./library-tabs";
import { renderMarkup } from "./test-markup";

const counts = { tutti: 7, libri: 4, corsi: 2, riviste: 1 };

describe("LibraryTabs", () => {
  it("links every filter through the query string, with its count", () => {
    const { html, text } = renderMarkup(<LibraryTabs counts={counts} current="tutti" basePath="/dashboard/" />);
    expect(html).toContain('<nav aria-label="Filtra i tuoi prodotti">');
    for (const [id, label, count] of [
      ["tutti", "Tutti", 7],
      ["libri", "Libri", 4],
      ["corsi", "Corsi", 2],
      ["riviste", "Riviste", 1],
    ] as const) {
      expect(html).toMatch(new RegExp(`<a [^>]*href="/dashboard/\\?filtro=${id}"[^>]*>${label}<span[^>]*>${count}</span></a>`));
    }
    expect(text).toBe("Tutti 7 Libri 4 Corsi 2 Riviste 1");
  });

  it.each(["tutti", "libri", "corsi", "riviste"] as const)("marks only %s as current", (current) => {
    const { html } = renderMarkup(<LibraryTabs counts={counts} current={current} basePath="/dashboard/" />);
    const marked = [...html.matchAll(/<a [^>]*aria-current="page"[^>]*href="([^"]+)"/g)].map((m) => m[1]);
    expect(marked).toEqual([`/dashboard/?filtro=${current}`]);
  });

  it("returns a full page load to the product list when given an anchor", () => {
    const { html } = renderMarkup(<LibraryTabs counts={counts} current="libri" basePath="/dashboard/" anchor="prodotti" />);
    expect(html).toContain('href="/dashboard/?filtro=corsi#prodotti"');
  });

  it("shows zero counts", () => {
    const { text } = renderMarkup(
      <LibraryTabs counts={{ tutti: 0, libri: 0, corsi: 0, riviste: 0 }} current="tutti" basePath="/dashboard/" />,
    );
    expect(text).toBe("Tutti 0 Libri 0 Corsi 0 Riviste 0");
  });
});
