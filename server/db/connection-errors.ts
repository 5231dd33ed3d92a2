// Which errors say that PostgreSQL, or the pooler in front of it, is unreachable for now (an
// outage the reconnecting pool waits out, reconnecting-pool.ts), and which of those prove that a
// statement never reached the server (safe to send again, whatever it does). Anything else is the
// statement's own failure and goes to its caller at once.
//
// Behind PgBouncer (server/db/pooler.ts) an outage reads differently: PgBouncer keeps the client's
// connection and answers for the server. Seen with Debian's PgBouncer 1.18 while PostgreSQL
// restarted (pg_ctl restart -m fast, npm run load -- --pgbouncer), each with SQLSTATE 08P01:
//   - "server login has been failing, try again later (server_login_retry)": PgBouncer could not
//     log in to PostgreSQL in its last try, and turns away the client that needs a server
//     connection (at login, or at the first statement of a transaction): nothing was sent;
//   - "server conn crashed?": the server connection a client's statement was running on closed
//     under it: the statement may have run, as with a connection lost to PostgreSQL itself.
// PostgreSQL itself answers 08P01 (protocol_violation) to a client that breaks the protocol, which
// no wait mends: only PgBouncer's two messages count.

/** SQLSTATEs of a server that ended the connection or does not take connections now. */
const UNAVAILABLE_SQLSTATES = new Set([
  "57P01", // admin_shutdown: the server is stopping (fast shutdown, pg_terminate_backend)
  "57P02", // crash_shutdown
  "57P03", // cannot_connect_now: shutting down or starting up
  "53300", // too_many_connections
  "08000",
  "08001",
  "08003",
  "08006", // connection_exception and its kinds
]);
const SOCKET_ERRORS = new Set(["ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT", "EHOSTUNREACH"]);
/** What node-postgres says of a connection closed under it, or of one already known dead. */
const LOST_CONNECTION = /Connection terminated|not queryable|Query read timeout/;
/** PgBouncer's answers (SQLSTATE 08P01) while the server behind it is down (above). */
const POOLER_OUTAGE = /^server login has been failing|^server conn crashed\?/;
/** Errors that prove the statement was never sent: a connection known dead, PgBouncer with no server to send it to. */
const NOT_SENT = /not queryable|^server login has been failing/;

/** The error and those it wraps (Drizzle wraps the driver's in its own). */
function* chain(error: unknown): Generator<Error> {
  for (let e: unknown = error; e instanceof Error; e = e.cause) yield e;
}

const codeOf = (error: Error) => (error as { code?: unknown }).code;

/** The error, or one it wraps, says the connection to the database failed or the server is unavailable. */
export function isConnectionError(error: unknown): error is Error {
  for (const e of chain(error)) {
    const code = codeOf(e);
    if (typeof code === "string" && (UNAVAILABLE_SQLSTATES.has(code) || SOCKET_ERRORS.has(code))) return true;
    if (code === "08P01" && POOLER_OUTAGE.test(e.message)) return true;
    if (LOST_CONNECTION.test(e.message)) return true;
  }
  return false;
}

/** A connection error (above) that proves its statement never reached the server. */
export function wasNotSent(error: unknown): boolean {
  for (const e of chain(error)) if (NOT_SENT.test(e.message) && (codeOf(e) === undefined || codeOf(e) === "08P01")) return true;
  return false;
}
