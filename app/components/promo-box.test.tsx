import { describe, expect, it } from "vitest";
import type { PromoBox as PromoBoxData } from "#server/library/types.ts";
import { PROMO_SWATCHES, PromoBox, swatchClass } from "./promo-box";
import { renderMarkup } from "./test-markup";

function box(overrides: Partial<PromoBoxData> = {}): PromoBoxData {
  return {
    areaCode: "dashboard_studenti_left",
    title: "Preparati agli esami",
    subtitle: "Manuali, compendi e strumenti per ogni materia",
    titleIsImage: false,
    titleImage: null,
    isBanner: false,
    bannerImage: null,
    bannerUrl: null,
    bannerCta: null,
    smallBoxes: [],
    ...overrides,
  };
}

/** WCAG relative luminance of a #rrggbb colour. */
function luminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

describe("swatchClass", () => {
  it("keeps white text readable on every swatch (4.5:1)", () => {
    for (const swatch of PROMO_SWATCHES) {
      expect(1.05 / (luminance(swatch.hex) + 0.05)).toBeGreaterThanOrEqual(4.5);
    }
  });

  it("covers the seeded palette exactly", () => {
    for (const hex of ["#0b5394", "#8e1b3a", "#1b6e4b", "#b45f06", "#5b3f8c", "#2f4f6f"]) {
      expect(swatchClass(hex)).toBe(`bg-[${hex}]`);
      expect(swatchClass(hex.toUpperCase())).toBe(`bg-[${hex}]`);
    }
  });

  it("gives a colour outside the palette the nearest swatch", () => {
    expect(swatchClass("#a00000")).toBe("bg-[#8e1b3a]");
    expect(swatchClass("#00aa55")).toBe("bg-[#1b6e4b]");
    expect(swatchClass("#f80")).toBe("bg-[#b45f06]");
  });

  it("falls back to the first swatch for values that are not colours", () => {
    expect(swatchClass("")).toBe("bg-[#0b5394]");
    expect(swatchClass("red")).toBe("bg-[#0b5394]");
    expect(swatchClass("#12345")).toBe("bg-[#0b5394]");
  });
});

describe("PromoBox", () => {
  it("names its region by the title and shows the subtitle", () => {
    const { html, text } = renderMarkup(<PromoBox box={box()} />);
    const id = /<section aria-labelledby="([^"]+)"/.exec(html)?.[1];
    expect(id).toBeTruthy();
    expect(html).toContain(`<h2 id="${id}"`);
    expect(text).toBe("Preparati agli esami Manuali, compendi e strumenti per ogni materia");
  });

  it("shows the title as an image when asked, with the title as its text alternative", () => {
    const { html } = renderMarkup(<PromoBox box={box({ titleIsImage: true, titleImage: "/media/promo/edu.svg" })} />);
    expect(html).toMatch(/<h2[^>]*><img src="\/media\/promo\/edu.svg" alt="Preparati agli esami"/);
  });

  it("keeps the text title when the image is missing", () => {
    const { html } = renderMarkup(<PromoBox box={box({ titleIsImage: true, titleImage: null })} />);
    expect(html).toMatch(/<h2[^>]*>Preparati agli esami<\/h2>/);
  });

  it("shows a banner with its image and call to action; internal and external links", () => {
    const internal = renderMarkup(
      <PromoBox box={box({ isBanner: true, bannerImage: "/media/b.svg", bannerUrl: "/edu/", bannerCta: "Scopri EDU" })} />,
    );
    expect(internal.html).toContain('<img src="/media/b.svg" alt=""');
    expect(internal.html).toMatch(
      /<a class="button-primary" href="\/edu\/"[^>]*>Scopri EDU<span class="sr-only">: Preparati agli esami<\/span><\/a>/,
    );

    const external = renderMarkup(<PromoBox box={box({ isBanner: true, bannerUrl: "https://edu.example", bannerCta: null })} />);
    expect(external.html).toMatch(/<a href="https:\/\/edu.example" class="button-primary">Scopri</);
  });

  it("ignores banner fields when the box is not a banner", () => {
    const { html } = renderMarkup(<PromoBox box={box({ isBanner: false, bannerUrl: "/edu/", bannerCta: "Scopri EDU" })} />);
    expect(html).not.toContain("<a ");
  });

  it("shows the small boxes in their colours, at most 20", () => {
    const smallBoxes = Array.from({ length: 23 }, (_, i) => ({
      title: `Box ${i + 1}`,
      url: `https://shop.example/${i + 1}`,
      cta: "Scopri",
      color: i % 2 ? "#1b6e4b" : "#8e1b3a",
    }));
    const { html, text } = renderMarkup(<PromoBox box={box({ smallBoxes })} />);
    expect(html.match(/<li /g)).toHaveLength(20);
    expect(text).toContain("Box 20 Scopri : Box 20");
    expect(text).not.toContain("Box 21");
    expect(html).toMatch(/<li class="[^"]*bg-\[#8e1b3a\]"><p[^>]*>Box 1<\/p><a href="https:\/\/shop.example\/1"/);
    expect(html).toMatch(/<li class="[^"]*bg-\[#1b6e4b\]"><p[^>]*>Box 2<\/p>/);
    expect(html).not.toContain("style=");
  });
});
