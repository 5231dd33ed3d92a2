import { expect, test, type Page } from "@playwright/test";
import { E2E_PASSWORD, fixtures } from "./fixtures";
import { claimCustomer, signInOverHttp } from "./customers";
import { giveEachTestItsOwnAddress, signIn } from "./identity-support";
import { tabTo } from "./keyboard";
import { waitForHydration } from "./support";

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

  test("a carousel's move is announced: which card is now in view", async ({ page }) => {
    await page.setViewportSize({ width: 375, height: 800 });
    for (const [button, position] of [
      ["Successivo", "Elemento 2 di 4"],
      // Before the first comes the last.
      ["Precedente", "Elemento 4 di 4"],
    ] as const) {
      await page.goto("/landingpage/landing/");
      const carousel = page.getByRole("region", { name: /pubblicazioni/i });
      const live = carousel.locator("[aria-live=polite]");
      await expect(live).toHaveText("");
      await carousel.getByRole("button", { name: button }).focus();
      await page.keyboard.press("Enter");
      await expect(live).toHaveText(position);
    }
  });

  test("client-side navigation between public pages works", async ({ page }) => {
    await page.goto("/help-center/");
    await waitForHydration(page);
    // The footer is prerendered HTML (lib/prerendered.tsx): its links navigate without a reload.
    await page.evaluate(() => Object.assign(window, { stillTheSameDocument: true }));
    await page.getByRole("contentinfo").getByRole("link", { name: "Offerta EDU" }).click();
    await expect(page).toHaveURL(/\/edu\/$/);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Studia il diritto con EDU");
    expect(await page.evaluate(() => "stillTheSameDocument" in window)).toBe(true);
  });
});

test.describe("the user menu", () => {
  giveEachTestItsOwnAddress();

  /** Milliseconds on the page's clock (page.evaluate runs even while the portal's scripts wait). */
  const pageNow = (page: Page) => page.evaluate(() => performance.now());
  /**
   * When the menu closes, on the page's clock: noted by the page itself, since polling for it
   * from here would add up to a second of its own.
   */
  const closedAt = (page: Page) =>
    page.locator(".user-menu").evaluate(
      (details) =>
        new Promise<number>((resolve) => {
          if (!details.hasAttribute("open")) return resolve(performance.now());
          new MutationObserver((_, observer) => {
            if (details.hasAttribute("open")) return;
            observer.disconnect();
            resolve(performance.now());
          }).observe(details, { attributes: true, attributeFilter: ["open"] });
        }),
    );

  test("opened before the scripts have loaded, closes 3 s after it opened", async ({ page }) => {
    await signIn(page, fixtures().professional.email, E2E_PASSWORD, "/login/?redirect=/landingpage/landing/");
    await expect(page).toHaveURL(/\/landingpage\/landing\/$/);

    // The next load of the page holds its scripts back until the menu is open.
    let release!: () => void;
    const scriptsMayLoad = new Promise<void>((resolve) => (release = resolve));
    await page.route(/\.js(\?|$)/, async (route) => {
      await scriptsMayLoad;
      await route.continue();
    });
    await page.goto("/landingpage/landing/", { waitUntil: "commit" });
    const summary = page.getByRole("banner").locator("summary[aria-label='Menu utente']");
    await summary.click();
    const openedAt = await pageNow(page);
    // The pointer leaves it (over it, or with the keyboard's focus in it, it would stay open).
    await page.mouse.move(5, 400);
    const menu = page.getByRole("navigation", { name: "Menu utente" });
    await expect(menu).toBeVisible();
    release();

    // Hydrated: the carousel's buttons exist only then.
    await expect(page.getByRole("button", { name: "Successivo" }).first()).toBeVisible();
    const hydratedAt = await pageNow(page);
    const closedAfter = (await closedAt(page)) - openedAt;
    await expect(menu).toBeHidden();
    // Never before its 3 s; then as soon as the scripts can close it (at once when they came later).
    // "As soon as" allows 3 s: on a busy two-core machine the page's timer itself fires late.
    expect(closedAfter).toBeGreaterThanOrEqual(2900);
    expect(closedAfter).toBeLessThan(Math.max(3000, hydratedAt - openedAt) + 3000);
  });

  test("opened after the scripts have loaded, closes after 3 s", async ({ page }) => {
    // The page's timers run on Playwright's clock, paused before the menu opens: the check does
    // not depend on how fast this machine is.
    await page.clock.install();
    await signIn(page, fixtures().professional.email, E2E_PASSWORD, "/login/?redirect=/landingpage/landing/");
    await expect(page.getByRole("button", { name: "Successivo" }).first()).toBeVisible();
    // A little ahead of the page's time: it goes on while this call travels.
    await page.clock.pauseAt(await page.evaluate(() => Date.now() + 250));
    await page.getByRole("banner").locator("summary[aria-label='Menu utente']").click();
    const menu = page.getByRole("navigation", { name: "Menu utente" });
    await expect(menu).toBeVisible();
    // While the pointer is on it, it stays open; 3 s after the pointer left, it closes.
    await page.clock.runFor(5000);
    await expect(menu).toBeVisible();
    await page.mouse.move(5, 400);
    await page.clock.runFor(2900);
    await expect(menu).toBeVisible();
    await page.clock.runFor(200);
    await expect(menu).toBeHidden();
  });

  test("stays open while someone Tabs slowly through it, to 'Esci'; Escape closes it and gives the focus back", async ({
    page,
  }) => {
    await page.clock.install();
    // A page whose menu lists every account page (seven items).
    await signInOverHttp(page, claimCustomer("student"), "/landingpage/landing/");
    // Hydrated: the carousel's buttons exist only then.
    await expect(page.getByRole("button", { name: "Successivo" }).first()).toBeVisible();
    await page.clock.pauseAt(await page.evaluate(() => Date.now() + 250));

    const summary = page.getByRole("banner").locator("summary[aria-label='Menu utente']");
    await tabTo(page, summary);
    await page.keyboard.press("Enter");
    const menu = page.getByRole("navigation", { name: "Menu utente" });
    const items = menu.getByRole("link");
    await expect(items).toHaveCount(7);
    for (let i = 0; i < 7; i++) {
      // Well beyond the 3 s the menu waits for a pointer that left it.
      await page.clock.runFor(4000);
      await page.keyboard.press("Tab");
      await expect(items.nth(i)).toBeFocused();
      await expect(items.nth(i)).toBeVisible();
    }
    await expect(page.locator(":focus")).toHaveText("Esci");

    await page.keyboard.press("Escape");
    await expect(menu).toBeHidden();
    await expect(summary).toBeFocused();
  });
});
