// The request's outage budget (reconnecting-pool.ts) lives in an AsyncLocalStorage, which follows
// promises and timers, not a stream's events. A POST's body arrives as events: the handlers after
// it must still run in the request's budget, or each of their statements would wait a whole outage
// of its own. It holds because the body parsers bind their callback to the request's context
// (raw-body's AsyncResource.bind) and a route's action awaits its body; these tests keep it so.
import type { AddressInfo } from "node:net";
import { createReadableStreamFromReadable } from "@react-router/node";
import express, { type RequestHandler } from "express";
import { afterEach, describe, expect, it } from "vitest";
import { outageDeadline, withinOutageBudget } from "./reconnecting-pool.ts";

const BUDGET_MS = 10_000;
let close = async () => {};
afterEach(() => close());

/**
 * POSTs a JSON body of several pieces through `handlers`, in a budget opened as the app opens it:
 * whether the handler after them runs in that same budget.
 */
async function sameBudgetAfter(...handlers: RequestHandler[]) {
  const app = express()
    .use((_req, res, next) =>
      withinOutageBudget(BUDGET_MS, () => {
        res.locals.opened = outageDeadline();
        next();
      }),
    )
    .post(
      "/",
      ...handlers,
      (_req, res) => void res.json({ opened: res.locals.opened as number, seen: outageDeadline() ?? null }),
    );
  const server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  close = () => new Promise((resolve) => server.close(() => resolve()));
  const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ text: "x".repeat(200_000) }),
  });
  const { opened, seen } = (await response.json()) as { opened: number; seen: number | null };
  expect(opened).toEqual(expect.any(Number));
  return seen === opened;
}

describe("a request's outage budget after its body has arrived", () => {
  it("reaches the API's operations (express.json)", async () => {
    expect(await sameBudgetAfter(express.json({ limit: "1mb" }))).toBe(true);
  });

  it("reaches the payment gateway's notifications (express.raw)", async () => {
    expect(await sameBudgetAfter(express.raw({ type: "application/json", limit: "1mb" }))).toBe(true);
  });

  it("reaches a page's action, which reads the body as React Router hands it", async () => {
    const readAsAction: RequestHandler = (req, _res, next) => {
      const request = new Request("http://portale.test/", {
        method: "POST",
        body: createReadableStreamFromReadable(req),
        duplex: "half",
      } as RequestInit);
      request.json().then(() => next(), next);
    };
    expect(await sameBudgetAfter(readAsAction)).toBe(true);
  });

  it("is gone where a stream's event calls on without binding (what the tests above rule out)", async () => {
    const unbound: RequestHandler = (req, _res, next) => {
      req.resume();
      req.on("end", () => next());
    };
    expect(await sameBudgetAfter(unbound)).toBe(false);
  });
});
