// Customers made in advance by prepare-server.ts, one per test, so that tests which only need a
// customer do not register through the forms (the registration, first access and sign-in
// journeys, and the tests of those forms, still do). A test claims a customer of the pool of the
// portal it runs against: the claim is a file created exclusively, so no two tests of any worker
// or project get the same customer, whatever order they run in.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { expect, test, type APIResponse, type Page } from "@playwright/test";
import { CLAIMS_FOLDER, E2E_PASSWORD, fixtures, type PoolKind } from "./fixtures";

/** The data folder of the portal this test's project runs against (the Stripe projects have their own). */
function serverDataDir() {
  return test.info().project.name.startsWith("stripe") ? process.env.E2E_STRIPE_DATA_DIR! : process.env.E2E_DATA_DIR!;
}

/** A customer of the pool no other test has had: its e-mail (the password is E2E_PASSWORD). */
export function claimCustomer(kind: PoolKind): string {
  const dataDir = serverDataDir();
  const claims = path.join(dataDir, CLAIMS_FOLDER);
  mkdirSync(claims, { recursive: true });
  for (const email of fixtures(dataDir).pool[kind]) {
    try {
      writeFileSync(path.join(claims, email), test.info().titlePath.join(" › "), { flag: "wx" });
      return email;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
  }
  throw new Error(`every '${kind}' customer of the pool is taken: make the pool bigger (tests/e2e/prepare-server.ts)`);
}

/**
 * The portal's own sign-in, without drawing its pages: /login/ redirects to the identity
 * provider's login screen, whose form is posted with the e-mail and password, and the redirects
 * end in a portal session. The page's request context shares the browser's cookies (and the
 * test's client address), so the page is then signed in; it opens `to`.
 */
export async function signInOverHttp(page: Page, email: string, to = "/dashboard/") {
  const start = await page.request.get(`/login/?redirect=${encodeURIComponent(to)}`, { maxRedirects: 0 });
  const loginScreen = await followRedirects(page, start, (next) => /^\/accedi\/[^/]+$/.test(next.pathname));
  const posted = await page.request.post(loginScreen.href, { form: { email, password: E2E_PASSWORD }, maxRedirects: 0 });
  await followRedirects(page, posted, (next) => next.pathname === to);
  await page.goto(to);
  await expect(page).toHaveURL(new RegExp(`${to}$`));
}

/** Follows redirects (their cookies land in the browser's) up to the first address `stop` accepts, not requested. */
async function followRedirects(page: Page, response: APIResponse, stop: (next: URL) => boolean): Promise<URL> {
  for (let hops = 0; hops < 10; hops++) {
    const location = response.headers()["location"];
    if (response.status() < 300 || response.status() >= 400 || !location) {
      throw new Error(`sign-in: ${response.url()} answered ${response.status()} where a redirect was expected`);
    }
    const next = new URL(location, response.url());
    if (stop(next)) return next;
    response = await page.request.get(next.href, { maxRedirects: 0 });
  }
  throw new Error(`sign-in: too many redirects after ${response.url()}`);
}

/** A customer of the pool whose first access is done (a student, or a legal professional), signed in, on the dashboard. */
export async function signedInCustomer(page: Page, kind: "student" | "professional" = "student"): Promise<string> {
  const email = claimCustomer(kind);
  await signInOverHttp(page, email);
  return email;
}
