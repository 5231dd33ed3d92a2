import { describe, expect, it } from "vitest";
import { onAnotherDay } from "#tests/support/clock.ts";
import { FIXTURE_NOW, libraryItem, readingSession } from "#app/lib/library-fixtures.ts";
import type { LibraryItem } from "#server/library/types.ts";
import { ProductCard, productIdentifier } from "./product-card";
import { renderMarkup } from "./test-markup";

const NOW = FIXTURE_NOW;
const item = libraryItem;
const reading = readingSession;
const ID = "0b7f5c2e-1111-4222-8333-444455556666";

function render(data: LibraryItem) {
  return renderMarkup(<ProductCard item={data} now={NOW} />);
}

describe("ProductCard", () => {
  it("shows the product's details", () => {
    const { html, text } = render(item());
    expect(text).toContain("eBook");
    expect(html).toMatch(/<h3[^>]*>Manuale di diritto privato<\/h3>/);
    expect(text).toContain("Andrea Colombo, Francesca Rinaldi");
    expect(text).toContain("ISBN 9788800000012");
    expect(html).toContain('src="/media/copertine/pf04.svg"');
  });

  it("opens an unread book with a POST form labelled 'Inizia a leggere'", () => {
    const { html, text } = render(item());
    expect(html).toContain(`<form action="/leggi/${ID}/apri" method="post"><button type="submit"`);
    expect(text).toContain("Inizia a leggere");
    expect(text).not.toContain("Continua a leggere");
    expect(text).not.toContain("Stai leggendo");
    expect(html).not.toContain("<a ");
  });

  it("continues a started book and says where the reader is", () => {
    const { html, text } = render(item({ typeCode: "paper_flex", reading }));
    expect(html).toContain(`action="/leggi/${ID}/apri"`);
    expect(text).toContain("Continua a leggere");
    expect(text).not.toContain("Inizia a leggere");
    expect(text).toContain("Stai leggendo: Capitolo 3. Il contratto");
  });

  it("gives an expired book supplementary content, buy again and the badge, and no reading form", () => {
    const { html, text } = render(
      item({ typeCode: "paper_hard", reading, expired: true, expiresAt: new Date("2026-03-01T00:00:00Z") }),
    );
    expect(html).toMatch(new RegExp(`<a href="/leggi/${ID}/"[^>]*>Contenuti aggiuntivi`));
    expect(html).toMatch(/<a href="https:\/\/shop\.example\/catalog\/product\/sku\/EB-PRIV-12"[^>]*>Acquista di nuovo/);
    expect(text).toContain("Accesso scaduto");
    expect(html).not.toContain("<form");
    expect(text).not.toContain("Accedi fino al");
  });

  it("shows the end of access while it lasts", () => {
    const { text } = render(item({ expiresAt: new Date("2026-09-10T08:00:00Z") }));
    expect(text).toContain("Accedi fino al 10/09/2026");
    expect(text).not.toContain("Accesso scaduto");
  });

  it("says in one line how the product was obtained, and leaves until when to its own line", () =>
    // The card writes out the dates it is given and reads the time only from `now`: on any day.
    onAnotherDay(() => {
      const coded = render(item({ expiresAt: new Date("2026-09-02T09:30:00Z") })).text;
      expect(coded).toContain("ISBN 9788800000012 Attivato con il codice del libro il 2 marzo 2026 Accedi fino al 02/09/2026");
      expect(coded).not.toContain("Accesso fino");
      const at = new Date("2026-02-27T23:15:00Z"); // 28 February in Rome
      expect(render(item({ obtained: { source: "purchase", at } })).text).toContain("Acquistato il 28 febbraio 2026");
      expect(render(item({ obtained: { source: "operator", at } })).text).toContain(
        "Concesso dal servizio clienti il 28 febbraio 2026",
      );
      // An expired product still says how it was obtained.
      const expired = item({
        expired: true,
        expiresAt: new Date("2026-03-01T00:00:00Z"),
        obtained: { source: "activation_code", at: new Date("2025-09-01T10:00:00Z") },
      });
      expect(render(expired).text).toContain("Attivato con il codice del libro il 1 settembre 2025");
    }));

  it("leads a course to its platform", () => {
    const { html, text } = render(
      item({ typeCode: "corso", typeName: "Corso", isbn: null, externalUrl: "https://corsi.example/course/view.php?id=7" }),
    );
    expect(html).toMatch(/<a href="https:\/\/corsi\.example\/course\/view\.php\?id=7"[^>]*>Accedi al corso/);
    expect(html).not.toContain("<form");
    expect(text).toContain("SKU EB-PRIV-12");
  });

  it("leads a journal to its site, and shows no button when it has none", () => {
    const linked = render(item({ typeCode: "rivista", isbn: null, issn: "1234-5678", externalUrl: "https://riviste.example/r" }));
    expect(linked.html).toMatch(/<a href="https:\/\/riviste\.example\/r"[^>]*>Vai alla rivista/);
    expect(linked.text).toContain("ISSN 1234-5678");

    const bare = render(item({ typeCode: "rivista", isbn: null, issn: "1234-5678", externalUrl: null }));
    expect(bare.html).not.toContain("<a ");
    expect(bare.html).not.toContain("<button");
  });

  it("marks products published in the last 7 days or still to come, not older ones", () => {
    expect(render(item({ pubdate: new Date("2026-03-12T09:00:00Z") })).text).toContain("Novità");
    expect(render(item({ pubdate: new Date("2026-03-08T09:00:00Z") })).text).toContain("Novità");
    expect(render(item({ pubdate: new Date("2026-02-20T12:00:00Z") })).text).not.toContain("Novità");
    expect(render(item({ pubdate: null })).text).not.toContain("Novità");
  });

  it("leaves the frame and the cover to the surrounding box when compact", () => {
    const full = renderMarkup(<ProductCard item={item({ reading })} now={NOW} />);
    const compact = renderMarkup(<ProductCard item={item({ reading })} now={NOW} compact />);
    expect(full.html).toContain("<img ");
    expect(full.html).toMatch(/<article class="card /);
    expect(compact.html).not.toContain("<img ");
    expect(compact.html).not.toMatch(/class="card /);
    expect(compact.text).toBe(full.text);
    expect(compact.html).toContain(`action="/leggi/${ID}/apri"`);
  });

  it("names the product in each button for assistive technology", () => {
    const { html } = render(item({ expired: true }));
    expect(html.match(/<span class="sr-only">: Manuale di diritto privato<\/span>/g)).toHaveLength(2);
  });
});

describe("productIdentifier", () => {
  it("prefers the ISBN, then the ISSN, then the SKU", () => {
    expect(productIdentifier({ isbn: "978", issn: "1234", sku: "S" })).toBe("ISBN 978");
    expect(productIdentifier({ isbn: null, issn: "1234", sku: "S" })).toBe("ISSN 1234");
    expect(productIdentifier({ isbn: "", issn: null, sku: "S" })).toBe("SKU S");
  });
});
