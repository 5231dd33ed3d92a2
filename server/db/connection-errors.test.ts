// Which errors the reconnecting pool waits out, and which prove a statement was never sent
// (connection-errors.ts). The messages are those Debian's PgBouncer 1.18 and node-postgres gave
// while PostgreSQL restarted behind them; a PostgreSQL protocol violation shares PgBouncer's SQLSTATE.
import { DrizzleQueryError } from "drizzle-orm/errors";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { isConnectionError, wasNotSent } from "./connection-errors.ts";

/** An error as node-postgres makes it from the server's (or PgBouncer's) ErrorResponse. */
function serverError(code: string, message: string, severity = "FATAL") {
  const error = new pg.DatabaseError(message, message.length, "error");
  error.code = code;
  error.severity = severity;
  return error;
}
const socketError = (code: string) => Object.assign(new Error(`connect ${code} 127.0.0.1:6432`), { code });
/** As Drizzle hands it to its caller: its own error, the driver's as the cause. */
const wrapped = (cause: Error) => new DrizzleQueryError("select 1", [], cause);

const LOGIN_FAILING = "server login has been failing, try again later (server_login_retry)";

describe("an error during an outage", () => {
  it.each([
    ["PgBouncer: its login to PostgreSQL failing", serverError("08P01", LOGIN_FAILING)],
    ["PgBouncer: the server connection closed under a statement", serverError("08P01", "server conn crashed?")],
    ["PostgreSQL stopping", serverError("57P01", "terminating connection due to administrator command")],
    ["PostgreSQL starting up", serverError("57P03", "the database system is starting up")],
    ["nothing listening", socketError("ECONNREFUSED")],
    ["a connection reset", socketError("ECONNRESET")],
    ["a connection closed under a statement", new Error("Connection terminated unexpectedly")],
    ["a connection already known dead", new Error("Client has encountered a connection error and is not queryable")],
  ])("is waited out: %s, and wrapped by Drizzle too", (_, error) => {
    expect(isConnectionError(error)).toBe(true);
    expect(isConnectionError(wrapped(error))).toBe(true);
  });

  it.each([
    [
      "PostgreSQL's protocol violation (the same SQLSTATE as PgBouncer's)",
      serverError("08P01", "invalid frontend message type 0"),
    ],
    ["a unique violation", serverError("23505", 'duplicate key value violates unique constraint "orders_pkey"', "ERROR")],
    ["a statement cancelled by its timeout", serverError("57014", "canceling statement due to statement timeout", "ERROR")],
    ["PgBouncer refusing a startup parameter", serverError("08P01", "unsupported startup parameter: statement_timeout")],
    ["a plain error", new Error("server login has been failing")],
  ])("is the statement's own failure, not waited out: %s", (_, error) => {
    expect(isConnectionError(error)).toBe(false);
    expect(isConnectionError(wrapped(error))).toBe(false);
  });
});

describe("a statement never sent", () => {
  it("is one PgBouncer turned away for want of a server, or one on a connection already known dead", () => {
    expect(wasNotSent(serverError("08P01", LOGIN_FAILING))).toBe(true);
    expect(wasNotSent(wrapped(serverError("08P01", LOGIN_FAILING)))).toBe(true);
    expect(wasNotSent(new Error("Client has encountered a connection error and is not queryable"))).toBe(true);
  });

  it("is not one whose connection closed while it ran: it may have run", () => {
    expect(wasNotSent(serverError("08P01", "server conn crashed?"))).toBe(false);
    expect(wasNotSent(serverError("57P01", "terminating connection due to administrator command"))).toBe(false);
    expect(wasNotSent(new Error("Connection terminated unexpectedly"))).toBe(false);
    expect(wasNotSent(socketError("ECONNRESET"))).toBe(false);
  });
});
