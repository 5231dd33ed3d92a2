// /dev/orologio: the development clock moves forward and the jobs due then run (a subscription's
// month is charged); it does not exist in production.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as devClockRoute from "#app/routes/dev.clock.tsx";
import { createShiftableClock } from "#server/lib/clock.ts";
import type { Services } from "#server/services.ts";
import { buyEduWithSandboxCard } from "#tests/support/checkout.ts";
import { testConfig } from "#tests/support/config.ts";
import { signedInCustomer } from "#tests/support/customers.ts";
import { createTestDatabase, type TestDatabase } from "#tests/support/database.ts";
import { formPost, sessionCookieHeader, thrownResponse } from "#tests/support/requests.ts";
import { createSessionStore } from "#server/accounts/sessions.ts";
import { createRouterContext } from "#tests/support/router-context.ts";
import { createTestServices } from "#tests/support/services.ts";

let database: TestDatabase;
let services: Services;
let folder: string;

beforeAll(async () => {
  folder = mkdtempSync(path.join(tmpdir(), "portal-clock-"));
  database = await createTestDatabase();
  services = await createTestServices(database, testConfig(), {
    devClock: createShiftableClock(path.join(folder, "clock-offset.json")),
  });
});
afterAll(async () => {
  await services.close();
  await database.destroy();
  rmSync(folder, { recursive: true, force: true });
});

const buyEdu = (userId: string) => buyEduWithSandboxCard(services, userId);

const args = (request: Request, config = testConfig()) =>
  ({ request, params: {}, context: createRouterContext(services, config), url: new URL(request.url), pattern: "" }) as never;

describe("/dev/orologio", () => {
  it("moves the clock 31 days forward, keeps it in its file, and charges the month that came due", async () => {
    const { user } = await signedInCustomer(services, database.db);
    await buyEdu(user.id);
    const before = services.clock().getTime();

    const page = (await devClockRoute.loader(args(new Request("http://localhost:3000/dev/orologio/")))) as { offsetDays: number };
    expect(page.offsetDays).toBe(0);
    const moved = await devClockRoute.action(args(formPost("/dev/orologio/", { days: "31" })));
    expect((moved as Response).status).toBe(302);
    expect(services.clock().getTime() - before).toBeGreaterThanOrEqual(31 * 86_400_000);
    expect(JSON.parse(readFileSync(path.join(folder, "clock-offset.json"), "utf8")).offsetMs).toBe(31 * 86_400_000);
    const view = await services.subscriptions.ofCustomer(user.id);
    expect(view!.paidMonths).toHaveLength(2);

    const refused = (await devClockRoute.action(args(formPost("/dev/orologio/", { days: "-3" })))) as {
      init: { status: number };
    };
    expect(refused.init.status).toBe(400);
  });

  it("makes the signed-in customer's sandbox card decline the next month", async () => {
    const { user } = await signedInCustomer(services, database.db);
    await buyEdu(user.id);
    // A session at the portal's time, which the first test moved a month ahead.
    const raw = await createSessionStore(database.db, services.clock).create(user.id, {
      accessToken: "at",
      accessTokenExpiresAt: new Date(services.clock().getTime() + 600_000),
      refreshToken: "rt",
      idToken: "it",
    });
    const cookie = await sessionCookieHeader(raw);
    await devClockRoute.action(args(formPost("/dev/orologio/", { card: "declined" }, cookie)));
    await devClockRoute.action(args(formPost("/dev/orologio/", { days: "31" })));
    const view = await services.subscriptions.ofCustomer(user.id);
    expect(view).toMatchObject({
      status: "past_due",
      retry: { errorMessage: "La carta è stata rifiutata per fondi insufficienti." },
    });
  });

  it("is not there in production", async () => {
    const production = { ...testConfig(), isProduction: true };
    const response = await thrownResponse(
      Promise.resolve().then(() => devClockRoute.loader(args(new Request("http://localhost:3000/dev/orologio/"), production))),
    );
    expect(response.status).toBe(404);
  });
});
