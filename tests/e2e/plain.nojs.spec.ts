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
});
