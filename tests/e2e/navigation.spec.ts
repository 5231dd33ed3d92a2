import { expect, test } from "@playwright/test";
import { ACTIVATION_PATHS, expectAccessible } from "./support";

for (const path of ACTIVATION_PATHS) {
  test(`${path} asks a signed-out visitor to sign in or register, coming back here`, async ({ page }) => {
    const response = await page.goto(path);
    expect(response?.status()).toBe(200);
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
    const back = encodeURIComponent(path);
    await expect(page.getByRole("main").getByRole("link", { name: "Accedi" })).toHaveAttribute(
      "href",
      `/login/?redirect=${back}`,
    );
    await expect(page.getByRole("main").getByRole("link", { name: "Registrati" })).toHaveAttribute(
      "href",
      `/register/?redirect=${back}`,
    );
    // Activation routes hide the strip of catalogue sections.
    await expect(page.getByRole("navigation", { name: "Sezioni del catalogo" })).toHaveCount(0);
    await expectAccessible(page);
  });
}

test("the activation prompt keeps the query string in the way back", async ({ page }) => {
  await page.goto("/attivaebook/?utm_source=libro");
  await expect(page.getByRole("main").getByRole("link", { name: "Accedi" })).toHaveAttribute(
    "href",
    `/login/?redirect=${encodeURIComponent("/attivaebook/?utm_source=libro")}`,
  );
});

test("/ redirects to the dashboard", async ({ request }) => {
  const response = await request.get("/", { maxRedirects: 0 });
  expect(response.status()).toBe(302);
  expect(response.headers()["location"]).toBe("/dashboard/");
});

test("an unknown address gets the Italian 404 page", async ({ page }) => {
  const response = await page.goto("/questa-pagina-non-esiste");
  expect(response?.status()).toBe(404);
  await expect(page.getByRole("heading", { name: "Pagina non trovata" })).toBeVisible();
  await expectAccessible(page);
});

test("the header searches the catalogue on the main site and links the public actions", async ({ page }) => {
  await page.goto("/edu/");
  const header = page.getByRole("banner");
  await expect(header.getByRole("navigation", { name: "Sezioni del catalogo" })).toBeVisible();
  const search = header.getByRole("search").first();
  await expect(search).toHaveAttribute("action", "https://www.novalex.example/catalogsearch/result/");
  await expect(search).toHaveAttribute("method", "get");
  await expect(search.getByRole("searchbox")).toHaveAttribute("name", "q");
  await expect(search.getByRole("searchbox")).toHaveAttribute("required", "");
  await expect(header.getByRole("link", { name: "Inserisci codice" })).toHaveAttribute("href", "/attivaprodotto/");
  await expect(header.getByRole("link", { name: "Accedi" })).toHaveAttribute("href", "/login/");
  await expect(header.getByRole("link", { name: "Help Center" })).toHaveAttribute("href", "/help-center/");
});

test("the footer has its four columns, legal and social links and the 2024 copyright", async ({ page }) => {
  await page.goto("/help-center/");
  const footer = page.getByRole("contentinfo");
  for (const column of ["Novalex Editore", "Esplora", "Prodotti", "Servizio clienti"]) {
    await expect(footer.getByRole("navigation", { name: column })).toBeVisible();
  }
  await expect(footer.getByRole("link", { name: "Privacy" })).toBeVisible();
  await expect(footer.getByRole("link", { name: "Cookie" })).toBeVisible();
  await expect(footer.getByRole("navigation", { name: "Social" }).getByRole("link")).toHaveCount(4);
  await expect(footer.getByText(/© 2024/)).toBeVisible();
  // The seller of the receipts (configuration), with a Partita IVA whose check digit holds.
  await expect(footer.getByText("© 2024 Novalex Editore S.r.l. · P. IVA 06363391001 · Tutti i diritti riservati")).toBeVisible();
});

test.describe("on a phone", () => {
  test.use({ viewport: { width: 375, height: 740 } });

  test("the menu and the search open from their toggles", async ({ page }) => {
    await page.goto("/landingpage/landing/");
    const header = page.getByRole("banner");
    await expect(header.getByRole("navigation", { name: "Menu principale" })).toBeHidden();
    await header.locator("summary", { hasText: "Menu" }).click();
    await expect(
      header.getByRole("navigation", { name: "Menu principale" }).getByRole("link", { name: "Università" }),
    ).toBeVisible();
    await header.locator("summary", { hasText: "Mostra la ricerca" }).click();
    await expect(header.locator("#ricerca-catalogo-mobile")).toBeVisible();
  });
});
