// A PostgreSQL pool that waits out a short outage (a restart, a failover) instead of failing the
// request that meets it. Found by `npm run load`: restarting PostgreSQL for 0.7 s under load gave
// seven pages 500, each a statement or a connection that met the server going down.
//
// What is repeated, and why it is safe:
//   - opening a connection (pool.connect): nothing was sent yet, whatever the work is;
//   - a transaction whose `begin` failed on a connection lost before it (retryUnstartedTransactions):
//     its work had not started;
//   - a statement outside a transaction whose connection was already dead when it was sent ("not
//     queryable"): the server never saw it;
//   - a statement outside a transaction that only reads (a `select` that neither locks rows nor
//     draws on a sequence) whose connection was lost while it ran: running it again changes nothing.
// A write whose connection was lost while it ran is not repeated: it may have been committed just
// before the connection went. Neither is a statement inside a transaction: the transaction is gone
// with its connection, and only its caller can decide to start again. A caller whose write ends
// in the same state however often it runs says so with `idempotent`, which repeats it within the
// database's own outage wait.
//
// The wait is a budget per request (`withinOutageBudget`, opened by the HTTP app for each request),
// not per statement: a page of five statements met by an outage waits it out once, not five times.
// A server that hangs rather than refuses is bounded by the pool's timeouts (timeouts.ts): a
// connection whose answer does not come is dropped (`dropUnanswered`) and counts as lost.
import { AsyncLocalStorage } from "node:async_hooks";
import type pg from "pg";
import type { Database } from "./client.ts";
import { isConnectionError, wasNotSent } from "./connection-errors.ts";

export type ReconnectOptions = {
  /** How long a connection or a statement keeps trying while PostgreSQL is unreachable. */
  outageWaitMs: number;
  /** Each error that was waited out (to log it). */
  onRetry?: (error: Error) => void;
  /** Each connection or statement that succeeded after waiting an outage out (to count it). */
  onWaitedOut?: () => void;
};

/** A `select` that locks rows (`for update`, `for share` and their kinds). */
const LOCKING_READ = /\bfor\s+(update|no\s+key\s+update|share|key\s+share)\b/i;
/** A `select` that advances or sets a sequence: its value is spent even when its answer is lost. */
const SEQUENCE_WRITE = /\b(nextval|setval)\s*\(/i;

/** A single `select` that changes nothing: repeating it on another connection is safe. */
function isReadOnlyStatement(text: string): boolean {
  return /^\s*select\b/i.test(text) && !LOCKING_READ.test(text) && !SEQUENCE_WRITE.test(text);
}

const FIRST_PAUSE_MS = 50;
const LONGEST_PAUSE_MS = 500;

type QueryConfig = string | pg.QueryConfig;

/**
 * A request's budget: when it stops waiting for the database (a deadline every statement shares),
 * and whether it met an outage already (from then on, each of its tries waits only until then).
 */
const requestBudget = new AsyncLocalStorage<{ giveUpAt: number; metOutage: boolean }>();

/** When the request running now stops waiting for the database; undefined outside a request. */
export function outageDeadline(): number | undefined {
  return requestBudget.getStore()?.giveUpAt;
}

/** Runs `work` (a request) with `outageWaitMs` to spend, in all, on waiting outages out. */
export function withinOutageBudget<T>(outageWaitMs: number, work: () => T): T {
  return requestBudget.run({ giveUpAt: Date.now() + outageWaitMs, metOutage: false }, work);
}

/**
 * Runs `attempt` until it succeeds, `retryable` refuses an error, or the outage lasts too long.
 * `attempt` is given the time to give up by when it is a try after an outage (it then waits no
 * longer), undefined for a first try, which its own timeouts bound.
 */
async function withRetries<T>(
  { outageWaitMs, onRetry, onWaitedOut }: ReconnectOptions,
  attempt: (giveUpAt: number | undefined) => Promise<T>,
  retryable: (error: unknown) => boolean,
): Promise<T> {
  const budget = requestBudget.getStore();
  const giveUpAt = budget?.giveUpAt ?? Date.now() + outageWaitMs;
  let afterOutage = budget?.metOutage ?? false;
  let retried = false;
  for (let pause = FIRST_PAUSE_MS; ; pause = Math.min(pause * 2, LONGEST_PAUSE_MS)) {
    try {
      const result = await attempt(afterOutage ? giveUpAt : undefined);
      if (retried) onWaitedOut?.();
      return result;
    } catch (error) {
      if (!retryable(error)) throw error;
      afterOutage = true;
      if (budget) budget.metOutage = true;
      if (Date.now() + pause > giveUpAt) throw error;
      onRetry?.(error as Error);
      retried = true;
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }
}

/** The budget ran out while a connection was being opened. */
class OutageBudgetSpent extends Error {
  constructor() {
    super("the database did not answer within the request's outage wait");
  }
}

/**
 * `connecting`, or a rejection once `giveUpAt` has passed; a connection that arrives later goes
 * back to the pool. Only opening a connection is cut short so: nothing was sent on it yet.
 */
function connectedBy(connecting: Promise<pg.PoolClient>, giveUpAt: number): Promise<pg.PoolClient> {
  const left = giveUpAt - Date.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const spent = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new OutageBudgetSpent()), Math.max(left, 0));
  });
  return Promise.race([connecting, spent]).then(
    (client) => {
      clearTimeout(timer);
      return client;
    },
    (error: unknown) => {
      clearTimeout(timer);
      if (error instanceof OutageBudgetSpent)
        connecting.then(
          (late) => late.release(),
          () => undefined,
        );
      throw error;
    },
  );
}

