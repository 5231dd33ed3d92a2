// Loaders of the public pages, called as React Router calls them, over real services.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loader as rootLoader } from "#app/root.tsx";
import { loader as coverLoader } from "#app/routes/media.cover.ts";
import { loader as eduLoader } from "#app/routes/edu.tsx";
import { loader as helpLoader } from "#app/routes/help-center.tsx";
import { loader as homeLoader } from "#app/routes/home.tsx";
import { loader as landingLoader } from "#app/routes/landing.tsx";
import { loader as notFoundLoader } from "#app/routes/not-found.tsx";
import { LANDING_VARIANTS } from "#shared/landing-variants.ts";
import type { Services } from "#server/services.ts";
import { createTestServices } from "#tests/support/services.ts";
import { thrownResponse } from "#tests/support/requests.ts";
import { createTestDatabase, type TestDatabase } from "#tests/support/database.ts";
import { signedInCustomer } from "#tests/support/customers.ts";
import { loaderArgs } from "#tests/support/router-context.ts";

let database: TestDatabase;
let services: Services;

beforeAll(async () => {
  database = await createTestDatabase();
  services = await createTestServices(database);
});
afterAll(async () => {
  await services.close();
  await database.destroy();
});

describe("landing pages", () => {
  it.each(LANDING_VARIANTS)("/landingpage/%s has every block from the database", async (variant) => {
    const { page } = await landingLoader(loaderArgs(services, `/landingpage/${variant}`, { variant }));
    expect(page.variant).toBe(variant);
    expect(page.bannerTitle).not.toBe("");
    expect(page.cards.publication).toHaveLength(4);
    for (const card of page.cards.publication) expect(card.product?.priceCents).toBeGreaterThan(0);
    expect(page.cards.news.length).toBeGreaterThan(0);
    expect(page.cards.collaborate.map((c) => c.title)).toEqual([
      "Pubblica con noi",
      "Richiedi una copia saggio",
      "Adotta un volume",
      "Richiedi il catalogo",
    ]);
    expect(page.cards.subject).toHaveLength(variant === "edu" ? 8 : 0);
    expect(page.showEduBlocks).toBe(variant === "edu");
  });

  it("serves the short address from its path", async () => {
    const { page } = await landingLoader(loaderArgs(services, "/universita/"));
    expect(page.variant).toBe("universita");
  });

  it("quotes the spec's four landing prices on the main landing page", async () => {
    const { page } = await landingLoader(loaderArgs(services, "/landingpage/landing", { variant: "landing" }));
    expect(page.cards.publication.map((c) => c.product?.priceCents).sort()).toEqual([3200, 3800, 5400, 6900]);
  });

  it("the edu variant carries the sales address from configuration", async () => {
    const data = await landingLoader(loaderArgs(services, "/landingpage/edu", { variant: "edu" }));
    expect(data.salesEmail).toBe("vendite@novalex.example");
  });

  it("answers 404 for an unknown variant", async () => {
    const response = await thrownResponse(landingLoader(loaderArgs(services, "/landingpage/x", { variant: "x" })));
    expect(response.status).toBe(404);
  });
});

describe("EDU page and help centre", () => {
  it("prices EDU from the abbonamentoedu product and lists the spec's questions", async () => {
    const data = await eduLoader(loaderArgs(services, "/edu/"));
    expect(data.monthlyPriceCents).toBe(450);
    const text = JSON.stringify(data.faq);
    for (const subject of [
      "pubblico",
      "costituzionale",
      "privato",
      "penale",
      "lavoro",
      "amministrativo",
      "europea",
      "commerciale",
      "tributario",
    ]) {
      expect(text).toContain(subject);
    }
    expect(data.faq.flatMap((s) => s.entries).length).toBeGreaterThanOrEqual(4);
  });

  it("the help centre answers which browsers can read the ebooks", async () => {
    const { faq } = await helpLoader(loaderArgs(services, "/help-center"));
    const entries = faq.flatMap((s) => s.entries);
    const readers = entries.find((e) => ["Chrome", "Edge", "Firefox", "Safari"].every((b) => e.answer.includes(b)));
    expect(readers).toBeDefined();
  });
});

describe("other routes", () => {
  it("/ redirects to /dashboard/", async () => {
    const response = homeLoader();
    expect(response.status).toBe(302);
    expect(response.headers.get("Location")).toBe("/dashboard/");
  });

  it("the catch-all route answers 404", () => {
    const result = notFoundLoader();
    expect(result.init?.status).toBe(404);
  });

  it("generates a cacheable SVG cover for a catalogue product, and 404 for anything else", async () => {
    const { page } = await landingLoader(loaderArgs(services, "/landingpage/landing", { variant: "landing" }));
    const cover = page.cards.publication[0]!.product!.cover;
    const response = await coverLoader(loaderArgs(services, `/media/copertine/${cover}.svg`, { file: `${cover}.svg` }));
    expect(response.headers.get("Content-Type")).toContain("image/svg+xml");
    expect(response.headers.get("Cache-Control")).toContain("max-age=86400");
    const svg = await response.text();
    expect(svg).toMatch(/^<svg /);
    expect(svg).toContain("Novalex Editore");

    const etag = response.headers.get("ETag")!;
    const args = loaderArgs(services, `/media/copertine/${cover}.svg`, { file: `${cover}.svg` });
    const revalidated = await coverLoader({
      ...args,
      request: new Request(args.request.url, { headers: { "If-None-Match": etag } }),
    });
    expect(revalidated.status).toBe(304);

    for (const file of ["nope.svg", "../../etc/passwd", "x.png"]) {
      const missing = await thrownResponse(coverLoader(loaderArgs(services, `/media/copertine/${file}`, { file })));
      expect(missing.status).toBe(404);
    }
  });
});

describe("?show=activateProduct", () => {
  const path = "/help-center/?q=codice&show=activateProduct";

  it("sends a signed-out visitor to sign in, and back to the modal afterwards", async () => {
    const response = await thrownResponse(rootLoader(loaderArgs(services, path)));
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe(`/login/?${new URLSearchParams({ redirect: path })}`);
  });

  it("opens the modal for a signed-in customer, and leaves other addresses alone", async () => {
    const { cookie } = await signedInCustomer(services, database.db);
    const args = loaderArgs(services, path);
    const data = await rootLoader({ ...args, request: new Request(args.request.url, { headers: { cookie } }) });
    expect(data.user).not.toBeNull();
    expect((await rootLoader(loaderArgs(services, "/help-center/?show=userLogout"))).user).toBeNull();
    expect((await rootLoader(loaderArgs(services, `/login/?${new URLSearchParams({ redirect: path })}`))).user).toBeNull();
  });
});
