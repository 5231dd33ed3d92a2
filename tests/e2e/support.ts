import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Page } from "@playwright/test";

export { LANDING_VARIANTS, SHORT_LANDING_VARIANTS } from "#shared/landing-variants.ts";
export { ACTIVATION_PROMPT_PATHS as ACTIVATION_PATHS } from "#shared/links.ts";

/**
 * No serious or critical accessibility violation on the page as it is now. axe runs inside the
 * page, so for the no-JavaScript project it checks the same address in a context where
 * scripts may run but the page's own scripts are blocked: the page exactly as served.
 */
export async function expectAccessible(page: Page) {
  if (test.info().project.use.javaScriptEnabled !== false) return check(page);
  const browser = page.context().browser()!;
  const context = await browser.newContext({ javaScriptEnabled: true, viewport: page.viewportSize() });
  try {
    const plain = await context.newPage();
    await plain.route(/\.js(\?|$)/, (route) => route.abort());
    await plain.goto(page.url());
    await check(plain);
  } finally {
    await context.close();
  }
}

async function check(page: Page) {
  const results = await new AxeBuilder({ page }).analyze();
  const blocking = results.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map(
      (v) =>
        `${v.id} (${v.impact}): ${v.help} — ${v.nodes
          .map((n) => n.target.join(" "))
          .slice(0, 3)
          .join(", ")}`,
    );
  expect(blocking, blocking.join("\n")).toEqual([]);
}

/** Types a code into 'ESPANDI IL LIBRO' (the dialog must be open) and confirms it. */
export async function activate(page: Page, code: string) {
  const dialog = page.getByRole("dialog", { name: "ESPANDI IL LIBRO" });
  await expect(dialog).toBeVisible();
  await dialog.getByLabel("Codice di attivazione").fill(code);
  if (test.info().project.use.javaScriptEnabled !== false) await expect(dialog.getByText("Codice valido")).toBeAttached();
  await dialog.getByRole("button", { name: "Conferma" }).click();
}

/** A product's card in the dashboard's 'I tuoi prodotti'. */
export function productCard(page: Page, name: string) {
  return page.getByRole("list", { name: "Prodotti", exact: true }).getByRole("listitem").filter({ hasText: name });
}

/** Activates a code from the dashboard's 'ESPANDI IL LIBRO' and waits for its product's card: the card. */
export async function activateFromDashboard(page: Page, { code, product }: { code: string; product: string }) {
  await page.goto("/dashboard/?show=activateProduct");
  await activate(page, code);
  const card = productCard(page, product);
  await expect(card).toBeVisible();
  return card;
}

/** The page fits the viewport: nothing forces horizontal scrolling. */
export async function expectNoHorizontalOverflow(page: Page) {
  const wider = await page.evaluate(() =>
    Array.from(document.querySelectorAll("body *"))
      .filter((el) => el.getBoundingClientRect().right > document.documentElement.clientWidth + 1)
      .filter((el) => !el.closest(".carousel")) // carousels scroll inside themselves
      .map((el) => `${el.tagName.toLowerCase()}.${String(el.className).slice(0, 50)}`)
      .slice(0, 5),
  );
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow, `${page.url()} is wider than the screen: ${wider.join(", ")}`).toBeLessThanOrEqual(0);
}

/** Italian euro amount as Intl prints it ("32,00 €", with a non-breaking space). */
export const euro = (amount: string) => new RegExp(`${amount.replace(".", "\\.")}\\s€`);

/**
 * Resolves once React has hydrated the page. The portal's scripts start after the first paint
 * (issue 30), so a link clicked at once is a full page load; a test that means the router's
 * client-side navigation, or a field typed into, waits for this first. React marks its root on
 * the document when it is created and clears `isDehydrated` when the hydration commits. Without
 * JavaScript there is nothing to wait for.
 */
export async function waitForHydration(page: Page) {
  if (test.info().project.use.javaScriptEnabled === false) return;
  await page.waitForFunction(() => {
    const key = Object.keys(document).find((name) => name.startsWith("__reactContainer$"));
    const root = key ? (document as unknown as Record<string, { stateNode?: ReactRoot }>)[key]?.stateNode : undefined;
    return root !== undefined && root.current.memoizedState?.isDehydrated === false;
  });
}

/** The part of React's root (internal, stable since React 18) that says whether it is hydrated. */
type ReactRoot = { current: { memoizedState?: { isDehydrated?: boolean } } };
