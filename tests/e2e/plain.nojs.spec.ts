import { expect, test } from "@playwright/test";
import { signedInCustomer } from "./customers";
import { giveEachTestItsOwnAddress } from "./identity-support";

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

  test.describe("a refused activation code", () => {
    giveEachTestItsOwnAddress();

    // The modal's form posts to /prodotti/attiva, whose page is the reply (with JavaScript the
    // modal checks the code itself and stays on the dashboard).
    test("is said first: the title, the error summary after the heading, its link to the field", async ({ page }) => {
      await signedInCustomer(page, "student");
      await page.goto("/dashboard/?show=activateProduct");
      const dialog = page.getByRole("dialog", { name: "ESPANDI IL LIBRO" });
      await dialog.getByLabel("Codice di attivazione").fill("NON-UN-CODICE-VERO");
      await dialog.getByRole("button", { name: "Conferma" }).click();
      await expect(page).toHaveURL(/\/prodotti\/attiva$/);
      await expect(page).toHaveTitle(/^Errore: ESPANDI IL LIBRO · /);
      const main = page.getByRole("main");
      const summary = main.locator("[data-error-summary]");
      // Before the form: read first.
      expect(
        await summary.evaluate((el) =>
          Boolean(el.compareDocumentPosition(document.querySelector("main form")!) & Node.DOCUMENT_POSITION_FOLLOWING),
        ),
      ).toBe(true);
      const link = summary.getByRole("link", { name: "Codice non valido" });
      await link.focus();
      await page.keyboard.press("Enter");
      await expect(main.getByLabel("Codice di attivazione")).toBeFocused();
    });
  });
});
