// Dates as Italian customers read them, on Rome's clocks: the same strings as Intl's "it-IT" formats
// in Europe/Rome (format.test.ts compares them), written out by hand: a browser's first Intl
// formatter costs 50 to 100 ms while the page hydrates (shared/rome-clock.ts says why). Money is
// in euro.ts.
import { romeWallClock } from "./rome-clock.ts";

const MONTHS = [
  "gennaio",
  "febbraio",
  "marzo",
  "aprile",
  "maggio",
  "giugno",
  "luglio",
  "agosto",
  "settembre",
  "ottobre",
  "novembre",
  "dicembre",
] as const;

const twoDigits = (n: number) => String(n).padStart(2, "0");

/** An instant's fields on Rome's clocks; an invalid date throws, as Intl does. */
function inRome(date: Date | string | number): Date {
  const instant = new Date(date);
  if (Number.isNaN(instant.getTime())) throw new RangeError(`Invalid time value: ${String(date)}`);
  return romeWallClock(instant);
}

/** → "12/03/2026" */
export function formatDate(date: Date | string | number): string {
  const rome = inRome(date);
  return `${twoDigits(rome.getUTCDate())}/${twoDigits(rome.getUTCMonth() + 1)}/${rome.getUTCFullYear()}`;
}

const longDate = (rome: Date) => `${rome.getUTCDate()} ${MONTHS[rome.getUTCMonth()]} ${rome.getUTCFullYear()}`;

/** → "12 marzo 2026" */
export function formatLongDate(date: Date | string | number): string {
  return longDate(inRome(date));
}

/** → "12 marzo 2026 alle 10:15" (the time in Rome). */
export function formatLongDateTime(date: Date | string | number): string {
  const rome = inRome(date);
  return `${longDate(rome)} alle ${twoDigits(rome.getUTCHours())}:${twoDigits(rome.getUTCMinutes())}`;
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
