import { expect, test } from "@playwright/test";
import { LANDING_VARIANTS, SHORT_LANDING_VARIANTS, euro, expectAccessible } from "./support";

for (const variant of LANDING_VARIANTS) {
  test(`landing page ${variant} shows all its blocks`, async ({ page }) => {
    const response = await page.goto(`/landingpage/${variant}`);
    expect(response?.status()).toBe(200);
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();

    const publications = page.locator("section[aria-labelledby=pubblicazioni]");
    await expect(publications.getByRole("article")).toHaveCount(4);
    await expect(publications.getByText(/\d+,\d{2}\s€/).first()).toBeVisible();

    await expect(page.locator("section[aria-labelledby=novita] article").first()).toBeVisible();
    const activate = page.locator("section[aria-labelledby=attiva]");
    await expect(activate.getByRole("link", { name: "Attiva prodotto" })).toHaveAttribute("href", "/attivaprodotto/");

    const collaborate = page.locator("section[aria-labelledby=collabora]");
    for (const name of ["Pubblica con noi", "Richiedi una copia saggio", "Adotta un volume", "Richiedi il catalogo"]) {
      await expect(collaborate.getByRole("heading", { name })).toBeVisible();
    }
    await expectAccessible(page);
  });

  test(`landing page ${variant} also answers with a trailing slash`, async ({ page }) => {
    const response = await page.goto(`/landingpage/${variant}/`);
    expect(response?.status()).toBe(200);
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  });
}

for (const variant of SHORT_LANDING_VARIANTS) {
  test(`/${variant} serves the same page as /landingpage/${variant}`, async ({ page }) => {
    await page.goto(`/landingpage/${variant}`);
    const longTitle = await page.getByRole("heading", { level: 1 }).textContent();
    const response = await page.goto(`/${variant}`);
    expect(response?.status()).toBe(200);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText(longTitle ?? "");
  });
}

test("the main landing page quotes the spec's prices in Italian format", async ({ page }) => {
  await page.goto("/landingpage/landing");
  const publications = page.locator("section[aria-labelledby=pubblicazioni]");
  for (const amount of ["32,00", "38,00", "69,00", "54,00"]) {
    await expect(publications.getByText(euro(amount))).toBeVisible();
  }
});

test("the edu landing adds the eight subjects and the note for teachers", async ({ page }) => {
  await page.goto("/landingpage/edu/");
  const subjects = page.locator("section[aria-labelledby=materie]");
  await expect(subjects.getByRole("article")).toHaveCount(8);
  await expect(subjects.getByRole("link", { name: /Diritto privato/ })).toHaveAttribute("href", /\/materie\//);
  await expect(subjects.getByRole("link", { name: "vendite@novalex.example" })).toHaveAttribute(
    "href",
    "mailto:vendite@novalex.example",
  );
});

test("other landing variants have no subject carousel", async ({ page }) => {
  await page.goto("/landingpage/studenti");
  await expect(page.locator("section[aria-labelledby=materie]")).toHaveCount(0);
});

test("an unknown landing variant is a 404", async ({ page }) => {
  const response = await page.goto("/landingpage/nonesiste");
  expect(response?.status()).toBe(404);
  await expect(page.getByRole("heading", { name: "Pagina non trovata" })).toBeVisible();
});
