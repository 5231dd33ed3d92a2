import { describe, expect, it } from "vitest";
import { createOwnProviderCheck } from "./own-provider-check.ts";

const issuer = "https://portale.example.it/oidc";

/** A fetch answering from `answers` in turn, counting the requests. */
function scripted(answers: (() => Response | Promise<Response>)[]) {
  const calls: string[] = [];
  const fetch = (async (url: string | URL | Request) => {
    calls.push(String(url));
    const next = answers.shift();
    if (!next) throw new Error("no more answers");
    return next();
  }) as typeof globalThis.fetch;
  return { fetch, calls };
}

function clockAt(start: number) {
  let t = start;
  return { now: () => new Date(t), advance: (ms: number) => (t += ms) };
}

const discovery = (iss: string) => () => Response.json({ issuer: iss });
const refused = () => {
  throw new TypeError("fetch failed", { cause: Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }) });
};

describe("the own provider check", () => {
  it("asks the discovery document through the public address and keeps a success for a while", async () => {
    const clock = clockAt(Date.UTC(2026, 0, 5));
    const { fetch, calls } = scripted([discovery(issuer), refused]);
    const check = createOwnProviderCheck({ issuer, now: clock.now, fetch });
    expect(await check()).toEqual({ ok: true });
    expect(calls).toEqual([`${issuer}/.well-known/openid-configuration`]);
    clock.advance(29_000);
    expect(await check()).toEqual({ ok: true });
    expect(calls).toHaveLength(1);
    clock.advance(2_000);
    expect(await check()).toEqual({
      ok: false,
      reason: `${issuer}/.well-known/openid-configuration unreachable: ECONNREFUSED`,
    });
  });

  it("names the cause of a failed request: an untrusted certificate", async () => {
    const untrusted = () => {
      throw new TypeError("fetch failed", {
        cause: Object.assign(new Error("self-signed"), { code: "SELF_SIGNED_CERT_IN_CHAIN" }),
      });
    };
    const check = createOwnProviderCheck({ issuer, now: clockAt(0).now, fetch: scripted([untrusted]).fetch });
    expect(await check()).toMatchObject({ ok: false, reason: expect.stringMatching(/unreachable: SELF_SIGNED_CERT_IN_CHAIN$/) });
  });

  it("is not fooled by another site at the public address", async () => {
    const { fetch } = scripted([
      discovery("https://altro.example.it/oidc"),
      () => new Response("<html>", { status: 200 }),
      () => new Response("", { status: 404 }),
    ]);
    const check = createOwnProviderCheck({ issuer, now: clockAt(0).now, fetch });
    expect(await check()).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/not this portal's provider \(issuer https:\/\/altro/),
    });
    expect(await check()).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/not this portal's provider \(issuer undefined\)/),
    });
    expect(await check()).toMatchObject({ ok: false, reason: expect.stringMatching(/answered 404$/) });
  });

  it("passes when the proxy answers that no instance is ready, without keeping that", async () => {
    // Behind a proxy that waits for readiness, failing would keep every instance out for good.
    const { fetch, calls } = scripted([() => new Response("", { status: 502 }), refused]);
    const check = createOwnProviderCheck({ issuer, now: clockAt(0).now, fetch });
    expect(await check()).toEqual({ ok: true });
    expect(await check()).toMatchObject({ ok: false });
    expect(calls).toHaveLength(2);
  });

  it("gives up on a provider that does not answer", async () => {
    const hanging = (async (_url: string | URL | Request, init?: RequestInit) =>
      new Promise<Response>((_resolve, reject) =>
        init?.signal?.addEventListener("abort", () => reject(init.signal!.reason)),
      )) as typeof globalThis.fetch;
    const check = createOwnProviderCheck({ issuer, now: clockAt(0).now, fetch: hanging, timeoutMs: 50 });
    expect(await check()).toMatchObject({ ok: false, reason: expect.stringMatching(/no answer in time$/) });
  });
});
