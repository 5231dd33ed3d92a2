// Moving through a page with the keyboard only, as a customer without a pointer does.
import { expect, type Locator, type Page } from "@playwright/test";

/** Whether `locator` has the focus. */
const isFocused = (locator: Locator) => locator.evaluate((element) => element === document.activeElement);

/** Presses Tab (or Shift+Tab) until `target` has the focus; fails after `max` presses. */
export async function tabTo(page: Page, target: Locator, max = 60, key: "Tab" | "Shift+Tab" = "Tab") {
  for (let presses = 0; presses < max; presses++) {
    if (await isFocused(target)) return;
    await page.keyboard.press(key);
  }
  await expect(target).toBeFocused({ timeout: 1 });
}
