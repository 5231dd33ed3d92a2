// The reader's pages as the server renders them: the book, the index as buttons of a form with
// the shown chapter marked, the chapter text, previous/next; the expired and refused variants.
import { renderToStaticMarkup } from "react-dom/server";
import { createRoutesStub } from "react-router";
import { describe, expect, it } from "vitest";
import Reader from "#app/routes/reader.tsx";
import { READER_MESSAGES } from "#shared/reader-messages.ts";
import { ReaderRefusal } from "./reader-refusal";
import { ReaderSupplementary } from "./reader-supplementary";
import { renderMarkup } from "./test-markup";
import type { BookInfo, BookView } from "#server/library/reading.ts";

const ID = "0b7f5c2e-1111-4222-8333-444455556666";
const book: BookInfo = {
  id: ID,
  name: "Procedura penale",
  shortAuthors: "Valentina Greco, Matteo Lombardi",
  edition: "VIII edizione",
  cover: "lb-9788800001118",
  typeName: "eBook",
  description: "Soggetti, atti, prove e impugnazioni.",
};
const chapters = [
  { position: 1, title: "I soggetti del procedimento" },
  { position: 2, title: "Le prove e il contraddittorio" },
  { position: 3, title: "Le impugnazioni" },
];

function renderReader(view: BookView & { ok: true }) {
  const Stub = createRoutesStub([
    { id: "reader", path: "/leggi/:productId/", Component: Reader as never, HydrateFallback: () => null },
  ]);
  const html = renderToStaticMarkup(<Stub initialEntries={[`/leggi/${ID}/`]} hydrationData={{ loaderData: { reader: view } }} />);
  return {
    html,
    text: html
      .replace(/<[^>]+>/g, " ")
      .replace(/&#x27;/g, "'")
      .replace(/\s+/g, " "),
  };
}

describe("the reader page", () => {
  const view = {
    ok: true as const,
    book,
    chapters,
    chapter: { ...chapters[1]!, paragraphs: ["Primo paragrafo.", "Secondo paragrafo."] },
    currentPosition: 2,
    requestedMissing: false,
    expiresAt: new Date("2026-09-02T10:00:00Z"),
  };

  it("shows the book, the chapter's text, and the index as buttons posting the position", () => {
    const { html, text } = renderReader(view);
    expect(html).toMatch(/<h1[^>]*>Procedura penale<\/h1>/);
    expect(html).toMatch(/<h2 id="capitolo"[^>]*>Le prove e il contraddittorio<\/h2>/);
    expect(text).toContain("Primo paragrafo.");
    expect(text).toContain("Accesso fino al 02/09/2026");
    expect(text).toContain("Capitolo 2 di 3");
    // Two forms posting to the reader itself: the index, and previous/next.
    expect(html.match(new RegExp(`<form[^>]*action="/leggi/${ID}/" method="post"`, "g"))).toHaveLength(2);
    for (const c of chapters) expect(html).toMatch(new RegExp(`<button type="submit" value="${c.position}"[^>]*name="position"`));
    // Only the chapter shown is current.
    expect(html.match(/aria-current="page"/g)).toHaveLength(1);
    expect(html).toMatch(/aria-current="page"[^>]*>.*Le prove e il contraddittorio/);
    expect(text).toContain("Capitolo precedente I soggetti del procedimento");
    expect(text).toContain("Capitolo successivo → Le impugnazioni");
    expect(html).toContain('href="/dashboard/"');
  });

  it("has no previous button on the first chapter and no next on the last, and says when a chapter is missing", () => {
    const first = renderReader({ ...view, chapter: { ...chapters[0]!, paragraphs: ["Testo."] }, requestedMissing: true });
    expect(first.text).not.toContain("Capitolo precedente");
    expect(first.text).toContain("Capitolo successivo");
    expect(first.text).toContain(READER_MESSAGES.requestedChapterMissing);
    const last = renderReader({ ...view, chapter: { ...chapters[2]!, paragraphs: ["Testo."] } });
    expect(last.text).toContain("Capitolo precedente");
    expect(last.text).not.toContain("Capitolo successivo");
  });
});

describe("the expired and refused pages", () => {
  it("shows 'Contenuti aggiuntivi' with 'Accesso scaduto', the index without text and 'Acquista di nuovo'", () => {
    const { html, text } = renderMarkup(
      <ReaderSupplementary
        book={book}
        chapters={chapters}
        expiredAt={new Date("2026-01-10T10:00:00Z")}
        buyLink="https://shop.example/catalog/product/sku/EB-1"
      />,
    );
    expect(html).toMatch(/<h2[^>]*>Contenuti aggiuntivi<\/h2>/);
    expect(text).toContain("Accesso scaduto");
    expect(text).toContain("scaduto il 10/01/2026");
    expect(text).toContain("Le impugnazioni");
    expect(html).not.toContain("<form");
    expect(html).toMatch(/href="https:\/\/shop.example\/catalog\/product\/sku\/EB-1"[^>]*>Acquista di nuovo</);
  });

  it("refuses in Italian, with the way back and to activation", () => {
    const { html, text } = renderMarkup(<ReaderRefusal />);
    expect(html).toMatch(/<h1[^>]*>Non hai accesso a questo prodotto<\/h1>/);
    expect(text).toContain("Attiva prodotto");
    expect(html).toContain('href="/dashboard/?show=activateProduct"');
  });
});
