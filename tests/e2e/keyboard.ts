// Moving through a page with the keyboard only, as a customer without a pointer does.
import { expect, type Locator, type Page } from "@playwright/test";

/** Whether `locator` has the focus. */
const isFocused = (locator: Locator) => locator.evaluate((element) => element === document.activeElement);

/**
 * Presses Tab (or Shift+Tab) until `target` has the focus, as a customer without a pointer reaches
 * it; how many presses that took (0 when it had the focus already). Fails after `max` presses.
 */
export async function tabTo(
  page: Page,
  target: Locator,
  { key = "Tab", max = 120 }: { key?: "Tab" | "Shift+Tab"; max?: number } = {},
): Promise<number> {
  for (let presses = 0; presses < max; presses++) {
    if (await isFocused(target)) return presses;
    await page.keyboard.press(key);
  }
  await expect(target).toBeFocused({ timeout: 1 });
  return max;
}

/**
 * Tab and Shift+Tab, more times than the dialog has controls, never reach the page behind it: past
 * its last control the focus leaves the page for the browser's own controls (document.activeElement
 * is the body then), and the next press brings it back into the dialog.
 */
export async function expectTabToStayIn(page: Page, dialog: Locator) {
  for (const key of ["Tab", "Shift+Tab"]) {
    const visited: string[] = [];
    for (let presses = 0; presses < 8; presses++) {
      await page.keyboard.press(key);
      visited.push(
        await dialog.evaluate((element) =>
          element.contains(document.activeElement) ? "dialog" : document.activeElement === document.body ? "browser" : "page",
        ),
      );
    }
    expect(visited, key).not.toContain("page");
    expect(visited.join(" "), key).toContain("browser dialog");
  }
}
