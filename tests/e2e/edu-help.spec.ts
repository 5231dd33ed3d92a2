import { expect, test } from "@playwright/test";
import { euro, expectAccessible } from "./support";

test("the EDU page shows both offers, the note and the FAQ", async ({ page }) => {
  const response = await page.goto("/edu/");
  expect(response?.status()).toBe(200);
  const offers = page.getByRole("region", { name: "Offerte" });
  const edu = offers.getByRole("article").filter({ has: page.getByRole("heading", { name: "EDU", exact: true }) });
  await expect(edu.getByText(euro("4,50"))).toBeVisible();
  await expect(edu.getByText("-50%")).toBeVisible();
  await expect(edu.getByText("Abbonamento di 6 mesi")).toBeVisible();
  await expect(edu.getByText("Pagamento mensile")).toBeVisible();
  await expect(edu.getByText("Rinnovo automatico dopo 6 mesi")).toBeVisible();
  await expect(edu.getByText("Disdici quando vuoi")).toBeVisible();
  // A post (it opens an order); a signed-out visitor is sent to the login and back.
  const buy = edu.getByRole("button", { name: "Acquista ora" });
  await expect(buy).toBeVisible();
  const form = edu.locator("form", { has: page.getByRole("button", { name: "Acquista ora" }) });
  await expect(form).toHaveAttribute("action", "/create-checkout/abbonamentoedu/");
  await expect(offers.getByRole("heading", { name: "eBook+EDU" })).toBeVisible();
  await expect(page.getByRole("complementary", { name: "Informazioni" })).toContainText("rinnova automaticamente");

  // The accordion is native <details>: it opens with or without JavaScript.
  const subjects = page
    .locator("details")
    .filter({ has: page.locator("summary", { hasText: "Quali materie sono incluse?" }) })
    .first();
  await expect(subjects.getByText(/Diritto costituzionale/)).toBeHidden();
  await subjects.locator("summary").click();
  await expect(subjects.getByText(/Diritto costituzionale/).first()).toBeVisible();
  await expectAccessible(page);
});

for (const path of ["/help-center", "/help-center/"]) {
  test(`the help centre at ${path} answers about supported readers`, async ({ page }) => {
    const response = await page.goto(path);
    expect(response?.status()).toBe(200);
    await expect(page.getByRole("heading", { level: 1, name: "Help Center" })).toBeVisible();
    const readers = page
      .locator("details")
      .filter({ has: page.locator("summary", { hasText: /Quali browser/ }) })
      .first();
    await readers.locator("summary").click();
    for (const browser of ["Chrome", "Edge", "Firefox", "Safari"]) {
      await expect(readers.getByText(new RegExp(browser)).first()).toBeVisible();
    }
    await expectAccessible(page);
  });
}
