import type { AddressInfo } from "node:net";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "#server/logger.ts";
import { sameOriginPosts } from "./same-origin.ts";

let base: string;
let close: () => void;

beforeAll(async () => {
  const app = express();
  const log = createLogger("silent");
  app.use((req, res, next) => {
    req.log = log;
    res.locals.cspNonce = "n";
    next();
  });
  app.use(sameOriginPosts("http://localhost:3000"));
  app.all("/", (_req, res) => res.send("done"));
  const server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  close = () => server.close();
});
afterAll(() => close());

const post = (headers: Record<string, string>) => fetch(base, { method: "POST", headers, body: "x=1" });

describe("sameOriginPosts", () => {
  it("lets the portal's own forms through", async () => {
    expect((await post({ origin: "http://localhost:3000" })).status).toBe(200);
    expect((await post({ "sec-fetch-site": "same-origin" })).status).toBe(200);
  });

  it("refuses posts from other sites", async () => {
    const refused = await post({ origin: "https://evil.example" });
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain("Richiesta non valida");
    expect((await post({ "sec-fetch-site": "cross-site" })).status).toBe(403);
  });

  it("leaves reads alone", async () => {
    expect((await fetch(base, { headers: { origin: "https://evil.example" } })).status).toBe(200);
  });
});
