import { describe, expect, it } from "vitest";
import { passwordHasher } from "./passwords.ts";

describe("passwordHasher", () => {
  const standard = passwordHasher("standard");
  const minimal = passwordHasher("minimal");

  it("hashes with argon2id at the standard cost (19 MiB, 2 passes, 1 lane) or argon2's least", async () => {
    expect(await standard.hash("Segreta1!")).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(await minimal.hash("Segreta1!")).toMatch(/^\$argon2id\$v=19\$m=8,t=1,p=1\$/);
  });

  it("verifies a hash made at either cost, whatever the cost of the hasher checking it", async () => {
    for (const made of [standard, minimal]) {
      const hash = await made.hash("Segreta1!");
      for (const checking of [standard, minimal]) {
        expect(await checking.verify(hash, "Segreta1!")).toBe(true);
        expect(await checking.verify(hash, "Sbagliata1!")).toBe(false);
      }
    }
  });

  it("answers false without a hash, or with one that is not argon2's", async () => {
    expect(await standard.verify(null, "Segreta1!")).toBe(false);
    expect(await minimal.verify(undefined, "Segreta1!")).toBe(false);
    expect(await standard.verify("not-a-hash", "Segreta1!")).toBe(false);
  });
});
