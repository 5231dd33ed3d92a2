// Readiness says what a balancer must know before sending customers: that the database answers,
// and that this instance reaches its own identity provider through PUBLIC_ORIGIN, the way every
// sign-in does (server/identity/own-provider-check.ts).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "#scripts/bench/server.ts";
import { createTestDatabase, type TestDatabase } from "#tests/support/database.ts";
import { levelOf, startPortal, type Portal } from "#tests/support/http-app.ts";

let database: TestDatabase;
let reached: Portal;
let cutOff: Portal;

beforeAll(async () => {
  database = await createTestDatabase();
  reached = await startPortal(database);
  // A public address nothing answers at: an instance without a route back to its proxy.
  cutOff = await startPortal(database, { PUBLIC_ORIGIN: `http://127.0.0.1:${await freePort()}` });
});
afterAll(async () => {
  await reached?.close();
  await cutOff?.close();
  await database.destroy();
});

describe("/readyz", () => {
  it("is ready when the provider answers through the public address", async () => {
    const response = await reached.fetch("/readyz");
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: "ok", database: "ok", identityProvider: "ok" });
    // Its own call to the provider is not one more line at info level every 30 s.
    const probe = reached.lines.filter((line) => JSON.stringify(line.req ?? {}).includes("openid-configuration"));
    expect(probe.filter((line) => line.level >= levelOf("info"))).toEqual([]);
  });

  it("is not ready, saying why, when the public address does not lead back to the provider", async () => {
    const response = await cutOff.fetch("/readyz");
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual({
      status: "unavailable",
      database: "ok",
      identityProvider: "unreachable",
      reason: `${cutOff.config.oidc.issuer}/.well-known/openid-configuration unreachable: ECONNREFUSED`,
    });
    // Liveness is another matter: the process is fine, a restart would not help.
    expect((await cutOff.fetch("/healthz")).status).toBe(200);
    // A balancer asks every few seconds: the log says it once, not at every probe.
    expect((await cutOff.fetch("/readyz")).status).toBe(503);
    const said = cutOff.lines.filter((line) => line.msg?.startsWith("readiness: the identity provider is unreachable"));
    expect(said).toHaveLength(1);
  });
});
