import { describe, expect, it } from "vitest";
import { EmailAddress, emailLinePieces } from "./email-address";
import { renderMarkup } from "./test-markup";

describe("EmailAddress", () => {
  it("may wrap before an '@' or a dot, and keeps a short last part with the one before it", () => {
    expect(emailLinePieces("paola.neri@studio-legale.example.it")).toEqual(["paola", ".neri", "@studio-legale", ".example.it"]);
    expect(emailLinePieces("info@novalex.com")).toEqual(["info", "@novalex.com"]);
    expect(emailLinePieces("a@b.museum")).toEqual(["a", "@b", ".museum"]);
    expect(emailLinePieces("nessuna-chiocciola")).toEqual(["nessuna-chiocciola"]);
  });

  it("marks the places with <wbr>, which adds no text", () => {
    const { html, text } = renderMarkup(<EmailAddress address="maria.rossi@pec.example.it" />);
    expect(html).toBe('<span class="wrap-anywhere">maria<wbr/>.rossi<wbr/>@pec<wbr/>.example.it</span>');
    expect(text.replace(/\s/g, "")).toBe("maria.rossi@pec.example.it");
  });
});
