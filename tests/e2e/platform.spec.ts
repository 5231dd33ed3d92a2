import { expect, test } from "@playwright/test";
import { expectNoHorizontalOverflow } from "./support";

test("pages carry a nonce-based CSP, and every script has the nonce", async ({ page }) => {
  const response = await page.goto("/landingpage/landing/");
  const headers = response!.headers();
  const csp = headers["content-security-policy"]!;
  const nonce = /'nonce-([^']+)'/.exec(csp)?.[1];
  expect(nonce).toBeTruthy();
  expect(csp).toContain("'strict-dynamic'");
  expect(csp).toContain("object-src 'none'");
  expect(csp).toContain("base-uri 'none'");
  expect(csp).toContain("frame-ancestors 'none'");
  expect(headers["x-content-type-options"]).toBe("nosniff");
  expect(headers["referrer-policy"]).toBeTruthy();
  expect(headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
  expect(headers["strict-transport-security"]).toBeUndefined(); // plain HTTP here

  const html = await response!.text();
  const scripts = [...html.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
  expect(scripts.length).toBeGreaterThan(0);
  for (const tag of scripts) expect(tag).toContain(`nonce="${nonce}"`);
});

test("each response gets a new nonce", async ({ request }) => {
  const a = (await request.get("/edu/")).headers()["content-security-policy"];
  const b = (await request.get("/edu/")).headers()["content-security-policy"];
  expect(a).not.toBe(b);
});

test("health and readiness answer", async ({ request }) => {
  expect((await request.get("/healthz")).status()).toBe(200);
  const ready = await request.get("/readyz");
  expect(ready.status()).toBe(200);
  expect(await ready.json()).toEqual({ status: "ok", database: "ok", identityProvider: "ok" });
});

test("built assets are cached for a long time, covers for a day", async ({ page, request }) => {
  await page.goto("/landingpage/landing/");
  const script = (await page.content()).match(/\/assets\/[\w.-]+\.js/)![0];
  const asset = await request.get(script);
  expect(asset.headers()["cache-control"]).toContain("immutable");
  const cover = await page.locator("section[aria-labelledby=pubblicazioni] img").first().getAttribute("src");
  const image = await request.get(cover!);
  expect(image.status()).toBe(200);
  expect(image.headers()["content-type"]).toContain("image/svg+xml");
  expect(image.headers()["cache-control"]).toContain("max-age=86400");
});

test("the first paint waits for the stylesheet alone: no script is asked for before it", async ({ request }) => {
  // On a slow link the scripts fetched with the page took the bandwidth the stylesheet needed
  // (issue 30); they start at the first frame after the first paint (entry.server.tsx).
  for (const path of ["/edu/", "/landingpage/landing/"]) {
    const html = await (await request.get(path)).text();
    const head = html.split("</head>")[0]!;
    expect(head).toMatch(
      /^<!DOCTYPE html><html lang="it"><head><meta charSet="utf-8"\/><meta name="viewport"[^>]*><link rel="stylesheet"/,
    );
    expect(html).not.toContain('<link rel="modulepreload"');
    expect(html).not.toMatch(/<script[^>]*type="module"/);
    expect(html).toMatch(/<script nonce="[^"]+" type="text\/plain" id="avvio-script">/);
  }
});

for (const width of [375, 768, 1280]) {
  test(`public pages fit a ${width}px screen`, async ({ page }) => {
    await page.setViewportSize({ width, height: 900 });
    for (const path of ["/landingpage/landing/", "/landingpage/edu/", "/edu/", "/help-center/", "/attivaprodotto/"]) {
      await page.goto(path);
      await expectNoHorizontalOverflow(page);
    }
  });
}

test("a malformed address gets an Italian error page naming the request id", async ({ request }) => {
  const response = await request.get("/landingpage/%E0%A4%A");
  expect(response.status()).toBe(400);
  const html = await response.text();
  expect(html).toContain("Richiesta non valida");
  expect(html).toContain(response.headers()["x-request-id"]);
});

test("the router's error screen reads 'Unexpected Application Error!' and shows no stack trace", async ({ request }) => {
  // Public pages have no action: posting to one is an error the router's boundary renders.
  const response = await request.post("/edu/", { form: { x: "1" } });
  expect(response.status()).toBe(405);
  const html = await response.text();
  expect(html).toContain("Unexpected Application Error!");
  // What it means, in Italian.
  expect(html).toContain("Si è verificato un errore imprevisto");
  expect(html).not.toMatch(/\bat .+:\d+:\d+/); // no "at file:line:column" frames
  expect(html).toContain('lang="it"');
});
