// How long the portal waits for PostgreSQL, at every step. A server that refuses or resets
// connections fails fast by itself; one that hangs (its processes frozen, a network that drops
// packets without a reset) answers nothing, and without these bounds a page waited as long as the
// hang lasted (40 s when the database's processes were stopped for 40 s) while /readyz said nothing.

export type DatabaseTimeouts = {
  /** Opening a connection, and waiting for a free one in the pool (node-postgres' connect timeout). */
  connectMs: number;
  /**
   * A statement, as the server counts it (statement_timeout). The pool also stops waiting for an
   * answer a little later (node-postgres' query_timeout): a frozen server cancels nothing.
   */
  statementMs: number;
  /** Waiting for a row or table lock (lock_timeout): a lock held by a stuck session fails fast. */
  lockMs: number;
  /** A transaction left open without a statement (idle_in_transaction_session_timeout). */
  idleInTransactionMs: number;
  /**
   * What one request may spend waiting an outage out (reconnecting-pool.ts): every retry of every
   * statement of the request draws on it, and /readyz waits at most `connectMs`.
   */
  outageWaitMs: number;
};

export const DEFAULT_DATABASE_TIMEOUTS: DatabaseTimeouts = {
  connectMs: 3_000,
  statementMs: 10_000,
  lockMs: 5_000,
  idleInTransactionMs: 30_000,
  outageWaitMs: 10_000,
};

/** How much longer than the server's statement_timeout the pool waits for an answer. */
export const ANSWER_MARGIN_MS = 1_000;

/** TCP keep-alive probes start after this much silence: a vanished peer is noticed in minutes, not hours. */
export const KEEP_ALIVE_DELAY_MS = 10_000;
