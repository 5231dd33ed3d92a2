// What the text fields of an e-invoice (FatturaPA) can hold: the schema's String…LatinType strings
// take Latin-1 characters only, each field up to its length. The checkout refuses the buyer's data
// that does not fit (shared/checkout-rules.server.ts), so the file says what the customer typed;
// the writer (server/invoices/fatturapa.ts) makes typography plain the same way.

/** The schema's lengths of the buyer's fields (Indirizzo, Comune, Nome, Cognome, Denominazione). */
export const FATTURAPA_LIMITS = { street: 60, city: 60, firstname: 60, lastname: 60, name: 80 } as const;

/** Characters typed in names and titles that Latin-1 has no place for, and what they become. */
const TYPOGRAPHIC: Readonly<Record<string, string>> = {
  "\u2018": "'",
  "\u2019": "'",
  "\u201C": '"',
  "\u201D": '"',
  "\u2013": "-",
  "\u2014": "-",
  "\u2026": "...",
  "\u20AC": "EUR",
  "\u00A0": " ",
};

/** The text with typographic quotes, dashes, ellipsis, euro sign and non-breaking spaces made plain. */
export function plainTypography(text: string): string {
  let out = "";
  for (const ch of text.normalize("NFC")) out += TYPOGRAPHIC[ch] ?? ch;
  return out;
}

/** The characters of `text` an e-invoice cannot hold (outside Latin-1 once typography is plain), each once. */
export function charactersOutsideFatturaPa(text: string): string[] {
  return [...new Set([...plainTypography(text)].filter((ch) => ch.codePointAt(0)! > 0xff))];
}
