import { describe, expect, it } from "vitest";
import { ContactBoxItems } from "./contact-boxes";
import { renderMarkup } from "./test-markup";

const boxes = [
  {
    title: "Assistenza clienti",
    description: "Ti rispondiamo dal lunedì al venerdì.",
    url: "https://www.example/contattaci",
    cta: "Contattaci",
  },
  {
    title: "Redazione",
    description: "Risponde entro 30 giorni.",
    url: "mailto:redazione@novalex.example",
    cta: "Scrivi alla redazione",
  },
  { title: "Ufficio adozioni", description: "Copie saggio.", url: "/attivaprodotto/", cta: "Richiedi informazioni" },
  { title: "Vendite istituzionali", description: "Licenze.", url: "https://www.example/enti", cta: "Richiedi un'offerta" },
];

describe("ContactBoxItems", () => {
  it("shows each box with its title, description and link", () => {
    const { html, text } = renderMarkup(
      <ul>
        <ContactBoxItems boxes={boxes} />
      </ul>,
    );
    expect(html.match(/<li /g)).toHaveLength(4);
    expect(html.match(/<h3 /g)).toHaveLength(4);
    expect(text).toContain("Assistenza clienti Ti rispondiamo dal lunedì al venerdì. Contattaci : Assistenza clienti");
    expect(html).toMatch(/<a href="mailto:redazione@novalex.example"[^>]*>Scrivi alla redazione/);
    expect(html).toMatch(/<a class="link[^"]*" href="\/attivaprodotto\/"[^>]*>Richiedi informazioni/);
    expect(text).toContain("Richiedi un'offerta");
  });
});
