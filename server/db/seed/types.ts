// Shared types and small helpers of the demo seed.

/** The publisher's sites the seeded links point to (Config["links"]). */
export type SeedLinks = {
  mainSite: string;
  shop: string;
  coursePlatform: string;
  eduPlatform: string;
};

export type ProductTypeCode = "ebook" | "paper_flex" | "paper_hard" | "corso" | "rivista" | "abbonamento";

/**
 * A publication date: a fixed calendar day ("2025-09-08") or a number of days from the moment
 * the seed runs (-2 = two days ago, 12 = in twelve days), so that the 'Novità' badge always
 * shows on a few products.
 */
export type DateSpec = string | number;

const DAY_MS = 86_400_000;

export function resolveDate(spec: DateSpec, now: Date): Date {
  if (typeof spec === "number") return new Date(now.getTime() + spec * DAY_MS);
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(spec);
  if (!match) throw new Error(`Invalid seed date: ${spec}`);
  // 09:00 UTC, i.e. the morning in Italy, so the calendar day is the same in both zones.
  return new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]), 9));
}

/** Lower-case ASCII slug for URLs ("Diritto e fisco" -> "diritto-e-fisco"). */
export function slugify(text: string): string {
  return text
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
}
