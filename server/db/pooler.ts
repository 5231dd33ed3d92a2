// The portal behind a connection pooler in transaction mode (PgBouncer's pool_mode = transaction,
// DATABASE_POOLER=transaction). There, each transaction, and each statement outside one, may run
// on another of the pooler's connections to PostgreSQL, shared with other clients: nothing a
// connection keeps from one transaction to the next can be relied upon. What the portal keeps on a
// connection, and what it does instead behind such a pooler:
//   - Named prepared statements (decision 012): node-postgres parses a named statement once per
//     connection, then only binds it. Behind the pooler its next use lands on a server connection
//     that never parsed it ("prepared statement … does not exist"; PgBouncer 1.18 does not carry
//     them). Every statement goes unnamed: parsed and planned each time (docs/performance.md
//     measures the cost).
//   - The timeouts, given at connect time as startup parameters (statement_timeout, lock_timeout,
//     idle_in_transaction_session_timeout): PgBouncer refuses a startup parameter it does not know
//     ("unsupported startup parameter"), and drops one it is told to ignore. Each transaction sets
//     them with SET LOCAL instead, sent with its BEGIN (no exchange of its own), so they hold where
//     locks are taken and transactions wait; a statement outside a transaction runs with the role's
//     defaults (ALTER ROLE … SET), which the start compares (`pooledTimeoutsDiffering`), and the
//     pool stops waiting for its answer all the same (query_timeout, on this side).
//   - The start-up's advisory lock (pg_advisory_lock, held by a session) and the migrations under
//     it: they take a connection of their own to PostgreSQL itself (DATABASE_DIRECT_URL).
// The portal uses nothing else a session keeps: no SET, LISTEN/NOTIFY, temporary table, cursor or
// other advisory lock (a customer's changes are serialised by a row lock, customer-lock.ts).
import { sql } from "drizzle-orm";
import type pg from "pg";
import type { Database } from "./client.ts";
import type { DatabaseTimeouts } from "./timeouts.ts";

type Timeouts = Pick<DatabaseTimeouts, "statementMs" | "lockMs" | "idleInTransactionMs">;

/** The PostgreSQL settings behind each timeout, in milliseconds. */
const SETTINGS = [
  ["statement_timeout", "statementMs"],
  ["lock_timeout", "lockMs"],
  ["idle_in_transaction_session_timeout", "idleInTransactionMs"],
] as const;

const BEGIN = /^\s*begin\b/i;

/**
 * Makes a pooled connection safe behind a pooler in transaction mode: its statements go unnamed,
 * and each transaction's BEGIN sets the timeouts for that transaction.
 */
export function forTransactionPooler(client: pg.PoolClient, timeouts: Timeouts): void {
  const setLocal = SETTINGS.map(([setting, key]) => `; set local ${setting} = ${Math.trunc(timeouts[key])}`).join("");
  const send = client.query.bind(client) as (...args: unknown[]) => unknown;
  client.query = ((config: unknown, ...rest: unknown[]) => {
    if (typeof config === "string") return send(BEGIN.test(config) ? config + setLocal : config, ...rest);
    if (config && typeof config === "object" && "text" in config && !("submit" in config)) {
      const { name: _unnamed, ...unnamed } = config as pg.QueryConfig;
      if (BEGIN.test(unnamed.text)) unnamed.text += setLocal;
      return send(unnamed, ...rest);
    }
    return send(config, ...rest);
  }) as typeof client.query;
}

/**
 * The timeouts a statement outside a transaction gets behind the pooler (the role's and database's
 * defaults) where they differ from the configured ones: each as `setting: found (configured)`.
 */
export async function pooledTimeoutsDiffering(db: Database, timeouts: Timeouts): Promise<string[]> {
  const result = (await db.execute(
    sql`select name, setting from pg_settings where name in ('statement_timeout', 'lock_timeout', 'idle_in_transaction_session_timeout')`,
  )) as unknown as { rows: { name: string; setting: string }[] };
  const found = new Map(result.rows.map((row) => [row.name, Number(row.setting)]));
  return SETTINGS.filter(([setting, key]) => found.get(setting) !== timeouts[key]).map(
    ([setting, key]) => `${setting}: ${found.get(setting)} (configured ${timeouts[key]})`,
  );
}
