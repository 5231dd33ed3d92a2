import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createLogger } from "../logger.ts";
import { closeGracefully } from "./shutdown.ts";

const log = createLogger("silent");
let server: Server;

/** A server whose only page takes `delayMs` to answer. */
async function slowServer(delayMs: number) {
  server = createServer((_req, res) => {
    setTimeout(() => res.end("finito"), delayMs);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}

afterEach(() => {
  server.closeAllConnections();
  server.close();
});

describe("closeGracefully", () => {
  it("finishes the request in flight and refuses new connections", async () => {
    const url = await slowServer(300);
    const inFlight = fetch(url);
    await new Promise((r) => setTimeout(r, 50)); // the request has reached the handler
    const closed = closeGracefully(server, { graceMs: 5_000, log });

    await expect(fetch(url)).rejects.toThrow();
    const response = await inFlight;
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("finito");
    await closed;
    expect(server.listening).toBe(false);
  });

  it("cuts a request that outlives the grace period", async () => {
    const url = await slowServer(60_000);
    const inFlight = fetch(url).then(
      () => "answered",
      () => "cut",
    );
    await new Promise((r) => setTimeout(r, 50));
    const started = Date.now();
    await closeGracefully(server, { graceMs: 200, log });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(await inFlight).toBe("cut");
  });
});
