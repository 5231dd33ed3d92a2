import { errors } from "oidc-provider";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "#tests/support/database.ts";
import { createAdapterClass } from "./adapter.ts";

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase({ seed: false });
});
afterAll(() => database.destroy());

describe("oidc-provider PostgreSQL adapter", () => {
  it("stores, finds and expires payloads by type", async () => {
    const Adapter = createAdapterClass(database.db);
    const codes = new Adapter("AuthorizationCode");
    await codes.upsert("c1", { grantId: "g1", accountId: "a1" }, 60);
    await codes.upsert("old", { grantId: "g1" }, -1);
    expect(await codes.find("c1")).toEqual({ grantId: "g1", accountId: "a1" });
    expect(await new Adapter("AccessToken").find("c1")).toBeUndefined();
    expect(await codes.find("old")).toBeUndefined();
  });

  it("consumes a code once when 20 requests try at the same moment", async () => {
    const codes = new (createAdapterClass(database.db))("AuthorizationCode");
    await codes.upsert("race", { grantId: "g2" }, 60);
    const results = await Promise.allSettled(Array.from({ length: 20 }, () => codes.consume("race")));
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    for (const r of results) if (r.status === "rejected") expect(r.reason).toBeInstanceOf(errors.InvalidGrant);
    expect((await codes.find("race"))?.consumed).toEqual(expect.any(Number));
  });

  it("revokes everything of a grant", async () => {
    const Adapter = createAdapterClass(database.db);
    const access = new Adapter("AccessToken");
    const refresh = new Adapter("RefreshToken");
    await access.upsert("at", { grantId: "g3" }, 60);
    await refresh.upsert("rt", { grantId: "g3" }, 60);
    await access.revokeByGrantId("g3");
    expect(await access.find("at")).toBeUndefined();
    expect(await refresh.find("rt")).toBeUndefined();
  });
});
