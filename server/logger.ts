import pino from "pino";

export type Logger = pino.Logger;

/**
 * A failed query's error (Drizzle's "Failed query: … params: …") carries the values it was sent:
 * session hashes, e-mail addresses, names. The statement stays in the log; its values do not.
 * PostgreSQL's own details ("Key (email)=(…) already exists.") lose their values the same way.
 */
function withoutQueryValues(error: unknown): unknown {
  // pino-http hands its error serializer the standard serialization already made.
  const serialized = error instanceof Error ? (pino.stdSerializers.err(error) as unknown) : error;
  if (typeof serialized !== "object" || serialized === null) return serialized;
  const scrub = (text: unknown) =>
    typeof text === "string"
      ? text.replace(/\nparams: [\s\S]*?(?=\n {4}at |$)/g, "\nparams: [redacted]").replace(/\)=\([^)]*\)/g, ")=([redacted])")
      : text;
  const fields = serialized as Record<string, unknown>;
  for (const key of ["message", "stack", "detail"]) if (key in fields) fields[key] = scrub(fields[key]);
  if ("params" in fields) fields.params = "[redacted]";
  return fields;
}

/** Every logger's; the request loggers (server/http/log-redaction.ts) keep them too. */
export const logSerializers = { err: withoutQueryValues };

/** JSON logs. Headers that carry credentials are redacted wherever they appear, query values too. */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { service: "portal" },
    serializers: logSerializers,
    redact: {
      paths: [
        "req.headers.cookie",
        "req.headers.authorization",
        'res.headers["set-cookie"]',
        "*.password",
        "*.token",
        "*.secret",
      ],
      censor: "[redacted]",
    },
  };
  // Tests pass a stream to read the lines written.
  return destination ? pino(options, destination) : pino(options);
}
