// The request's outage budget reaches the handlers after a body parser, which calls `next` from the
// body stream's 'end' event, outside the request's async context.
import type { AddressInfo } from "node:net";
import express from "express";
import { afterEach, describe, expect, it } from "vitest";
import { outageDeadline } from "../db/reconnecting-pool.ts";
import { keepingOutageBudget, outageBudget } from "./outage-budget.ts";

let close = async () => {};
afterEach(() => close());

/** POSTs a JSON body through `parser` and answers whether the handler after it had the budget. */
async function budgetAfter(parser: express.RequestHandler) {
  const app = express()
    .use(outageBudget(10_000))
    .post("/", parser, (_req, res) => void res.json({ deadline: outageDeadline() ?? null }));
  const server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  close = () => new Promise((resolve) => server.close(() => resolve()));
  const sent = Date.now();
  const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    // Large enough to arrive in more than one piece.
    body: JSON.stringify({ text: "x".repeat(200_000) }),
  });
  const { deadline } = (await response.json()) as { deadline: number | null };
  return { deadline, sent };
}

describe("the outage budget", () => {
  it("is the request's own after a body parser", async () => {
    const { deadline, sent } = await budgetAfter(keepingOutageBudget(express.json({ limit: "1mb" })));
    expect(deadline).not.toBeNull();
    expect(deadline! - sent).toBeGreaterThan(9_000);
    expect(deadline! - sent).toBeLessThanOrEqual(10_000 + 1_000);
  });

  it("is lost after a body parser that is not kept in it (why the wrapper exists)", async () => {
    const { deadline } = await budgetAfter(express.json({ limit: "1mb" }));
    expect(deadline).toBeNull();
  });
});
