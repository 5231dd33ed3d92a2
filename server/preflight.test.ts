import { createServer } from "node:net";
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { freePort } from "#scripts/bench/server.ts";
import { testConfig } from "#tests/support/config.ts";
import { createLogger } from "./logger.ts";
import { preflight, warnAboutProduction } from "./preflight.ts";

/** The messages of the warnings a production start logs with `env`. */
function warningsOf(env: Record<string, string>): string[] {
  const lines: { level: number; msg: string }[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const line of chunk.toString().split("\n")) if (line) lines.push(JSON.parse(line));
      callback();
    },
  });
  warnAboutProduction(testConfig(env), createLogger("info", sink));
  return lines.filter((line) => line.level === 40).map((line) => line.msg);
}

describe("warnAboutProduction", () => {
  const production = { NODE_ENV: "production", PAYMENTS: "sandbox" };

  it("says that plain http leaves cookies without Secure and __Host-, and no HSTS", () => {
    const warnings = warningsOf({
      ...production,
      PUBLIC_ORIGIN: "http://portale.example.it",
      SMTP_URL: "smtp://mail.example.it",
      MAIL_DISABLED: "",
    });
    expect(warnings).toEqual([
      "PUBLIC_ORIGIN is not https: cookies are sent without Secure and the __Host- prefix, and there is no HSTS (docs/operating.md, Deploying)",
    ]);
  });

  it("says that mail is off when it was turned off", () => {
    expect(warningsOf({ ...production, PUBLIC_ORIGIN: "https://portale.example.it" })).toEqual([
      "MAIL_DISABLED=true: no mail is sent; each one waits in the outbox table",
    ]);
  });

  it("says nothing of https with SMTP, nor outside production", () => {
    expect(
      warningsOf({
        ...production,
        PUBLIC_ORIGIN: "https://portale.example.it",
        SMTP_URL: "smtp://mail.example.it",
        MAIL_DISABLED: "",
      }),
    ).toEqual([]);
    expect(warningsOf({ PUBLIC_ORIGIN: "http://localhost:3000" })).toEqual([]);
  });
});

describe("preflight", () => {
  it("names HOST when it is not an address of this machine", async () => {
    // 192.0.2.0/24 is TEST-NET-1 (RFC 5737): never a local address.
    await expect(preflight(testConfig({ HOST: "192.0.2.1", PORT: "3999" }))).rejects.toThrow(
      /^HOST: 192\.0\.2\.1 is not an address of this machine/,
    );
  });

  it("passes a free port, and leaves it free", async () => {
    const port = await freePort();
    await preflight(testConfig({ HOST: "127.0.0.1", PORT: String(port) }));
    const again = createServer();
    await new Promise<void>((resolve, reject) => again.once("error", reject).listen(port, "127.0.0.1", resolve));
    await new Promise<void>((resolve) => again.close(() => resolve()));
  });
});
