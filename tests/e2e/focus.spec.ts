// What someone on a keyboard sees of the focus, and of the fields, measured from the computed
// styles: WCAG 2.2 asks 3:1 of a focus indicator and of a field's border against what is beside
// them (1.4.11). Runs with and without JavaScript: the styles are the same, the pages may not be.
import { expect, test, type Locator, type Page } from "@playwright/test";
import { claimCustomer, signInOverHttp } from "./customers";
import { fixtures } from "./fixtures";
import { giveEachTestItsOwnAddress } from "./identity-support";
import { tabTo } from "./keyboard";

giveEachTestItsOwnAddress();

type Rgb = [number, number, number];

/** WCAG's relative luminance and contrast ratio. */
function luminance([r, g, b]: Rgb) {
  const linear = (c: number) => (c / 255 <= 0.04045 ? c / 255 / 12.92 : ((c / 255 + 0.055) / 1.055) ** 2.4);
  return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
}
function contrast(a: Rgb, b: Rgb) {
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (light + 0.05) / (dark + 0.05);
}
const hex = (rgb: Rgb) => `#${rgb.map((c) => c.toString(16).padStart(2, "0")).join("")}`;

/**
 * The focused element's ring (its outline, and the colours of its box-shadow, the second tone)
 * and its border, with the surface they sit on: the first opaque background around the element.
 * Colours go through a canvas, which turns any CSS colour (oklch included) into sRGB.
 */
function ringOf(target: Locator) {
  return target.evaluate((el) => {
    const context = document.createElement("canvas").getContext("2d", { willReadFrequently: true })!;
    const rgba = (color: string) => {
      context.clearRect(0, 0, 1, 1);
      context.fillStyle = color;
      context.fillRect(0, 0, 1, 1);
      return Array.from(context.getImageData(0, 0, 1, 1).data);
    };
    const rgb = (color: string) => rgba(color).slice(0, 3);
    let surface: number[] | null = null;
    for (let around = el.parentElement; around && !surface; around = around.parentElement) {
      const background = rgba(getComputedStyle(around).backgroundColor);
      if (background[3] === 255) surface = background.slice(0, 3);
    }
    const style = getComputedStyle(el);
    const shadowColours = style.boxShadow === "none" ? [] : (style.boxShadow.match(/[a-z]+\([^)]*\)/g) ?? []);
    return {
      focusVisible: el.matches(":focus-visible"),
      outline: { style: style.outlineStyle, width: parseFloat(style.outlineWidth), colour: rgb(style.outlineColor) },
      shadows: shadowColours.map(rgb),
      border: { width: parseFloat(style.borderTopWidth), colour: rgb(style.borderTopColor) },
      surface: surface ?? [255, 255, 255],
    };
  }) as Promise<{
    focusVisible: boolean;
    outline: { style: string; width: number; colour: Rgb };
    shadows: Rgb[];
    border: { width: number; colour: Rgb };
    surface: Rgb;
  }>;
}

/**
 * Reaches `target` with the keyboard and checks its ring on the surface named: the ring is two
 * tones that stand apart (3:1), and at least one of them stands at 3:1 against the surface.
 */
async function expectVisibleFocus(page: Page, target: Locator, surface: { name: string; hex: string }) {
  await tabTo(page, target, { max: 200 });
  const ring = await ringOf(target);
  expect(ring.focusVisible, `${surface.name}: the browser shows the focus`).toBe(true);
  expect(hex(ring.surface), `${surface.name}: the surface measured`).toBe(surface.hex);
  expect(ring.outline.style, `${surface.name}: an outline`).not.toBe("none");
  expect(ring.outline.width, `${surface.name}: outline width`).toBeGreaterThanOrEqual(2);
  const tones = [ring.outline.colour, ...ring.shadows];
  const best = Math.max(...tones.map((tone) => contrast(tone, ring.surface)));
  expect
    .soft(best, `${surface.name}: the ring's best tone (${tones.map(hex).join(", ")}) against ${hex(ring.surface)}`)
    .toBeGreaterThanOrEqual(3);
  for (const shadow of ring.shadows) {
    expect.soft(contrast(ring.outline.colour, shadow), `${surface.name}: the ring's two tones apart`).toBeGreaterThanOrEqual(3);
  }
  return ring;
}

const WHITE = { name: "white", hex: "#ffffff" };
const PAPER = { name: "the page background", hex: "#f7f5f0" };
const NAVY_HEADER = { name: "the dark header", hex: "#0b2545" };
const ORANGE_CARD = { name: "the orange promo box", hex: "#b45f06" };

test("the focus ring stands at 3:1 on the dark header and on the orange promo box", async ({ page }) => {
  // A customer with paid orders: their dashboard has the promo box of small coloured boxes
  // (read only here), whose fourth is the orange one.
  await signInOverHttp(page, fixtures().purchases.email);
  const header = page.getByRole("banner");
  await expectVisibleFocus(page, header.getByRole("searchbox", { name: "Cerca nel catalogo" }), NAVY_HEADER);
  const orangeBox = page.locator("li.bg-\\[\\#b45f06\\]").first();
  await expectVisibleFocus(page, orangeBox.getByRole("link"), ORANGE_CARD);
});

test("the focus ring stands at 3:1 on the page background and on white", async ({ page }) => {
  await signInOverHttp(page, claimCustomer("student"), "/profile/");
  const main = page.getByRole("main");
  await expectVisibleFocus(page, main.getByRole("link", { name: "Preferenze" }), PAPER);
  await expectVisibleFocus(page, main.getByLabel("Cognome"), WHITE);
  await expectVisibleFocus(page, main.getByRole("button", { name: "Salva" }), WHITE);
});

test("a field's border stands at 3:1 against the surface around it", async ({ page }) => {
  await signInOverHttp(page, claimCustomer("student"), "/profile/");
  for (const field of [page.getByRole("main").getByLabel("Cognome"), page.getByRole("banner").getByRole("searchbox")]) {
    const { border, surface } = await ringOf(field);
    expect(border.width).toBeGreaterThanOrEqual(1);
    expect(hex(surface)).toBe(WHITE.hex);
    expect(contrast(border.colour, surface), `border ${hex(border.colour)} on ${hex(surface)}`).toBeGreaterThanOrEqual(3);
  }
});

for (const { what, viewport } of [
  { what: "on a phone 320 px wide", viewport: { width: 320, height: 640 } },
  // A 1280 × 800 screen zoomed to 200 %: the page lays out in half as many CSS pixels.
  { what: "at 200 % zoom", viewport: { width: 640, height: 400 } },
]) {
  test.describe(what, () => {
    test.use({ viewport });

    test("the search panel opens from the keyboard whole inside the screen", async ({ page }) => {
      await page.goto("/edu/");
      const header = page.getByRole("banner");
      const toggle = header.locator("summary", { hasText: "Mostra la ricerca" });
      await tabTo(page, toggle);
      await page.keyboard.press("Enter");
      const field = header.locator("#ricerca-catalogo-mobile");
      await expect(field).toBeVisible();
      await tabTo(page, field, { max: 3 });
      for (const part of [field.locator("xpath=ancestor::div[contains(@class, 'disclosure-panel')]"), field]) {
        const box = (await part.boundingBox())!;
        expect(box.x, "left edge").toBeGreaterThanOrEqual(0);
        expect(box.x + box.width, "right edge").toBeLessThanOrEqual(viewport.width);
      }
    });
  });
}