/**
 * Makes `pool` wait out outages (above). The pool stays a pg.Pool (Drizzle checks that to open its
 * transactions with `connect`), with `connect` and promise-style `query` replaced on the instance.
 */
export function reconnecting(pool: pg.Pool, options: ReconnectOptions): void {
  const connectOnce = pool.connect.bind(pool);
  pool.on("connect", releaseWhenBeginFails);
  pool.on("connect", dropUnanswered);

  // A first try waits as long as the pool's timeouts say; a try after an outage no longer than
  // the request's budget allows, for its connection and for its answer.
  const connect = () =>
    withRetries(
      options,
      (giveUpAt) => (giveUpAt === undefined ? connectOnce() : connectedBy(connectOnce(), giveUpAt)),
      isConnectionError,
    );

  async function queryOnce(config: QueryConfig, values: unknown[] | undefined, giveUpAt: number | undefined) {
    const client = giveUpAt === undefined ? await connect() : await connectedBy(connect(), giveUpAt);
    const bounded =
      giveUpAt === undefined
        ? config
        : { ...(typeof config === "string" ? { text: config } : config), query_timeout: Math.max(giveUpAt - Date.now(), 1) };
    try {
      const result = await client.query(bounded as pg.QueryConfig, values);
      client.release();
      return result;
    } catch (error) {
      // A connection that failed is dropped; one that answered an SQL error goes back to the pool.
      client.release(isConnectionError(error) ? error : undefined);
      throw error;
    }
  }

  async function query(config: QueryConfig, values?: unknown[]) {
    const text = typeof config === "string" ? config : config.text;
    const readOnly = isReadOnlyStatement(text);
    return withRetries(
      options,
      (giveUpAt) => queryOnce(config, values, giveUpAt),
      (error) => isConnectionError(error) && (readOnly || wasNotSent(error)),
    );
  }

  // Every caller (Drizzle, ping) uses the promise forms; a callback would be silently ignored.
  function rejectCallbacks(args: unknown[]) {
    if (args.some((arg) => typeof arg === "function")) throw new Error("reconnecting pool: use the promise form");
  }
  Object.assign(pool, {
    connect(...args: unknown[]) {
      rejectCallbacks(args);
      return connect();
    },
    query(config: QueryConfig, values?: unknown[], ...rest: unknown[]) {
      rejectCallbacks([values, ...rest]);
      return query(config, values);
    },
  });
}

/**
 * Drizzle sends a transaction's `begin` before its try/finally: when `begin` fails, it never
 * releases the connection, which the pool would then miss for good (and `pool.end` wait for). The
 * connection is released here instead, as broken. (Should Drizzle release it itself one day, the
 * outage tests in client.db.test.ts fail on the second release.)
 */
function releaseWhenBeginFails(client: pg.PoolClient) {
  const send = client.query.bind(client) as (...args: unknown[]) => unknown;
  const isBegin = (config: unknown) =>
    /^\s*begin\b/i.test(typeof config === "string" ? config : ((config as pg.QueryConfig)?.text ?? ""));
  client.query = ((...args: unknown[]) => {
    const result = send(...args);
    if (!isBegin(args[0]) || !(result instanceof Promise)) return result;
    return result.catch((error: Error) => {
      client.release(error);
      throw error;
    });
  }) as typeof client.query;
}

/**
 * A connection whose answer did not come in time (node-postgres' query_timeout: the server hangs)
 * is closed: its statement may still be running there, so its next user would wait behind it.
 * Closed, it is no longer queryable, and the pool discards it when it is released.
 */
function dropUnanswered(client: pg.PoolClient) {
  const send = client.query.bind(client) as (...args: unknown[]) => unknown;
  client.query = ((...args: unknown[]) => {
    const result = send(...args);
    if (!(result instanceof Promise)) return result;
    return result.catch((error: Error) => {
      if (error.message === "Query read timeout")
        (client as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
      throw error;
    });
  }) as typeof client.query;
}

/** The outage wait of each database over a reconnecting pool (`reconnectingDatabase`), for `idempotent`. */
const outageWaits = new WeakMap<Database, ReconnectOptions>();

/**
 * Makes the database over a reconnecting pool (above) repeat, within the pool's outage wait, what
 * the pool cannot tell is safe by itself: a transaction whose work had not begun, and a write its
 * caller marks `idempotent`.
 */
export function reconnectingDatabase(db: Database, options: ReconnectOptions): void {
  outageWaits.set(db, options);
  retryUnstartedTransactions(db, options);
}

/**
 * Repeats a transaction that failed before its work began (its `begin` met a lost connection),
 * within the outage wait. One whose work began is never repeated here: the work may do more than
 * write to the database, and only its caller knows whether it can run twice.
 */
function retryUnstartedTransactions(db: Database, options: ReconnectOptions): void {
  const begin = db.transaction.bind(db);
  db.transaction = ((work, config) => {
    let started = false;
    return withRetries(
      options,
      () =>
        begin((tx) => {
          started = true;
          return work(tx);
        }, config),
      (error) => !started && isConnectionError(error),
    );
  }) as Database["transaction"];
}

/**
 * Runs `write` on `db` again when its connection was lost, within the database's outage wait (in
 * a request, what is left of the request's budget). Only for writes that leave the same state
 * however many times they run (an upsert of the same values, a delete, a column set to a given
 * value): the first run may have been committed before the connection went. The embedded
 * database (PGlite) runs in this process: it has no connection to lose, and `write` runs once.
 */
export function idempotent<T>(db: Database, write: () => PromiseLike<T>): Promise<T> {
  const options = outageWaits.get(db);
  if (!options) return Promise.resolve(write());
  return withRetries(options, async () => write(), isConnectionError);
}
