// ISBN-13 and ISSN with correct check digits, for the seeded catalogue.

/** Appends the ISBN-13 check digit to 12 digits: "978882881101" -> "9788828811013". */
function isbn13(first12: string): string {
  if (!/^\d{12}$/.test(first12)) throw new Error(`ISBN-13 needs 12 digits, got ${first12}`);
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += Number(first12[i]) * (i % 2 === 0 ? 1 : 3);
  return first12 + String((10 - (sum % 10)) % 10);
}

/** Appends the ISSN check digit to 7 digits and formats it: "2784101" -> "2784-1012". */
export function issn(first7: string): string {
  if (!/^\d{7}$/.test(first7)) throw new Error(`ISSN needs 7 digits, got ${first7}`);
  let sum = 0;
  for (let i = 0; i < 7; i++) sum += Number(first7[i]) * (8 - i);
  const check = (11 - (sum % 11)) % 11;
  return `${first7.slice(0, 4)}-${first7.slice(4)}${check === 10 ? "X" : String(check)}`;
}

/** Novalex Editore's (invented) ISBN prefix: 978-88-2881. */
const NOVALEX_ISBN_PREFIX = "978882881";

/** The Novalex ISBN of title number `n` (0-999). */
export function novalexIsbn(n: number): string {
  return isbn13(NOVALEX_ISBN_PREFIX + String(n).padStart(3, "0"));
}
