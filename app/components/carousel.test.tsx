import { describe, expect, it } from "vitest";
import { Carousel, carouselHint, carouselPosition } from "./carousel";
import { renderMarkup } from "./test-markup";

describe("Carousel", () => {
  it("says how many items there are, and describes the region with it", () => {
    const { html, text } = renderMarkup(
      <Carousel label="Novità">
        <p>Uno</p>
        <p>Due</p>
        <p>Tre</p>
        <p>Quattro</p>
      </Carousel>,
    );
    expect(text).toContain("4 elementi: scorri per vederli tutti");
    expect(carouselHint(4)).toBe("4 elementi: scorri per vederli tutti");
    const describedBy = /aria-describedby="([^"]+)"/.exec(html)?.[1];
    expect(describedBy).toBeTruthy();
    expect(html).toContain(`<p id="${describedBy}"`);
  });

  it("says nothing of a single item", () => {
    const { html, text } = renderMarkup(
      <Carousel label="Novità">
        <p>Uno</p>
      </Carousel>,
    );
    expect(text).toBe("Uno");
    expect(html).not.toContain("aria-describedby");
  });
});

describe("carouselPosition", () => {
  it("names the items in view after a move, one or a range", () => {
    expect(carouselPosition(3, 3, 10)).toBe("Elemento 3 di 10");
    expect(carouselPosition(4, 6, 10)).toBe("Elementi da 4 a 6 di 10");
  });
});
