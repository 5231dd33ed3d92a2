import { Writable } from "node:stream";
import { DrizzleQueryError } from "drizzle-orm/errors";
import { pinoHttp } from "pino-http";
import { describe, expect, it } from "vitest";
import { redactingSerializers } from "./http/log-redaction.ts";
import { createLogger } from "./logger.ts";

/** The lines a logger writes, as text. */
function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { log: createLogger("info", stream), text: () => lines.join("") };
}

describe("the log", () => {
  it("keeps a failed statement but not the values it was sent, nor those PostgreSQL repeats", () => {
    const { log, text } = capture();
    const cause = Object.assign(new Error('duplicate key value violates unique constraint "users_email_key"'), {
      code: "23505",
      detail: "Key (email)=(giulia.rossi@example.it) already exists.",
    });
    const failed = new DrizzleQueryError(
      "insert into users (email, name) values ($1, $2)",
      ["giulia.rossi@example.it", "Giulia\nRossi"],
      cause,
    );
    log.error({ err: failed }, "unhandled error");
    log.error({ err: cause }, "unhandled error");
    // A request's logger, as server/http/app.ts makes it.
    const requestLog = pinoHttp({ logger: log, serializers: redactingSerializers }).logger;
    requestLog.error({ err: failed }, "identity provider server error");
    expect(text().split("\n").filter(Boolean)).toHaveLength(3);

    const written = text();
    expect(written).not.toContain("giulia.rossi");
    expect(written).not.toContain("Giulia");
    expect(written).toContain("insert into users (email, name) values ($1, $2)");
    expect(written).toContain("params: [redacted]");
    expect(written).toContain("Key (email)=([redacted]) already exists.");
    expect(written).toContain("users_email_key");
    expect(written).toContain('"code":"23505"');
  });

  it("logs other errors as they are", () => {
    const { log, text } = capture();
    log.error({ err: new Error("the SMTP server refused the message (550)") }, "mail failed");
    expect(text()).toContain("the SMTP server refused the message (550)");
    expect(text()).toContain('"stack":"Error: the SMTP server refused');
  });
});
