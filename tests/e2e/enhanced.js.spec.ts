import { expect, test } from "@playwright/test";

// Runs only in the "js" project: behaviour that exists once JavaScript has loaded.
test.describe("with JavaScript", () => {
  test("carousel buttons move one card at a time and wrap around", async ({ page }) => {
    await page.setViewportSize({ width: 375, height: 800 });
    await page.goto("/landingpage/landing/");
    const carousel = page.getByRole("region", { name: /pubblicazioni/i });
    const track = carousel.locator("ul.carousel");
    const next = carousel.getByRole("button", { name: "Successivo" });
    await expect(next).toBeVisible();
    await next.click();
    await expect.poll(() => track.evaluate((el) => el.scrollLeft)).toBeGreaterThan(100);
    // Four cards at one per view: three more steps reach the end, one more wraps to the start.
    for (let i = 0; i < 3; i++) {
      await page.waitForTimeout(600);
      await next.click();
    }
    await page.waitForTimeout(600);
    await expect.poll(() => track.evaluate((el) => el.scrollLeft)).toBe(0);
  });

  test("client-side navigation between public pages works", async ({ page }) => {
    await page.goto("/help-center/");
    await page.getByRole("contentinfo").getByRole("link", { name: "Offerta EDU" }).click();
    await expect(page).toHaveURL(/\/edu\/$/);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Studia il diritto con EDU");
  });
});
