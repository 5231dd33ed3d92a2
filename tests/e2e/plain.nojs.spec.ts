import { expect, test } from "@playwright/test";

// Runs only in the "no-js" project: the page as served, before any script runs.
test.describe("without JavaScript", () => {
  test("carousels are plain scrollable lists with every card present", async ({ page }) => {
    await page.goto("/landingpage/landing/");
    const carousel = page.getByRole("region", { name: /pubblicazioni/i });
    await expect(carousel.getByRole("button")).toHaveCount(0);
    await expect(carousel.getByRole("article")).toHaveCount(4);
    expect(await carousel.locator("ul.carousel").evaluate((el) => getComputedStyle(el).scrollSnapType)).toContain("x");
  });

  test("on a phone a carousel shows that there are more cards: the next one peeks in, and a count", async ({ page }) => {
    await page.setViewportSize({ width: 375, height: 800 });
    await page.goto("/landingpage/landing/");
    const carousel = page.getByRole("region", { name: /pubblicazioni/i });
    const track = carousel.locator("ul.carousel");
    const edge = await track.evaluate((el) => el.getBoundingClientRect().right);
    const [first, second] = await carousel
      .getByRole("listitem")
      .evaluateAll((items) => items.slice(0, 2).map((item) => item.getBoundingClientRect()));
    expect(first!.right).toBeLessThan(edge);
    // At least a finger's width of the second card is in view.
    expect(edge - second!.left).toBeGreaterThanOrEqual(16);
    await expect(carousel.getByText("4 elementi: scorri per vederli tutti")).toBeVisible();
    await expect(carousel.and(page.locator("[aria-roledescription=carosello]"))).toHaveAccessibleDescription(
      "4 elementi: scorri per vederli tutti",
    );
  });
});
