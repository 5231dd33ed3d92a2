// The SDI outbox's files name their buyers (codici fiscali, addresses): the owner's only, like the
// folder the portal makes for them, and a file left over by an earlier write is made so too.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadConfig } from "#server/config.ts";
import { inboxFolder, outboxTransmitter } from "./transmitter.ts";

const root = mkdtempSync(path.join(tmpdir(), "portal-transmitter-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const mode = (file: string) => statSync(file).mode & 0o777;

describe("outboxTransmitter", () => {
  it("writes each invoice 0600 into a folder it makes 0700, parents included", async () => {
    const dir = path.join(root, "data", "sdi-outbox");
    await outboxTransmitter(dir).send({ fileName: "IT01234567890_00001.xml", xml: "<a/>" });
    expect(readFileSync(path.join(dir, "IT01234567890_00001.xml"), "utf8")).toBe("<a/>");
    expect(mode(path.join(dir, "IT01234567890_00001.xml"))).toBe(0o600);
    expect(mode(dir)).toBe(0o700);
    expect(mode(path.join(root, "data"))).toBe(0o700);
  });

  it("makes a world-readable leftover of an interrupted write private before renaming it in", async () => {
    const dir = path.join(root, "leftover");
    mkdirSync(dir);
    writeFileSync(path.join(dir, ".IT01234567890_00002.xml.partial"), "<half", { mode: 0o644 });
    await outboxTransmitter(dir).send({ fileName: "IT01234567890_00002.xml", xml: "<b/>" });
    expect(mode(path.join(dir, "IT01234567890_00002.xml"))).toBe(0o600);
  });
});

describe("inboxFolder", () => {
  it("keeps what it has read in folders it makes 0700", async () => {
    const dir = path.join(root, "sdi-inbox");
    mkdirSync(dir);
    writeFileSync(path.join(dir, "IT01234567890_00001_RC_001.xml"), "<rc/>");
    expect(await inboxFolder(dir, 1000).done("IT01234567890_00001_RC_001.xml")).toBe(true);
    expect(mode(path.join(dir, "done"))).toBe(0o700);
  });
});

describe("DATA_DIR", () => {
  it("is made 0700 with the generated secrets 0600 outside production", () => {
    const dataDir = path.join(root, "fresh", "data");
    loadConfig({ env: { DATA_DIR: dataDir } });
    expect(mode(dataDir)).toBe(0o700);
    expect(mode(path.join(dataDir, "secrets.json"))).toBe(0o600);
  });
});
