// Italian formatting of money and dates (Europe/Rome).

const euro = new Intl.NumberFormat("it-IT", { style: "currency", currency: "EUR" });
const shortDate = new Intl.DateTimeFormat("it-IT", {
  day: "2-digit",
  month: "2-digit",
  year: "numeric",
  timeZone: "Europe/Rome",
});
const longDate = new Intl.DateTimeFormat("it-IT", { day: "numeric", month: "long", year: "numeric", timeZone: "Europe/Rome" });
const time = new Intl.DateTimeFormat("it-IT", { hour: "2-digit", minute: "2-digit", timeZone: "Europe/Rome" });

/** Amounts already formatted: Intl's formatting costs a few microseconds each, and a page shows the same few prices. */
const formattedEuro = new Map<number, string>();
const FORMATTED_EURO_KEPT = 500;

/** 3200 → "32,00 €" */
export function formatEuro(cents: number): string {
  let text = formattedEuro.get(cents);
  if (text === undefined) {
    if (formattedEuro.size >= FORMATTED_EURO_KEPT) formattedEuro.clear();
    formattedEuro.set(cents, (text = euro.format(cents / 100)));
  }
  return text;
}

/** → "12/03/2026" */
export function formatDate(date: Date | string | number): string {
  return shortDate.format(new Date(date));
}

/** → "12 marzo 2026" */
export function formatLongDate(date: Date | string | number): string {
  return longDate.format(new Date(date));
}

/** → "12 marzo 2026 alle 10:15" (the time in Rome). */
export function formatLongDateTime(date: Date | string | number): string {
  const at = new Date(date);
  return `${longDate.format(at)} alle ${time.format(at)}`;
}

/**
 * A date after its article or preposition, elided before a vowel sound as Italian writes it:
 * ("il", "12/02/2027") → "il 12/02/2027", ("il", "11/02/2027") → "l'11/02/2027", ("al", "8 agosto
 * 2026") → "all'8 agosto 2026", ("del", "11 marzo 2026") → "dell'11 marzo 2026".
 */
export function withArticle(article: "il" | "al" | "dal" | "del", date: string): string {
  if (!/^(0?8|11)\b/.test(date)) return `${article} ${date}`;
  return { il: "l'", al: "all'", dal: "dall'", del: "dell'" }[article] + date;
}
