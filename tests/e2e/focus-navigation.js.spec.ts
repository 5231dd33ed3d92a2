// With JavaScript the router navigates on the client: focus goes to the new page's heading, as a
// full page load would start there (issue 30); a reply to a form keeps its own focus.
import { expect, test } from "@playwright/test";
import { waitForHydration } from "./support";

test("after a client-side navigation by keyboard, focus is on the new page's heading", async ({ page }) => {
  await page.goto("/pagina-che-non-esiste/");
  // The router takes links over once the page is hydrated (its scripts start after the first paint).
  await waitForHydration(page);
  const link = page.getByRole("main").getByRole("link", { name: "Offerta EDU" });
  await link.focus();
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/\/edu\/$/);
  const heading = page.getByRole("main").getByRole("heading", { level: 1 });
  await expect(heading).toBeFocused();
  // Focusable by script only: Tab goes on to the page's first control after it.
  await expect(heading).toHaveAttribute("tabindex", "-1");
});
