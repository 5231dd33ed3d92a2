// GET /metrics (issue 32): only for Prometheus's token, and its counters move by exactly what
// happened: a purchase paid, one declined, the pages asked for by their route's pattern.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EDU_PRODUCT_CODE } from "#shared/library-constants.ts";
import { buyWithSandboxCard, checkoutDetails } from "#tests/support/checkout.ts";
import { signedInCustomer } from "#tests/support/customers.ts";
import { createTestDatabase, type TestDatabase } from "#tests/support/database.ts";
import { startPortal, type Portal } from "#tests/support/http-app.ts";

const TOKEN = "prometheus-token-of-at-least-32-characters";
let database: TestDatabase;
let portal: Portal;

beforeAll(async () => {
  database = await createTestDatabase();
  portal = await startPortal(database, { METRICS_TOKEN: TOKEN });
});
afterAll(async () => {
  await portal.close();
  await database.close();
});

/** The exposition's samples: `name{labels}` → value. */
async function scrape(): Promise<Map<string, number>> {
  const response = await portal.fetch("/metrics", { headers: { Authorization: `Bearer ${TOKEN}` } });
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
  const samples = new Map<string, number>();
  for (const line of (await response.text()).split("\n")) {
    const sample = /^([a-z_]+(?:\{[^}]*\})?) (\S+)$/.exec(line);
    if (sample) samples.set(sample[1]!, Number(sample[2]));
  }
  return samples;
}

/** How much each of `names` moved since the scrape `before`. */
async function movedSince(before: Map<string, number>, names: string[]): Promise<Record<string, number>> {
  const after = await scrape();
  return Object.fromEntries(names.map((name) => [name, (after.get(name) ?? 0) - (before.get(name) ?? 0)]));
}

/** How much each of `names` moved while `work` ran. */
async function moved(names: string[], work: () => Promise<unknown>): Promise<Record<string, number>> {
  const before = await scrape();
  await work();
  return movedSince(before, names);
}

describe("GET /metrics", () => {
  it("answers only Prometheus's token; anyone else gets the portal's 404, as if there were nothing", async () => {
    for (const authorization of [undefined, `Bearer ${TOKEN.slice(1)}x`, `Bearer ${TOKEN}x`, TOKEN]) {
      const response = await portal.fetch("/metrics", { headers: authorization ? { Authorization: authorization } : {} });
      expect(response.status).toBe(404);
      expect(await response.text()).not.toContain("portal_http_requests_total");
    }
    const samples = await scrape();
    expect(samples.get("portal_jobs_due")).toBeGreaterThanOrEqual(0);
    expect(samples.get("portal_subscriptions_past_due")).toBe(0);
  });

  it("counts a purchase paid and a card declined, once each, by gateway", async () => {
    const { user } = await signedInCustomer(portal.services, database.db);
    const sandbox = '{gateway="sandbox"}';
    const names = ["started", "succeeded", "declined"].map((what) => `portal_payments_${what}_total${sandbox}`);
    expect(await moved(names, () => buyWithSandboxCard(portal.services, user.id, EDU_PRODUCT_CODE))).toEqual({
      [names[0]!]: 1,
      [names[1]!]: 1,
      [names[2]!]: 0,
    });

    const { user: other } = await signedInCustomer(portal.services, database.db);
    const declined = async () => {
      const opened = await portal.services.checkout.open(other.id, EDU_PRODUCT_CODE);
      if (!opened.ok) throw new Error(opened.reason);
      const started = await portal.services.payments.start(other.id, opened.orderId, checkoutDetails());
      if (!started.ok) throw new Error(started.reason);
      await portal.services.sandbox!.confirmCard(started.setupId, "4000 0000 0000 9995");
      expect((await portal.services.payments.settleSetup(started.setupId)).state).toBe("failed");
    };
    expect(await moved(names, declined)).toEqual({ [names[0]!]: 1, [names[1]!]: 0, [names[2]!]: 1 });
  });

  it("names each request by its route's pattern, never by its address", async () => {
    const { cookie } = await signedInCustomer(portal.services, database.db);
    const opened = await portal.services.checkout.open(
      (await signedInCustomer(portal.services, database.db)).user.id,
      EDU_PRODUCT_CODE,
    );
    const page = 'portal_http_requests_total{route="/dashboard",method="GET",status="200"}';
    const notFound = 'portal_http_requests_total{route="/*",method="GET",status="404"}';
    const api = 'portal_http_requests_total{route="/api/v1/pim/universita/getall/",method="GET",status="200"}';
    const before = await scrape();
    const statusOf = async (path: string, init: RequestInit = {}) => {
      const response = await portal.fetch(path, init);
      await response.arrayBuffer();
      return response.status;
    };
    expect(await statusOf("/dashboard/", { headers: { cookie } })).toBe(200);
    expect(await statusOf("/dashboard/", { headers: { cookie } })).toBe(200);
    expect(await statusOf("/nessuna-pagina-cosi/")).toBe(404);
    expect(await statusOf("/api/v1/pim/universita/getall/")).toBe(200);
    // A request is counted when the server has finished writing its answer ('finish'), which can
    // come a moment after the client has read it: the scrape is repeated until it has (5 s at most).
    await expect
      .poll(() => movedSince(before, [page, notFound, api]), { timeout: 5_000 })
      .toEqual({ [page]: 2, [notFound]: 1, [api]: 1 });
    // The checkout's order id is in its address, never in a series.
    await statusOf(`/checkout/${opened.ok ? opened.orderId : "x"}/`, { headers: { cookie } });
    const series = async () => [...(await scrape()).keys()].join("\n");
    await expect.poll(series, { timeout: 5_000 }).toContain('route="/checkout/:order"');
    expect(await series()).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-/);
  });
});
