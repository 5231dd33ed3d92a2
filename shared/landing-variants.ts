/** Landing page variants, served under /landingpage/<variant> (spec §2). */
export const LANDING_VARIANTS = [
  "landing",
  "edu",
  "universita",
  "studenti",
  "docenti",
  "professionali",
  "enti-biblioteche",
  "biblioteca-digitale",
] as const;
export type LandingVariant = (typeof LANDING_VARIANTS)[number];

/** Variants also served at the top level, e.g. /universita. (/edu/ is the EDU offer page.) */
export type ShortLandingVariant = Exclude<LandingVariant, "landing" | "edu">;
export const SHORT_LANDING_VARIANTS = LANDING_VARIANTS.filter((v): v is ShortLandingVariant => v !== "landing" && v !== "edu");

export function isLandingVariant(value: string | undefined): value is LandingVariant {
  return (LANDING_VARIANTS as readonly string[]).includes(value ?? "");
}
