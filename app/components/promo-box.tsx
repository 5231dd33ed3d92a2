import type { PromoBox as PromoBoxData, PromoSmallBox } from "#server/library/types.ts";
import { SiteLink } from "./site-link";

/** Spec §9: a promo box shows up to 20 small boxes. */
const PROMO_SMALL_BOX_LIMIT = 20;

/** The call to action of a banner stored without one. */
const DEFAULT_BANNER_CTA = "Scopri";

/**
 * The colours small boxes are painted with. The Content-Security-Policy allows no inline styles
 * (style-src 'self' plus a nonce, so style="" attributes are refused), hence a fixed set of
 * classes; each keeps white text at a contrast of at least 4.5:1. The hex values are the seeded
 * palette (server/db/seed/dashboard.ts); the class strings are written out whole so that Tailwind
 * finds them.
 */
export const PROMO_SWATCHES: readonly { hex: string; className: string }[] = [
  { hex: "#0b5394", className: "bg-[#0b5394]" },
  { hex: "#8e1b3a", className: "bg-[#8e1b3a]" },
  { hex: "#1b6e4b", className: "bg-[#1b6e4b]" },
  { hex: "#b45f06", className: "bg-[#b45f06]" },
  { hex: "#5b3f8c", className: "bg-[#5b3f8c]" },
  { hex: "#2f4f6f", className: "bg-[#2f4f6f]" },
];

function parseHex(color: string): [number, number, number] | null {
  const short = /^#([0-9a-f])([0-9a-f])([0-9a-f])$/i.exec(color.trim());
  const long = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(color.trim());
  const parts = long ? [long[1], long[2], long[3]] : short ? [short[1], short[2], short[3]].map((d) => `${d}${d}`) : null;
  if (!parts) return null;
  return parts.map((p) => parseInt(p ?? "0", 16)) as [number, number, number];
}

/**
 * The swatch class for a stored colour: its own swatch, or for a colour outside the palette the
 * nearest one (so an editor's hue survives, and the text stays readable); unreadable values get
 * the first swatch.
 */
export function swatchClass(color: string): string {
  const rgb = parseHex(color);
  const first = PROMO_SWATCHES[0]?.className ?? "bg-brand";
  if (!rgb) return first;
  let best = first;
  let bestDistance = Infinity;
  for (const swatch of PROMO_SWATCHES) {
    const other = parseHex(swatch.hex);
    if (!other) continue;
    const distance = (rgb[0] - other[0]) ** 2 + (rgb[1] - other[1]) ** 2 + (rgb[2] - other[2]) ** 2;
    if (distance < bestDistance) {
      best = swatch.className;
      bestDistance = distance;
    }
  }
  return best;
}

function SmallBox({ box }: { box: PromoSmallBox }) {
  return (
    <li className={`flex flex-col rounded-md p-4 text-white ${swatchClass(box.color)}`}>
      <p className="font-semibold leading-snug">{box.title}</p>
      <SiteLink href={box.url} className="mt-auto pt-3 text-sm font-semibold underline underline-offset-2 hover:no-underline">
        {box.cta}
        <span className="sr-only">: {box.title}</span>
      </SiteLink>
    </li>
  );
}

/**
 * A promotional area of the dashboard (spec §3): a banner with one call to action, or small boxes.
 * Its heading's id comes from the area code, unique on a page: each box is rendered on its own
 * (see lib/dashboard-boxes.server), so React's useId would give every box the same id.
 */
export function PromoBox({ box, headingLevel = 2 }: { box: PromoBoxData; headingLevel?: 2 | 3 }) {
  const id = `promo-${box.areaCode}`;
  const Heading = `h${headingLevel}` as const;
  const smallBoxes = box.smallBoxes.slice(0, PROMO_SMALL_BOX_LIMIT);
  return (
    <section aria-labelledby={id} className="card flex w-full flex-col p-6" data-area={box.areaCode}>
      <Heading id={id} className="font-serif text-xl font-bold text-brand">
        {box.titleIsImage && box.titleImage ? (
          <img src={box.titleImage} alt={box.title} className="h-auto max-h-16 w-auto" />
        ) : (
          box.title
        )}
      </Heading>
      {box.subtitle && <p className="mt-2 text-ink/80">{box.subtitle}</p>}
      {box.isBanner && (box.bannerImage || box.bannerUrl) && (
        <div className="mt-4 flex flex-col items-start gap-4">
          {/* Decorative: the title says what the banner is about. */}
          {box.bannerImage && <img src={box.bannerImage} alt="" className="h-auto w-full rounded-md" />}
          {box.bannerUrl && (
            <SiteLink href={box.bannerUrl} className="button-primary">
              {box.bannerCta ?? DEFAULT_BANNER_CTA}
              <span className="sr-only">: {box.title}</span>
            </SiteLink>
          )}
        </div>
      )}
      {smallBoxes.length > 0 && (
        <ul className="mt-4 grid gap-3 sm:grid-cols-2">
          {smallBoxes.map((small, i) => (
            <SmallBox key={i} box={small} />
          ))}
        </ul>
      )}
    </section>
  );
}
