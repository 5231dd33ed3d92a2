// The account console in the browser, with and without JavaScript: 'Dove hai effettuato l'accesso'
// lists this browser and a phone signed in elsewhere, 'Esci da questo dispositivo' signs the phone
// out for good (its next visit asks for the password), and 'Scarica i tuoi dati' downloads the
// JSON file. axe on each page.
import { readFile } from "node:fs/promises";
import { expect, test } from "@playwright/test";
import { signedInCustomer, signInOverHttp } from "./customers";
import { expectToast } from "./identity-support";
import { expectAccessible } from "./support";

const IPHONE =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1";

test("where the account is signed in: both browsers listed, the phone signed out from here for good", async ({
  page,
  context,
  browser,
}) => {
  // This browser reaches the portal from an Italian network; the phone from another one.
  await context.setExtraHTTPHeaders({ "x-forwarded-for": "151.38.2.9" });
  const email = await signedInCustomer(page);
  const phone = await browser.newContext({ userAgent: IPHONE, extraHTTPHeaders: { "x-forwarded-for": "93.44.12.7" } });
  const phonePage = await phone.newPage();
  await signInOverHttp(phonePage, email);

  await page.goto("/profile/");
  await page
    .getByRole("navigation", { name: "Impostazioni account" })
    .getByRole("link", { name: "Dove hai effettuato l'accesso" })
    .click();
  await expect(page).toHaveURL(/\/profile\/sessions\/$/);
  await expect(page.getByRole("heading", { name: "Dove hai effettuato l'accesso", level: 1 })).toBeVisible();
  const list = page.getByRole("list", { name: "Accessi al tuo account" });
  const here = list.getByRole("listitem").filter({ has: page.getByText("Questo dispositivo", { exact: true }) });
  const phoneEntry = list.getByRole("listitem").filter({ hasText: "Safari su iOS · Smartphone" });
  await expect(list.getByRole("listitem")).toHaveCount(2);
  // Playwright's "Desktop Chrome" says it is Chrome on Windows.
  await expect(here).toContainText("Chrome su Windows · Computer");
  await expect(here).toContainText("Italia (rete 151.38.2.0/24)");
  await expect(phoneEntry).toContainText("Italia (rete 93.44.12.0/24)");
  await expect(phoneEntry).toContainText(/Primo accesso\s*\d{1,2} \w+ \d{4} alle \d{2}:\d{2}/);
  await expect(page.getByRole("main")).toContainText("Quando cambi o reimposti la password esci da tutti gli altri dispositivi.");
  await expectAccessible(page);

  await phoneEntry.getByRole("button", { name: "Esci da questo dispositivo" }).click();
  await expectToast(page, "Sei uscito dal dispositivo");
  await expect(list.getByRole("listitem")).toHaveCount(1);
  await expect(here).toHaveCount(1);
  await expect(page.getByRole("button", { name: "Esci da tutti gli altri" })).toHaveCount(0);

  // The phone's next visit to a private page asks for the password: no silent sign-in at the provider.
  await phonePage.goto("/dashboard/");
  await expect(phonePage.getByRole("heading", { name: "Accedi", level: 1 })).toBeVisible();
  await phone.close();
});

test("'Scarica i tuoi dati' downloads the JSON file of the account", async ({ page }) => {
  const email = await signedInCustomer(page);
  await page.goto("/profile/preferences/");
  const download = page.waitForEvent("download");
  await page.getByRole("button", { name: "Scarica i tuoi dati" }).click();
  const file = await download;
  expect(file.suggestedFilename()).toMatch(/^novalex-dati-\d{4}-\d{2}-\d{2}\.json$/);
  const data = JSON.parse(await readFile((await file.path())!, "utf8")) as {
    profile: { email: string };
    portalSessions: unknown[];
  };
  expect(data.profile.email).toBe(email);
  expect(data.portalSessions.length).toBeGreaterThan(0);
  // The page stays where it was.
  await expect(page).toHaveURL(/\/profile\/preferences\/$/);
  await expectAccessible(page);
});
