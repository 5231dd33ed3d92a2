import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DataDirHeld, dataDirHolder, holdDataDir, ownerSocketPath, requestSnapshot } from "./pglite-owner.ts";

let dataDir: string;
beforeEach(() => {
  dataDir = mkdtempSync(path.join(tmpdir(), "portal-owner-"));
});
afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

describe("who holds DATA_DIR's embedded database", () => {
  it("is one process: a second claim is refused naming the first, and the socket is the owner's only", async () => {
    expect(await dataDirHolder(dataDir)).toBeNull();
    const hold = await holdDataDir(dataDir, "portal");
    expect(statSync(ownerSocketPath(dataDir)).mode & 0o777).toBe(0o600);
    expect(await dataDirHolder(dataDir)).toEqual({ holder: "portal", pid: process.pid });
    const second = await holdDataDir(dataDir, "operator").catch((error: unknown) => error);
    expect(second).toBeInstanceOf(DataDirHeld);
    expect((second as Error).message).toBe(
      `The portal (pid ${process.pid}) holds the embedded database in ${dataDir} (DATA_DIR): PGlite is one process at a time.`,
    );
    await hold.close();
    expect(existsSync(ownerSocketPath(dataDir))).toBe(false);
    const again = await holdDataDir(dataDir, "operator");
    await again.close();
  });

  it("takes over the socket a killed process left", async () => {
    // A process that listens on the socket and is killed (SIGKILL) before it can remove it.
    const script = `require("node:net").createServer().listen(${JSON.stringify(ownerSocketPath(dataDir))}, () => process.kill(process.pid, "SIGKILL"))`;
    spawnSync(process.execPath, ["-e", script]);
    expect(existsSync(ownerSocketPath(dataDir))).toBe(true);
    expect(await dataDirHolder(dataDir)).toBeNull();
    const hold = await holdDataDir(dataDir, "portal");
    expect(await dataDirHolder(dataDir)).toEqual({ holder: "portal", pid: process.pid });
    await hold.close();
  });

  it("hands a snapshot to whoever asks once it serves them, one at a time, and says why not before", async () => {
    expect(await requestSnapshot(dataDir, { actor: "operator:mrossi", file: "copia.tar.gz" })).toBeNull();
    const hold = await holdDataDir(dataDir, "portal");
    await expect(requestSnapshot(dataDir, { actor: "operator:mrossi", file: "copia.tar.gz" })).rejects.toThrow(
      `The portal (pid ${process.pid}) is still opening its database: try again in a moment.`,
    );
    const served: { actor: string; file: string; bytes: number }[] = [];
    let running = 0;
    let most = 0;
    hold.serveSnapshots({
      async snapshot() {
        most = Math.max(most, ++running);
        await new Promise((r) => setTimeout(r, 20));
        running--;
        return new Uint8Array(200_000).fill(7);
      },
      async onSnapshot(request, bytes) {
        served.push({ ...request, bytes });
      },
    });
    const [one, two] = await Promise.all([
      requestSnapshot(dataDir, { actor: "operator:mrossi", file: "uno.tar.gz" }),
      requestSnapshot(dataDir, { actor: "not an actor", file: "due.tar.gz" }),
    ]);
    expect(Buffer.from(one!.bytes).equals(Buffer.alloc(200_000, 7))).toBe(true);
    expect(two!.holder).toEqual({ holder: "portal", pid: process.pid });
    expect(most).toBe(1);
    expect(served.sort((a, b) => a.file.localeCompare(b.file))).toEqual([
      { actor: "operator:unknown", file: "due.tar.gz", bytes: 200_000 },
      { actor: "operator:mrossi", file: "uno.tar.gz", bytes: 200_000 },
    ]);

    hold.serveSnapshots({
      snapshot: () => Promise.reject(new Error("the database thread stopped")),
    });
    await expect(requestSnapshot(dataDir, { actor: "operator:mrossi", file: "tre.tar.gz" })).rejects.toThrow(
      "the database thread stopped",
    );
    await hold.close();
  });

  it("refuses a DATA_DIR whose socket's path would be too long", () => {
    expect(() => ownerSocketPath(path.join(dataDir, "x".repeat(120)))).toThrow(/is too long: its socket .* at most 107 bytes/);
  });
});
